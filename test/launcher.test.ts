/**
 * bin/launcher.mjs: every Node entry point — `npm run hub|web|worker|db:migrate`, the hub's
 * children, the `ma2h-hub` CLI and the test helpers — runs its ahead-of-time bundle
 * (scripts/build-node.mjs) only while it is fresh: every source it was made from still has the
 * content recorded at build time. A source edited after the build, or no build at all, runs the
 * TypeScript through tsx instead; a source rewritten unchanged (`prisma generate` after every
 * `npm install`) keeps the bundle. Run on copies of the launchers in a scratch tree under
 * test-results/ (inside the repository, so tsx resolves from its node_modules) with stand-ins that
 * say which one ran; then against this repository's own build.
 */
// covers: bin/launcher.mjs, bin/run.mjs, scripts/build-node.mjs
import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contentHash, ENTRIES, nodeArgs } from "../bin/launcher.mjs";
import { repoRoot } from "./support/hub";

const tree = join(repoRoot, "test-results", `launcher-${process.pid}`);
const cliSource = join(tree, "cli", "ma2h-hub.ts");
const cliBundle = join(tree, "dist", "ma2h-hub.mjs");
const cliInputs = join(tree, "dist", "ma2h-hub.inputs.json");
const webSource = join(tree, "server", "web.ts");
const webBundle = join(tree, "dist", "web.mjs");
const shared = join(tree, "lib", "shared.ts");

const node = (...args: string[]) => execFileSync(process.execPath, args, { encoding: "utf8", cwd: tree }).trim();
const touch = (file: string, secondsAgo = 0) => {
  const t = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(file, t, t);
};
/** What scripts/build-node.mjs records: each input with the SHA-256 of its content now. */
const recordInputs = (file: string, inputs: string[]) =>
  writeFileSync(
    file,
    JSON.stringify({ inputs: Object.fromEntries(inputs.map((i) => [i, contentHash(join(tree, i))])) }),
  );
// What the scratch tree's launcher module says (a fresh import each time: no state is cached).
const scratchLauncher = async (): Promise<typeof import("../bin/launcher.mjs")> =>
  import(`${pathToFileURL(join(tree, "bin", "launcher.mjs")).href}?t=${Date.now()}${Math.random()}`);

beforeAll(() => {
  for (const dir of ["bin", "cli", "dist/chunks", "server", "lib"]) mkdirSync(join(tree, dir), { recursive: true });
  for (const f of ["launcher.mjs", "run.mjs", "ma2h-hub.js"])
    copyFileSync(join(repoRoot, "bin", f), join(tree, "bin", f));
  // As the build bundles it into every entry: a copy under dist/ says it runs the bundle.
  copyFileSync(join(repoRoot, "bin", "launcher.mjs"), join(tree, "dist", "chunks", "launcher.mjs"));
  copyFileSync(join(repoRoot, "tsconfig.json"), join(tree, "tsconfig.json"));
  // The launcher finds its root as the nearest package.json above it.
  writeFileSync(join(tree, "package.json"), JSON.stringify({ name: "launcher-scratch", type: "module" }));
  writeFileSync(cliSource, 'const ran: string = "source";\nconsole.log(ran);\n');
  writeFileSync(cliBundle, 'console.log("bundle");\n');
  recordInputs(cliInputs, ["cli/ma2h-hub.ts"]);
  writeFileSync(shared, 'export const via: string = "source";\n');
  // Each stand-in also reports what the start log says (runningCode), from the launcher it loads.
  writeFileSync(
    webSource,
    'import { via } from "../lib/shared";\nimport { runningCode } from "../bin/launcher.mjs";\nconsole.log(JSON.stringify({ via, file: process.argv[1], args: process.argv.slice(2), running: runningCode("web") }));\n',
  );
  writeFileSync(
    webBundle,
    'import { runningCode } from "./chunks/launcher.mjs";\nconsole.log(JSON.stringify({ via: "bundle", file: process.argv[1], args: process.argv.slice(2), running: runningCode("web") }));\n',
  );
  recordInputs(join(tree, "dist", "web.inputs.json"), ["server/web.ts", "lib/shared.ts"]);
});

afterAll(() => rmSync(tree, { recursive: true, force: true }));

