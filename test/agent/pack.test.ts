/**
 * The package is standalone: `npm pack` of packages/agent (built), installed into an empty folder
 * outside the repository with nothing of the Hub around it (its dependencies come from the npm
 * cache), runs `ma2h --version`, sends a notify to the test Hub, serves MCP (`ma2h mcp`), and imports
 * as an ES module with its type declarations. The install is `--engine-strict` on the Node running the
 * tests (CI's), and every installed package's own Node floor is at or below the one the package
 * promises, so no supported Node warns EBADENGINE.
 */
// covers: packages/agent/package.json
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
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
  // --engine-strict: an install on a Node the package promises must not meet a dependency refusing it.
  await run("npm", ["install", tarball, "--engine-strict", "--prefer-offline", "--no-audit", "--no-fund"], {
    cwd: installDir,
    timeout: 120_000,
  });
}, 180_000);

describe("the package's metadata", () => {
  it("is Apache-2.0 licensed with its repository, homepage, bugs, keywords and files, as is the Hub's", () => {
    const root = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8"));
    for (const manifest of [pkg, root]) {
      expect(manifest.license).toBe("Apache-2.0");
      expect(manifest.repository.url).toMatch(/^git\+https:\/\/\S+\.git$/u);
      expect(manifest.homepage).toMatch(/^https:\/\//u);
      expect(manifest.bugs.url).toMatch(/^https:\/\//u);
      expect(manifest.keywords).toContain("ma2h");
      expect(Array.isArray(manifest.files) && manifest.files.includes("LICENSE")).toBe(true);
    }
    expect(pkg.repository.directory).toBe("packages/agent");
    expect(readFileSync(join(repoRoot, "packages/agent/LICENSE"), "utf8")).toBe(
      readFileSync(join(repoRoot, "LICENSE"), "utf8"),
    );
  });
});

describe("npm pack → install in an empty folder", () => {
  it("ships the built files only, and installs outside the repository", () => {
    expect(relative(repoRoot, installDir).startsWith("..")).toBe(true);
    // The licence, the README, the built dist/ and the manifest — no sources, tests, maps or .env.
    expect(packed).toEqual(["LICENSE", "README.md", "dist/cli.js", "dist/index.d.ts", "dist/index.js", "package.json"]);
    const licence = readFileSync(join(installDir, "node_modules/@ma2h/agent/LICENSE"), "utf8");
    expect(licence).toBe(readFileSync(join(repoRoot, "LICENSE"), "utf8"));
    expect(licence).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004/u);
    const installed = join(installDir, "node_modules/@ma2h/agent");
    expect(readdirSync(join(installed, "dist")).sort()).toEqual(["cli.js", "index.d.ts", "index.js"]);
    // Only the declared runtime dependencies came along: no Next, no Prisma.
    expect(existsSync(join(installDir, "node_modules/next"))).toBe(false);
    expect(existsSync(join(installDir, "node_modules/@prisma"))).toBe(false);
    expect(Object.keys(pkg.dependencies).sort()).toEqual([
      "@modelcontextprotocol/sdk",
      "@noble/curves",
      "canonicalize",
      "zod",
    ]);
  });

  it("promises the Hub's Node floor, and no installed dependency asks for a newer Node", () => {
    const root = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8"));
    expect(pkg.engines.node).toBe(root.engines.node);
    const floor = nodeFloor(pkg.engines.node, pkg.name);
    const installed = join(installDir, "node_modules");
    const manifests = readdirSync(installed).flatMap((d) =>
      d.startsWith("@") ? readdirSync(join(installed, d)).map((s) => join(d, s)) : d.startsWith(".") ? [] : [d],
    );
    expect(manifests).toContain("canonicalize");
    for (const name of manifests) {
      const file = join(installed, name, "package.json");
      if (!existsSync(file)) continue;
      const range = JSON.parse(readFileSync(file, "utf8")).engines?.node;
      if (range === undefined) continue;
      expect(compareVersions(nodeFloor(range, name), floor), `${name} wants node ${range}`).toBeLessThanOrEqual(0);
    }
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

  it("`ma2h mcp` from the installed package answers an MCP client's tools/list", async () => {
    const transport = new StdioClientTransport({
      command: join(installDir, "node_modules/.bin/ma2h"),
      args: ["mcp"],
      cwd: installDir,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: installDir,
        MA2H_URL: hub.url,
        MA2H_API_KEY: acme.keys[A]!,
        MA2H_AGENT_ID: A,
      },
      stderr: "inherit",
    });
    const mcp = new Client({ name: "pack-probe", version: "0.0.0" });
    await mcp.connect(transport);
    try {
      const { tools } = await mcp.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([
        "ask_human",
        "cancel_ask",
        "check_answer",
        "notify_human",
        "read_directives",
      ]);
    } finally {
      await mcp.close();
    }
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

/**
 * The lowest Node a `>=X[.Y[.Z]]` range admits. Any other form fails the test, so a dependency with a
 * range this reader cannot judge is looked at by a person rather than passed.
 */
function nodeFloor(range: string, who: string): number[] {
  const m = /^>=\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/u.exec(range.trim());
  if (!m) throw new Error(`${who}: engines.node "${range}" is not a plain >= floor`);
  return [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)];
}

function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  return 0;
}
