/**
 * bin/ma2h-hub.js picks the ahead-of-time bundle (scripts/build-cli.mjs) only while it is fresh: a
 * source edited after the build, or no build at all, runs the TypeScript through tsx instead. Run
 * on a copy of the launcher in a scratch tree under test-results/ (inside the repository, so tsx
 * resolves from its node_modules) with stand-ins that say which one ran.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "./support/hub";

const tree = join(repoRoot, "test-results", `cli-launcher-${process.pid}`);
const source = join(tree, "cli", "ma2h-hub.ts");
const bundle = join(tree, "dist", "ma2h-hub.mjs");
const inputs = join(tree, "dist", "ma2h-hub.inputs.json");

const run = () => execFileSync(process.execPath, [join(tree, "bin", "ma2h-hub.js")], { encoding: "utf8" }).trim();
const age = (file: string, secondsAgo: number) => {
  const t = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(file, t, t);
};

beforeAll(() => {
  for (const dir of ["bin", "cli", "dist"]) mkdirSync(join(tree, dir), { recursive: true });
  copyFileSync(join(repoRoot, "bin", "ma2h-hub.js"), join(tree, "bin", "ma2h-hub.js"));
  copyFileSync(join(repoRoot, "tsconfig.json"), join(tree, "tsconfig.json"));
  writeFileSync(source, 'const ran: string = "source";\nconsole.log(ran);\n');
  writeFileSync(bundle, 'console.log("bundle");\n');
  writeFileSync(inputs, JSON.stringify({ inputs: ["cli/ma2h-hub.ts"] }));
});

afterAll(() => rmSync(tree, { recursive: true, force: true }));

describe("the ma2h-hub launcher", () => {
  it("runs the bundle while it is newer than its sources, the sources once one is edited", () => {
    age(source, 60);
    expect(run()).toBe("bundle");
    age(source, 0);
    age(bundle, 60);
    expect(run()).toBe("source");
  });

  it("runs the sources when the build left no list of inputs", () => {
    age(source, 60);
    rmSync(inputs);
    expect(run()).toBe("source");
  });
});
