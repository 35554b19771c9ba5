/**
 * The package is standalone: `npm pack` of packages/agent (built), installed into an empty folder
 * outside the repository with nothing of the Hub around it (its three dependencies come from the npm
 * cache), runs `ma2h --version`, sends a notify to the test Hub, and imports as an ES module with
 * its type declarations.
 */
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../support/hub";
import { useHubFixture } from "../support/hub-fixture";
import { tempDir } from "./cli-kit";

const run = promisify(execFile);
const A = "packbot/ci";
const hub = useHubFixture({ accounts: { acme: { agents: [A], humans: [{ handle: "alice", role: "owner" }] } } });
const acme = hub.account("acme");
const pkg = JSON.parse(readFileSync(join(repoRoot, "packages/agent/package.json"), "utf8"));
const packDir = tempDir("pack");
const installDir = tempDir("install"); // under the OS temp dir: no node_modules of ours above it
let tarball = "";
let packed: string[] = [];

beforeAll(async () => {
  const { stdout } = await run(
    "npm",
    ["pack", join(repoRoot, "packages/agent"), "--pack-destination", packDir, "--json"],
    {
      cwd: repoRoot,
    },
  );
  const [info] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarball = join(packDir, info!.filename);
  packed = info!.files.map((f) => f.path).sort();
  // A bare project of its own, so npm installs here and nowhere above.
  writeFileSync(join(installDir, "package.json"), JSON.stringify({ name: "pack-probe", private: true }));
  await run("npm", ["install", tarball, "--prefer-offline", "--no-audit", "--no-fund"], {
    cwd: installDir,
    timeout: 120_000,
  });
}, 180_000);

describe("npm pack → install in an empty folder", () => {
  it("ships the built files only, and installs outside the repository", () => {
    expect(relative(repoRoot, installDir).startsWith("..")).toBe(true);
    expect(packed).toEqual(["README.md", "dist/cli.js", "dist/index.d.ts", "dist/index.js", "package.json"]);
    const installed = join(installDir, "node_modules/@ma2h/agent");
    expect(readdirSync(join(installed, "dist")).sort()).toEqual(["cli.js", "index.d.ts", "index.js"]);
    // Only the declared runtime dependencies came along: no Next, no Prisma.
    expect(existsSync(join(installDir, "node_modules/next"))).toBe(false);
    expect(existsSync(join(installDir, "node_modules/@prisma"))).toBe(false);
    expect(Object.keys(pkg.dependencies).sort()).toEqual(["@noble/curves", "canonicalize", "zod"]);
  });

  it("`ma2h --version` runs from node_modules/.bin, and a notify reaches the Hub", async () => {
    const bin = join(installDir, "node_modules/.bin/ma2h");
    const env = { PATH: process.env.PATH, NODE_ENV: "production" as const, HOME: installDir };
    const v = await run(bin, ["--version"], { cwd: installDir, env });
    expect(v.stdout).toBe(`${pkg.version}\n`);
    const sent = await run(bin, ["notify", "Hello from the packed package", "--tag", "pack"], {
      cwd: installDir,
      env: { ...env, MA2H_URL: hub.url, MA2H_API_KEY: acme.keys[A], MA2H_AGENT_ID: A },
    });
    const id = sent.stdout.trim();
    expect(id).toMatch(/^msg_[0-9a-z]+$/u);
    const got = await hub.agent(A, "acme").get(`/v1/messages/${id}`);
    expect(got.body).toMatchObject({ type: "notify", title: "Hello from the packed package", tags: ["pack"] });
  });

  it("imports as an ES module: the client, the verifiers and the state seal are there, with declarations", async () => {
    const script =
      "const m = await import('@ma2h/agent');" +
      "console.log(JSON.stringify(['Ma2hClient','verifyPush','verifyDirective','sealState','openState','FileDedupStore','nodePushHandler','fetchPushHandler'].map((n) => typeof m[n])));";
    const out = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: installDir });
    expect(JSON.parse(out.stdout)).toEqual(Array(8).fill("function"));
    const dts = readFileSync(join(installDir, "node_modules/@ma2h/agent/dist/index.d.ts"), "utf8");
    for (const name of ["class Ma2hClient", "function verifyPush", "function sealState", "interface ReplayStore"])
      expect(dts).toContain(name);
  });
});
