/**
 * bin/launcher.mjs (#20): every Node entry point — `npm run hub|web|worker|db:migrate`, the hub's
 * children, the `ma2h-hub` CLI and the test helpers — runs its ahead-of-time bundle
 * (scripts/build-node.mjs) only while it is fresh: a source edited after the build, or no build at
 * all, runs the TypeScript through tsx instead. Run on copies of the launchers in a scratch tree under
 * test-results/ (inside the repository, so tsx resolves from its node_modules) with stand-ins that
 * say which one ran; then against this repository's own build.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENTRIES, nodeArgs } from "../bin/launcher.mjs";
import { repoRoot } from "./support/hub";

const tree = join(repoRoot, "test-results", `launcher-${process.pid}`);
const cliSource = join(tree, "cli", "ma2h-hub.ts");
const cliBundle = join(tree, "dist", "ma2h-hub.mjs");
const cliInputs = join(tree, "dist", "ma2h-hub.inputs.json");
const webSource = join(tree, "server", "web.ts");
const webBundle = join(tree, "dist", "web.mjs");
const shared = join(tree, "lib", "shared.ts");

const node = (...args: string[]) => execFileSync(process.execPath, args, { encoding: "utf8", cwd: tree }).trim();
const age = (file: string, secondsAgo: number) => {
  const t = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(file, t, t);
};
// What the scratch tree's launcher module says (a fresh import each time: no state is cached).
const scratchLauncher = async (): Promise<typeof import("../bin/launcher.mjs")> =>
  import(`${pathToFileURL(join(tree, "bin", "launcher.mjs")).href}?t=${Date.now()}${Math.random()}`);

beforeAll(() => {
  for (const dir of ["bin", "cli", "dist", "server", "lib"]) mkdirSync(join(tree, dir), { recursive: true });
  for (const f of ["launcher.mjs", "run.mjs", "ma2h-hub.js"])
    copyFileSync(join(repoRoot, "bin", f), join(tree, "bin", f));
  copyFileSync(join(repoRoot, "tsconfig.json"), join(tree, "tsconfig.json"));
  // The launcher finds its root as the nearest package.json above it.
  writeFileSync(join(tree, "package.json"), JSON.stringify({ name: "launcher-scratch", type: "module" }));
  writeFileSync(cliSource, 'const ran: string = "source";\nconsole.log(ran);\n');
  writeFileSync(cliBundle, 'console.log("bundle");\n');
  writeFileSync(cliInputs, JSON.stringify({ inputs: ["cli/ma2h-hub.ts"] }));
  writeFileSync(shared, 'export const via: string = "source";\n');
  writeFileSync(
    webSource,
    'import { via } from "../lib/shared";\nconsole.log(JSON.stringify({ via, file: process.argv[1], args: process.argv.slice(2) }));\n',
  );
  writeFileSync(
    webBundle,
    'console.log(JSON.stringify({ via: "bundle", file: process.argv[1], args: process.argv.slice(2) }));\n',
  );
  writeFileSync(join(tree, "dist", "web.inputs.json"), JSON.stringify({ inputs: ["server/web.ts", "lib/shared.ts"] }));
  for (const f of [cliSource, webSource, shared]) age(f, 60);
});

afterAll(() => rmSync(tree, { recursive: true, force: true }));

describe("the ma2h-hub launcher", () => {
  it("runs the bundle while it is newer than its sources, the sources once one is edited", () => {
    age(cliSource, 60);
    age(cliBundle, 0);
    expect(node(join(tree, "bin", "ma2h-hub.js"))).toBe("bundle");
    age(cliSource, 0);
    age(cliBundle, 60);
    expect(node(join(tree, "bin", "ma2h-hub.js"))).toBe("source");
  });

  it("runs the sources when the build left no list of inputs", () => {
    age(cliSource, 60);
    age(cliBundle, 0);
    rmSync(cliInputs);
    expect(node(join(tree, "bin", "ma2h-hub.js"))).toBe("source");
    writeFileSync(cliInputs, JSON.stringify({ inputs: ["cli/ma2h-hub.ts"] }));
  });
});

describe("bin/run.mjs and nodeArgs (npm run web, the hub's children, the test helpers)", () => {
  it("run the fresh bundle, as if node had been started on it, with the arguments after the name", async () => {
    age(webBundle, 0);
    expect(JSON.parse(node(join(tree, "bin", "run.mjs"), "web", "a", "--b"))).toEqual({
      via: "bundle",
      file: webBundle,
      args: ["a", "--b"],
    });
    const launcher = await scratchLauncher();
    expect(launcher.freshBundle("web")).toBe(webBundle);
    expect(launcher.nodeArgs("web")).toEqual([webBundle]);
    expect(JSON.parse(node(...launcher.nodeArgs("web"), "x"))).toMatchObject({ via: "bundle", args: ["x"] });
  });

  it("fall back to the TypeScript through tsx once any input (not only the entry) is newer", async () => {
    age(webBundle, 30);
    age(shared, 0);
    expect(JSON.parse(node(join(tree, "bin", "run.mjs"), "web", "a"))).toEqual({
      via: "source",
      file: webSource,
      args: ["a"],
    });
    const launcher = await scratchLauncher();
    expect(launcher.freshBundle("web")).toBeUndefined();
    expect(launcher.nodeArgs("web")).toEqual(["--import", "tsx", webSource]);
    expect(JSON.parse(node(...launcher.nodeArgs("web"), "x"))).toMatchObject({ via: "source", args: ["x"] });
    age(shared, 60);
  });

  it("refuses an unknown entry with the list of names", () => {
    let stderr = "";
    try {
      node(join(tree, "bin", "run.mjs"), "nope");
    } catch (err) {
      stderr = String((err as { stderr?: string }).stderr);
    }
    expect(stderr).toContain("usage: node bin/run.mjs <hub|web|worker|migrate|embedded-init|ma2h-hub>");
  });
});

describe("this repository's build (npm run build)", () => {
  it("has a fresh bundle for every entry point, so the launchers run the compiled files", () => {
    for (const name of Object.keys(ENTRIES) as (keyof typeof ENTRIES)[]) {
      const bundle = join(repoRoot, "dist", `${name}.mjs`);
      expect(existsSync(bundle), `${bundle}: run npm run build`).toBe(true);
      expect(nodeArgs(name), `${name}: a source is newer than dist/ — run npm run build:node`).toEqual([bundle]);
    }
  });

  it("the compiled CLI answers --help without a database", () => {
    const out = execFileSync(process.execPath, [join(repoRoot, "bin", "ma2h-hub.js"), "--help", "--json"], {
      encoding: "utf8",
      env: { PATH: process.env.PATH, HOME: process.env.HOME } as unknown as NodeJS.ProcessEnv,
    });
    expect(JSON.parse(out).usage).toContain("ma2h-hub account create <slug>");
  });
});
