/**
 * The package is standalone: `npm pack` of packages/agent (built), installed into an empty folder
 * outside the repository with nothing of the Hub around it (its dependencies through a local npm
 * registry serving the versions the repository installed: test/support/local-registry.ts), runs `ma2h --version`, sends a notify to the test Hub, imports as an ES module with its
 * type declarations and no MCP code, and serves MCP (`ma2h mcp`) once the optional MCP SDK is
 * installed beside it (without it, the command says what to install). The install is `--engine-strict` on the Node running the
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
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../lib/db";
import { repoRoot } from "../../../test/support/hub";
import { useHubFixture } from "../../../test/support/hub-fixture";
import { type LocalRegistry, registryEnv, startLocalRegistry } from "../../../test/support/local-registry";
import { waitFor } from "../../../test/support/wait";
import { tempDir } from "./cli-kit";

const run = promisify(execFile);
const A = "packbot/ci";
const hub = useHubFixture({ accounts: { acme: { agents: [A], humans: [{ handle: "alice", role: "owner" }] } } });
const acme = hub.account("acme");
const pkg = JSON.parse(readFileSync(join(repoRoot, "packages/agent/package.json"), "utf8"));
const packDir = tempDir("pack");
const installDir = tempDir("install"); // under the OS temp dir: no node_modules of ours above it
let tarball = "";
let registry: LocalRegistry;
/** npm's environment here: the local registry and a cache of the test's own. */
const npmEnv = () => registryEnv(registry, packDir);
/** The environment of a program run in the install folder as agent A of the test Hub. */
const agentEnv = () => ({
  PATH: process.env.PATH,
  NODE_ENV: "production" as const,
  HOME: installDir,
  MA2H_URL: hub.url,
  MA2H_API_KEY: acme.keys[A],
  MA2H_AGENT_ID: A,
});
let packed: string[] = [];

beforeAll(async () => {
  registry = await startLocalRegistry();
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
  await run("npm", ["install", tarball, "--engine-strict"], { cwd: installDir, env: npmEnv(), timeout: 120_000 });
  // Its dependencies came through the registry, not from anywhere else.
  expect(registry.requested).toEqual(expect.arrayContaining(Object.keys(pkg.dependencies)));
}, 180_000);

afterAll(() => registry?.close());

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
    // The licence, the README, the built dist/ (the library, the command and the command's chunks)
    // and the manifest — no sources, tests, maps or .env.
    const chunks = packed.filter((f) => f.startsWith("dist/cli-chunks/"));
    expect(chunks.length).toBeGreaterThan(0);
    for (const c of chunks) expect(c).toMatch(/^dist\/cli-chunks\/[\w-]+\.js$/u);
    expect(packed.filter((f) => !chunks.includes(f))).toEqual([
      "LICENSE",
      "README.md",
      "dist/cli.js",
      "dist/index.d.ts",
      "dist/index.js",
      "package.json",
    ]);
    const licence = readFileSync(join(installDir, "node_modules/@ma2h/agent/LICENSE"), "utf8");
    expect(licence).toBe(readFileSync(join(repoRoot, "LICENSE"), "utf8"));
    expect(licence).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004/u);
    const installed = join(installDir, "node_modules/@ma2h/agent");
    expect(readdirSync(join(installed, "dist")).sort()).toEqual(["cli-chunks", "cli.js", "index.d.ts", "index.js"]);
    // Only the declared runtime dependencies came along: no Next, no Prisma.
    expect(existsSync(join(installDir, "node_modules/next"))).toBe(false);
    expect(existsSync(join(installDir, "node_modules/@prisma"))).toBe(false);
    expect(Object.keys(pkg.dependencies).sort()).toEqual(["@noble/curves", "canonicalize", "zod"]);
    // The MCP SDK is for `ma2h mcp` only: an optional peer dependency, not installed with the package.
    expect(pkg.peerDependencies).toEqual({ "@modelcontextprotocol/sdk": expect.stringMatching(/^\^1\./u) });
    expect(pkg.peerDependenciesMeta).toEqual({ "@modelcontextprotocol/sdk": { optional: true } });
    expect(existsSync(join(installDir, "node_modules/@modelcontextprotocol"))).toBe(false);
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

  it("without the MCP SDK the library holds no MCP code, and `ma2h mcp` says what to install (exit 2)", async () => {
    const library = readFileSync(join(installDir, "node_modules/@ma2h/agent/dist/index.js"), "utf8");
    expect(library).not.toContain("@modelcontextprotocol");
    const cliMain = readFileSync(join(installDir, "node_modules/@ma2h/agent/dist/cli.js"), "utf8");
    expect(cliMain).not.toMatch(/from\s*"@modelcontextprotocol/u);
    // The MCP server's chunk imports the SDK (a peer, resolved where it is installed), never carries a copy.
    const chunksDir = join(installDir, "node_modules/@ma2h/agent/dist/cli-chunks");
    const chunks = readdirSync(chunksDir).map((f) => readFileSync(join(chunksDir, f), "utf8"));
    expect(chunks.some((c) => /from\s*"@modelcontextprotocol\/sdk\//u.test(c))).toBe(true);
    for (const c of chunks) expect(c).not.toContain("node_modules/@modelcontextprotocol");
    const refused = await run(join(installDir, "node_modules/.bin/ma2h"), ["mcp"], {
      cwd: installDir,
      env: agentEnv(),
      timeout: 30_000,
    }).then(
      () => null,
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
    expect(refused?.code).toBe(2);
    expect(refused?.stdout).toBe("");
    expect(refused?.stderr).toMatch(
      /^ma2h: mcp_sdk_missing: ma2h mcp needs @modelcontextprotocol\/sdk, .*npm install @modelcontextprotocol\/sdk@\^1\.\d+\.\d+\)\n$/u,
    );
  });

  it("`ma2h mcp` answers an MCP client's tools/list once the MCP SDK is installed beside the package", async () => {
    const wanted = pkg.devDependencies["@modelcontextprotocol/sdk"] as string;
    await run("npm", ["install", `@modelcontextprotocol/sdk@${wanted}`], {
      cwd: installDir,
      env: npmEnv(),
      timeout: 120_000,
    });
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

  it("the README's quick start runs as written: it asks, a person approves, and it deploys", async () => {
    const readme = readFileSync(join(repoRoot, "packages/agent/README.md"), "utf8");
    const quickStart = readme.slice(readme.indexOf("## Quick start"));
    const snippet = /```ts\n([\s\S]*?)```/u.exec(quickStart)?.[1] ?? "";
    expect(snippet).toContain('from "@ma2h/agent"');
    // The snippet's own `deploy()` is the reader's: here it says that it ran.
    const script = `${snippet}\nasync function deploy() { console.log("deployed"); }\n`;
    writeFileSync(join(installDir, "quick-start.mjs"), script);
    const started = run(process.execPath, ["quick-start.mjs"], {
      cwd: installDir,
      env: agentEnv(),
      timeout: 120_000,
    });
    const title = /title: "([^"]+)"/u.exec(snippet)?.[1] as string;
    const asked = await waitFor(
      () => db().message.findFirst({ where: { title, status: "open" }, select: { id: true } }),
      { what: "the quick start's ask", timeout: 60_000 },
    );
    const approved = await hub
      .human("alice", "acme")
      .post(`/v1/messages/${asked.id}/resolve`, { resolution: "answered", value: "approve" });
    expect(approved.status).toBe(200);
    const { stdout } = await started;
    expect(stdout).toBe("deployed\n");
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