describe("the ma2h-hub launcher", () => {
  it("runs the bundle while its sources have the content it was built from, the sources once one is edited", () => {
    expect(node(join(tree, "bin", "ma2h-hub.js"))).toBe("bundle");
    const before = readFileSync(cliSource, "utf8");
    writeFileSync(cliSource, before.replace('"source"', '"edited source"'));
    expect(node(join(tree, "bin", "ma2h-hub.js"))).toBe("edited source");
    writeFileSync(cliSource, before); // the edit undone: the bundle is what it was built from again
    expect(node(join(tree, "bin", "ma2h-hub.js"))).toBe("bundle");
  });

  it("keeps the bundle when a source is rewritten unchanged, newer than the bundle", () => {
    touch(cliBundle, 60);
    writeFileSync(cliSource, readFileSync(cliSource));
    touch(cliSource, 0);
    expect(node(join(tree, "bin", "ma2h-hub.js"))).toBe("bundle");
  });

  it("runs the sources when the build left no list of inputs, or one without content hashes", () => {
    rmSync(cliInputs);
    expect(node(join(tree, "bin", "ma2h-hub.js"))).toBe("source");
    writeFileSync(cliInputs, JSON.stringify({ inputs: ["cli/ma2h-hub.ts"] })); // an older build's list
    expect(node(join(tree, "bin", "ma2h-hub.js"))).toBe("source");
    recordInputs(cliInputs, ["cli/ma2h-hub.ts"]);
    expect(node(join(tree, "bin", "ma2h-hub.js"))).toBe("bundle");
  });
});

describe("bin/run.mjs and nodeArgs (npm run web, the hub's children, the test helpers)", () => {
  it("run the fresh bundle, as if node had been started on it, with the arguments after the name", async () => {
    expect(JSON.parse(node(join(tree, "bin", "run.mjs"), "web", "a", "--b"))).toEqual({
      via: "bundle",
      file: webBundle,
      args: ["a", "--b"],
      running: { code: "bundle" },
    });
    const launcher = await scratchLauncher();
    expect(launcher.freshBundle("web")).toBe(webBundle);
    expect(launcher.nodeArgs("web")).toEqual([webBundle]);
    expect(JSON.parse(node(...launcher.nodeArgs("web"), "x"))).toMatchObject({ via: "bundle", args: ["x"] });
  });

  it("fall back to the TypeScript through tsx once any input (not only the entry) changes, and say which", async () => {
    const before = readFileSync(shared, "utf8");
    writeFileSync(shared, `${before}// edited\n`);
    try {
      expect(JSON.parse(node(join(tree, "bin", "run.mjs"), "web", "a"))).toEqual({
        via: "source",
        file: webSource,
        args: ["a"],
        running: { code: "source", reason: "changed since the build: lib/shared.ts" },
      });
      const launcher = await scratchLauncher();
      expect(launcher.freshBundle("web")).toBeUndefined();
      expect(launcher.bundleState("web")).toEqual({ reason: "changed since the build: lib/shared.ts" });
      expect(launcher.nodeArgs("web")).toEqual(["--import", "tsx", webSource]);
      expect(JSON.parse(node(...launcher.nodeArgs("web"), "x"))).toMatchObject({ via: "source", args: ["x"] });
    } finally {
      writeFileSync(shared, before);
    }
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

  it("keeps every bundle after an identical prisma generate (what npm install's postinstall runs)", () => {
    // Rewrites lib/generated/ with the same content and new file times.
    execFileSync(process.execPath, [join(repoRoot, "node_modules", "prisma", "build", "index.js"), "generate"], {
      cwd: repoRoot,
      encoding: "utf8",
      env: { PATH: process.env.PATH, HOME: process.env.HOME, CHECKPOINT_DISABLE: "1" } as unknown as NodeJS.ProcessEnv,
    });
    const client = join(repoRoot, "lib", "generated", "prisma", "client.ts");
    const bundle = join(repoRoot, "dist", "web.mjs");
    expect(statSync(client).mtimeMs).toBeGreaterThan(statSync(bundle).mtimeMs);
    for (const name of Object.keys(ENTRIES) as (keyof typeof ENTRIES)[])
      expect(nodeArgs(name), name).toEqual([join(repoRoot, "dist", `${name}.mjs`)]);
  }, 120_000);

  it("the compiled CLI answers --help without a database", () => {
    const out = execFileSync(process.execPath, [join(repoRoot, "bin", "ma2h-hub.js"), "--help", "--json"], {
      encoding: "utf8",
      env: { PATH: process.env.PATH, HOME: process.env.HOME } as unknown as NodeJS.ProcessEnv,
    });
    expect(JSON.parse(out).usage).toContain("ma2h-hub account create <slug>");
  });
});
