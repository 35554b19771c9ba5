/**
 * The examples under examples/ run — against the real Hub (web + worker), as a user runs them:
 * - examples/github-actions/deploy-gate.yml: the workflow is parsed and its job's steps executed in
 *   order as GitHub's `shell: bash` does (`bash --noprofile --norc -eo pipefail`), with `${{ secrets.X
 *   }}` / `${{ vars.X }}` / `${{ github.X }}` replaced by test values, GitHub's default GITHUB_* /
 *   RUNNER_* variables set, `uses:` steps skipped (the runner's own setup: checkout, Node) and the
 *   `if:` conditions the workflow uses honoured (success(), failure()). Its "Install the ma2h command"
 *   step runs as written: `npm install -g` of the tarball the test packs from the BUILT package (what
 *   `npm run pack:agent` makes) into a global prefix of the test's own (NPM_CONFIG_PREFIX), whose bin/
 *   is on PATH. Two substitutions, stated here: the runner's npm resolves the package's dependencies
 *   through a local registry serving the versions the repository installed
 *   (test/support/local-registry.ts: no network), and the workflow's ./scripts/deploy.sh is a stub
 *   in the temporary workspace that records the deploy. A person approves with a PAT → the deploy step runs; denies →
 *   it does not, the failure step reports, the job fails.
 * - examples/resume-agent: ask.ts (run #1) exits with the id; receiver.ts runs as a process behind a
 *   recording reverse proxy (the public callback URL); a person answers, the Hub pushes, the receiver
 *   resumes exactly once; the captured push replayed, re-signed with a fresh jti, and again after a
 *   receiver restart never resumes twice.
 * - examples/directive-listener.ts: a person's directive is acked with the listener's note; SIGTERM
 *   stops it with exit 0.
 * - examples/mcp/*: each configuration parses, and the server it names (`ma2h mcp` →
 *   `node packages/agent/dist/cli.js mcp`), started with its env pointed at the test Hub, answers an
 *   MCP `tools/list` through @modelcontextprotocol/sdk's Client.
 * The TypeScript examples import "@ma2h/agent". The root tsconfig maps that name to the package's
 * source for the typecheck (which runs before the build in CI); here they run through tsx with a
 * tsconfig without that mapping, so the import resolves like a user's: node_modules/@ma2h/agent →
 * the built dist.
 */
// covers: examples/
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import http, { type Server } from "node:http";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { addBinding } from "../lib/principals/bindings";
import { signResponsePush } from "@ma2h/protocol/signing";
import { CLI, tempDir } from "../packages/agent/test/cli-kit";
import { freePort, repoRoot } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { type LocalRegistry, registryEnv, startLocalRegistry } from "./support/local-registry";
import { waitFor } from "./support/wait";
import { type WatchedProcess, watchProcess } from "./support/watched-process";

const A = "deploybot/dev-team";
const SECRET_REF = "agent-callback";
const SECRET = "callback-secret-of-the-resume-example-0123456789";
const STATE_KEY = "state-key-of-the-resume-example-0123456789abcdef";
const dir = tempDir("examples");
const example = (...p: string[]) => join(repoRoot, "examples", ...p);

// ---------------------------------------------------------------------------------------------------
// Processes

type Proc = WatchedProcess;

function proc(command: string, args: string[], env: Record<string, string>, cwd = repoRoot): Proc {
  return watchProcess(command, args, { env: env as NodeJS.ProcessEnv, cwd });
}

/** `node --import tsx <example>`, resolving "@ma2h/agent" as a user's project would (see the header). */
const plainTsconfig = join(dir, "tsconfig.json");
writeFileSync(plainTsconfig, JSON.stringify({ compilerOptions: { module: "esnext", target: "es2022" } }));
const tsx = (file: string, args: string[], env: Record<string, string>) =>
  proc(process.execPath, ["--import", "tsx", file, ...args], {
    PATH: process.env.PATH ?? "",
    HOME: dir,
    TSX_TSCONFIG_PATH: plainTsconfig,
    ...env,
  });

const eventually = <T>(probe: () => Promise<T | undefined> | T | undefined, what: string, timeout = 60_000) =>
  waitFor(probe, { what, timeout, every: 100 });

// ---------------------------------------------------------------------------------------------------
// The resume example's public URL: a reverse proxy that records every push and forwards it to
// receiver.ts (which starts later, on a port chosen now).

interface Captured {
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  status: number;
}
const captured: Captured[] = [];
let proxy: Server;
let proxyOrigin = "";
let receiverPort = 0;

async function startProxy(): Promise<void> {
  receiverPort = await freePort();
  proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks);
      try {
        const upstream = await fetch(`http://127.0.0.1:${receiverPort}${req.url}`, {
          method: req.method,
          headers: {
            "content-type": String(req.headers["content-type"] ?? "application/json"),
            "ma2h-signature": String(req.headers["ma2h-signature"] ?? ""),
          },
          body: new Uint8Array(body),
        });
        const text = await upstream.text();
        captured.push({ headers: req.headers, body, status: upstream.status });
        res.writeHead(upstream.status, { "content-type": "application/json" }).end(text);
      } catch {
        captured.push({ headers: req.headers, body, status: 502 });
        res.writeHead(502).end();
      }
    });
  });
  await new Promise<void>((ok) => proxy.listen(0, "127.0.0.1", () => ok()));
  const address = proxy.address();
  proxyOrigin = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
}

const hub = useHubFixture({
  accounts: { acme: { agents: [A], humans: [{ handle: "alice", role: "owner" }] } },
  server: "pair",
  setup: async () => {
    await startProxy();
    await addBinding({
      agentRef: { agentId: A, accountSlug: "acme" },
      origin: proxyOrigin,
      secretRef: SECRET_REF,
      secret: SECRET,
    });
  },
  env: () => ({ MA2H_DEV_CALLBACK_ALLOWLIST: proxyOrigin, MA2H_PUSH_BASE_DELAY_MS: "500" }),
});
const acme = hub.account("acme");
afterAll(() => new Promise<void>((ok) => (proxy ? proxy.close(() => ok()) : ok())));

const person = () => hub.human("alice", "acme");
const resolveAs = async (id: string, body: Record<string, unknown>) => {
  const res = await person().post(`/v1/messages/${id}/resolve`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};
const agentEnv = (): Record<string, string> => ({
  MA2H_URL: hub.url,
  MA2H_API_KEY: acme.keys[A] as string,
  MA2H_AGENT_ID: A,
});

// ---------------------------------------------------------------------------------------------------
// A GitHub Actions job, executed as shell

interface WorkflowStep {
  name?: string;
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  shell?: string;
  env?: Record<string, string | number | boolean>;
}
interface Workflow {
  env?: Record<string, string>;
  jobs: Record<string, { env?: Record<string, string>; steps: WorkflowStep[] }>;
}
interface StepResult {
  name: string;
  outcome: "success" | "failure" | "skipped";
  code?: number | null;
  stdout?: string;
  stderr?: string;
}

/** The `${{ … }}` expressions the workflow uses, against the test's contexts; anything else fails the test. */
function substitute(text: string, contexts: Record<string, Record<string, string>>): string {
  return text.replace(/\$\{\{\s*([a-z_]+)\.([A-Za-z0-9_]+)\s*\}\}|\$\{\{[^}]*\}\}/gu, (whole, ctx, key) => {
    const value = ctx === undefined ? undefined : contexts[ctx]?.[key];
    if (value === undefined) throw new Error(`the test runner does not know the expression ${whole}`);
    return value;
  });
}

/** `if:` as the workflow uses it: absent means success(); success() and failure() on the job so far. */
function condition(expr: string | undefined, failed: boolean): boolean {
  const e = (expr ?? "success()").trim().replace(/^\$\{\{\s*(.*?)\s*\}\}$/u, "$1");
  if (e === "success()") return !failed;
  if (e === "failure()") return failed;
  throw new Error(`the test runner does not implement the condition ${JSON.stringify(expr)}`);
}

/** The packed @ma2h/agent (as `npm run pack:agent` makes it, from the built package), packed once. */
let tarball: string | undefined;
let registry: LocalRegistry | undefined;
afterAll(() => registry?.close());
function agentTarball(): string {
  if (tarball) return tarball;
  const out = execFileSync("npm", ["pack", "./packages/agent", "--pack-destination", dir, "--json"], {
    cwd: repoRoot,
    encoding: "utf8",
  });
  tarball = join(dir, (JSON.parse(out) as { filename: string }[])[0]!.filename);
  return tarball;
}

interface JobRun {
  /** Everything the steps wrote to stderr so far (the ask's progress note names the id). */
  stderr(): string;
  done: Promise<{ steps: StepResult[]; failed: boolean }>;
}

function runJob(
  workflow: Workflow,
  job: string,
  o: { contexts: Record<string, Record<string, string>>; githubEnv: Record<string, string>; workspace: string },
): JobRun {
  let stderr = "";
  const spec = workflow.jobs[job];
  if (!spec) throw new Error(`no job ${job}`);
  // The runner's global npm prefix: what the install step puts on PATH.
  const prefix = join(o.workspace, "..", "npm-global");
  const envOf = (e: Record<string, unknown> | undefined) =>
    Object.fromEntries(Object.entries(e ?? {}).map(([k, v]) => [k, substitute(String(v), o.contexts)]));
  const done = (async () => {
    registry ??= await startLocalRegistry();
    const npm = registryEnv(registry, dir);
    const steps: StepResult[] = [];
    let failed = false;
    for (const [i, step] of spec.steps.entries()) {
      const name = step.name ?? step.uses ?? `step ${i + 1}`;
      if (step.uses !== undefined) {
        steps.push({ name, outcome: "skipped" }); // the runner's own setup (checkout, Node)
        continue;
      }
      if (!condition(step.if, failed)) {
        steps.push({ name, outcome: "skipped" });
        continue;
      }
      expect(step.shell ?? "bash", name).toBe("bash");
      const script = join(o.workspace, "..", `step-${i}.sh`);
      writeFileSync(script, substitute(step.run ?? "", o.contexts));
      const p = proc(
        "bash",
        ["--noprofile", "--norc", "-eo", "pipefail", script],
        {
          PATH: `${join(prefix, "bin")}:${process.env.PATH ?? ""}`,
          HOME: join(o.workspace, ".."),
          NPM_CONFIG_PREFIX: prefix,
          NPM_CONFIG_REGISTRY: npm.NPM_CONFIG_REGISTRY as string,
          NPM_CONFIG_CACHE: npm.NPM_CONFIG_CACHE as string,
          ...o.githubEnv,
          ...envOf(workflow.env),
          ...envOf(spec.env),
          ...envOf(step.env),
        },
        o.workspace,
      );
      p.child.stderr?.on("data", (d: Buffer) => {
        stderr += d.toString();
      });
      const r = await p.done;
      const outcome = r.code === 0 ? "success" : "failure";
      if (outcome === "failure") failed = true;
      steps.push({ name, outcome, code: r.code, stdout: r.stdout, stderr: r.stderr });
    }
    return { steps, failed };
  })();
  return { stderr: () => stderr, done };
}

describe("examples/github-actions/deploy-gate.yml", () => {
  const workflow = parseYaml(readFileSync(example("github-actions", "deploy-gate.yml"), "utf8")) as Workflow;
  const sha = "9f1c2e7d3b5a4f60718293a4b5c6d7e8f9012345";

  function job(label: string) {
    const root = join(dir, `gha-${label}`);
    const workspace = join(root, "workspace");
    const temp = join(root, "runner-temp");
    mkdirSync(join(workspace, "scripts"), { recursive: true });
    mkdirSync(temp, { recursive: true });
    // The repository's deploy script, stubbed: it records what it would have deployed.
    const deploy = join(workspace, "scripts", "deploy.sh");
    writeFileSync(deploy, '#!/usr/bin/env bash\necho "deployed $2 to $1" >> "$GITHUB_WORKSPACE/deployed.txt"\n');
    chmodSync(deploy, 0o755);
    const files = {
      output: join(temp, "output"),
      summary: join(temp, "step-summary.md"),
      deployed: join(workspace, "deployed.txt"),
    };
    const githubEnv = {
      CI: "true",
      GITHUB_ACTIONS: "true",
      GITHUB_WORKSPACE: workspace,
      GITHUB_REPOSITORY: "acme/shop",
      GITHUB_SHA: sha,
      GITHUB_ACTOR: "octocat",
      GITHUB_SERVER_URL: "https://github.com",
      GITHUB_RUN_ID: "4242",
      GITHUB_OUTPUT: files.output,
      GITHUB_STEP_SUMMARY: files.summary,
      RUNNER_TEMP: temp,
    };
    const contexts = {
      secrets: { MA2H_API_KEY: acme.keys[A] as string },
      vars: { MA2H_URL: hub.url, MA2H_AGENT_ID: A, MA2H_AGENT_PACKAGE: agentTarball() },
      github: { sha, repository: "acme/shop", actor: "octocat", run_id: "4242", workspace },
    };
    return { run: runJob(workflow, "deploy", { contexts, githubEnv, workspace }), files };
  }
  const read = (f: string) => (existsSync(f) ? readFileSync(f, "utf8") : "");

  it("is a workflow whose gate asks with --timeout and --default deny, and whose deploy runs on success() only", () => {
    const steps = workflow.jobs.deploy?.steps ?? [];
    const gate = steps.find((s) => s.id === "gate");
    expect(gate?.run).toMatch(/^\s*answer=\$\(ma2h ask confirm /mu);
    // The command comes from the team's tarball (the package is not on the npm registry yet).
    const install = steps.find((s) => s.name === "Install the ma2h command");
    expect(install?.run).toMatch(/^npm install -g .*"\$MA2H_AGENT_PACKAGE"$/u);
    expect(install?.env).toEqual({ MA2H_AGENT_PACKAGE: `\${{ vars.MA2H_AGENT_PACKAGE }}` });
    expect(steps.indexOf(install as WorkflowStep)).toBeLessThan(steps.indexOf(gate as WorkflowStep));
    expect(gate?.run).toMatch(/--timeout 30m\b/u);
    expect(gate?.run).toMatch(/--default deny\b/u);
    const deploy = steps.find((s) => s.name === "Deploy");
    expect(steps.indexOf(deploy as WorkflowStep)).toBeGreaterThan(steps.indexOf(gate as WorkflowStep));
    expect(deploy?.if ?? "success()").toBe("success()");
    // Secrets reach the steps as env, never spelled into a script.
    expect(workflow.jobs.deploy?.env).toEqual({
      MA2H_URL: `\${{ vars.MA2H_URL }}`,
      MA2H_API_KEY: `\${{ secrets.MA2H_API_KEY }}`,
      MA2H_AGENT_ID: `\${{ vars.MA2H_AGENT_ID }}`,
    });
    for (const s of steps) expect(s.run ?? "").not.toContain(`\${{`);
  });

  it("a person approves: the gate step succeeds and the deploy step runs", async () => {
    const { run, files } = job("approve");
    // The job's first step is `npm install -g` of the packed SDK: on a loaded 2-core box (CI with other
    // work beside it) that alone has taken over a minute, so the ask may come late.
    const id = (await eventually(() => /asked (msg_[0-9a-z]+)/u.exec(run.stderr())?.[1], "the ask", 150_000))!;
    const asked = await hub.agent(A, "acme").get(`/v1/messages/${id}`);
    expect(asked.body).toMatchObject({
      type: "ask",
      title: "Deploy 9f1c2e7 to production?",
      priority: "high",
      tags: ["deploy", "production"],
      request: { mode: "confirm", default_on_expire: "deny" },
    });
    expect(asked.body.body).toContain("https://github.com/acme/shop/actions/runs/4242");
    const expiresIn = Date.parse(asked.body.expires_at) - Date.now();
    expect(expiresIn).toBeGreaterThan(29 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(30 * 60_000);

    await resolveAs(id, { resolution: "answered", value: "approve" });
    const { steps, failed } = await run.done;
    expect(steps.map((s) => [s.name, s.outcome])).toEqual([
      ["actions/checkout@v4", "skipped"],
      ["actions/setup-node@v4", "skipped"],
      ["Install the ma2h command", "success"],
      ["Ask a person to approve the deploy", "success"],
      ["Deploy", "success"],
      ["Report the deploy that did not happen", "skipped"],
    ]);
    expect(failed).toBe(false);
    expect(read(files.output)).toBe("answer=approve\n");
    expect(read(files.deployed)).toBe(`deployed ${sha} to production\n`);
  }, 180_000);

  it("a person denies: the gate step fails (exit 1), the deploy step does not run, the job fails and reports", async () => {
    const { run, files } = job("deny");
    const id = (await eventually(() => /asked (msg_[0-9a-z]+)/u.exec(run.stderr())?.[1], "the ask", 150_000))!;
    await resolveAs(id, { resolution: "answered", value: "deny", comment: "not during the sale" });
    const { steps, failed } = await run.done;
    expect(steps.map((s) => [s.name, s.outcome])).toEqual([
      ["actions/checkout@v4", "skipped"],
      ["actions/setup-node@v4", "skipped"],
      ["Install the ma2h command", "success"],
      ["Ask a person to approve the deploy", "failure"],
      ["Deploy", "skipped"],
      ["Report the deploy that did not happen", "success"],
    ]);
    const step = (name: string) => steps.find((s) => s.name === name);
    expect(step("Ask a person to approve the deploy")?.code).toBe(1); // the documented exit code of a denied confirm
    expect(failed).toBe(true);
    expect(existsSync(files.deployed)).toBe(false);
    expect(read(files.summary)).toContain(`Not deployed: the deploy of \`${sha}\` was not approved`);
    const notifyId = step("Report the deploy that did not happen")?.stdout?.trim() ?? "";
    expect(notifyId).toMatch(/^msg_/u);
    const note = await hub.agent(A, "acme").get(`/v1/messages/${notifyId}`);
    expect(note.body).toMatchObject({ type: "notify", title: "Deploy of 9f1c2e7 did not happen", tags: ["deploy"] });
  }, 180_000);
});

// ---------------------------------------------------------------------------------------------------

describe("examples/resume-agent", () => {
  const dataDir = join(dir, "resume-data");
  const resumed = join(dataDir, "resumed.jsonl");
  const lines = () =>
    existsSync(resumed)
      ? readFileSync(resumed, "utf8")
          .split("\n")
          .filter((l) => l !== "")
          .map((l) => JSON.parse(l))
      : [];
  const callbackUrl = () => `${proxyOrigin}/ma2h/resume`;
  const startReceiver = async () => {
    const receiver = tsx(example("resume-agent", "receiver.ts"), [], {
      RESUME_CALLBACK_URL: callbackUrl(),
      MA2H_CALLBACK_SECRET: SECRET,
      MA2H_STATE_KEY: STATE_KEY,
      PORT: String(receiverPort),
      RESUME_DATA_DIR: dataDir,
    });
    await receiver.until((out) => (out.includes("listening on") ? true : undefined), "listening");
    return receiver;
  };
  const post = async (body: Buffer, signature: string) => {
    const res = await fetch(`http://127.0.0.1:${receiverPort}/ma2h/resume`, {
      method: "POST",
      headers: { "content-type": "application/json", "ma2h-signature": signature },
      body: new Uint8Array(body),
    });
    return { status: res.status, body: await res.json() };
  };

  it("ask.ts exits with the id; the person answers; receiver.ts resumes exactly once; replays never resume twice", async () => {
    const ask = tsx(example("resume-agent", "ask.ts"), ["42", "9f1c2e7d3b5a"], {
      ...agentEnv(),
      MA2H_STATE_KEY: STATE_KEY,
      RESUME_CALLBACK_URL: callbackUrl(),
      RESUME_SECRET_REF: SECRET_REF,
    });
    const run1 = await ask.done;
    expect(run1.code, run1.stderr).toBe(0);
    const id = run1.stdout.trim();
    expect(id).toMatch(/^msg_[0-9a-z]+$/u);
    const held = await hub.agent(A, "acme").get(`/v1/messages/${id}`);
    expect(held.body.request.callback).toEqual({
      mode: "push",
      url: callbackUrl(),
      auth: { scheme: "hmac", secret_ref: SECRET_REF },
    });
    expect(JSON.stringify(held.body.state)).not.toContain("9f1c2e7d3b5a"); // sealed (§9.3)

    let receiver = await startReceiver();
    try {
      await resolveAs(id, { resolution: "answered", value: "approve" });
      const push = await eventually(() => captured.find((c) => c.status === 200), "the push", 30_000);
      await receiver.until((out) => (out.includes("resumed PR #42") ? true : undefined), "the resume");
      expect(lines()).toEqual([
        {
          message: id,
          pr: 42,
          sha: "9f1c2e7d3b5a",
          decision: "deploy",
          resolution: "answered",
          value: "approve",
          by: "human:alice",
          resumedAt: expect.any(String),
        },
      ]);

      // The captured push again, byte for byte: its jti was seen — refused (401), not resumed.
      const signature = String(push.headers["ma2h-signature"]);
      expect((await post(push.body, signature)).status).toBe(401);
      // The same answer re-signed with a fresh jti (a Hub retry): acknowledged as a duplicate, not resumed.
      const resign = () =>
        signResponsePush({
          response: JSON.parse(push.body.toString("utf8")),
          callbackUrl: callbackUrl(),
          key: { alg: "hmac-sha256", secret: SECRET },
          now: new Date(),
        }).header;
      expect(await post(push.body, resign())).toEqual({ status: 200, body: { ok: true, duplicate: true } });
      expect(lines()).toHaveLength(1);

      // After a restart of the receiver (its stores are files): still a duplicate.
      receiver.child.kill("SIGTERM");
      expect((await receiver.done).code).toBe(0);
      receiver = await startReceiver();
      expect(await post(push.body, resign())).toEqual({ status: 200, body: { ok: true, duplicate: true } });
      expect((await post(push.body, signature)).status).toBe(401);
      expect(lines()).toHaveLength(1);
    } finally {
      receiver.child.kill("SIGTERM");
      await receiver.done;
    }
  }, 90_000);
});

// ---------------------------------------------------------------------------------------------------

describe("examples/directive-listener.ts", () => {
  it("acks a person's directive with its note; the person sees it acknowledged; SIGTERM stops it (exit 0)", async () => {
    const listener = tsx(example("directive-listener.ts"), [], {
      ...agentEnv(),
      MA2H_STORE_DIR: join(dir, "listener-store"),
    });
    try {
      await listener.until((_, err) => (err.includes("listening as") ? true : undefined), "listening");
      const authored = await person().post("/v1/directives", {
        to: `agent:${A}`,
        title: "Pause deploys",
        body: "Incident on prod.",
        priority: "urgent",
      });
      expect(authored.status, JSON.stringify(authored.body)).toBe(201);
      const line = await listener.until((out) => out.split("\n").find((l) => l !== ""), "the directive");
      const note = "Paused: no deploys until you send “resume”.";
      expect(JSON.parse(line)).toEqual({ id: authored.body.id, from: "human:alice", title: "Pause deploys", note });
      const delivery = await eventually(async () => {
        const d = (await person().get(`/v1/directives/${authored.body.id}`)).body.delivery;
        return d.state === "acknowledged" ? d : undefined;
      }, "the acknowledgement");
      expect(delivery).toMatchObject({ state: "acknowledged", note });
    } finally {
      listener.child.kill("SIGTERM");
    }
    const end = await listener.done;
    expect(end.code, end.stderr).toBe(0);
    expect(end.stderr).toContain("directive-listener: stopped");
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------------

interface McpServerEntry {
  type?: string;
  command: string;
  args: string[];
  env: Record<string, string>;
}
const MCP_CONFIGS: Array<{ file: string; servers: "mcpServers" | "servers"; env: Record<string, RegExp> }> = [
  // Claude Desktop: literal values to paste.
  {
    file: "claude_desktop_config.json",
    servers: "mcpServers",
    env: { MA2H_URL: /^https:\/\//u, MA2H_API_KEY: /./u, MA2H_AGENT_ID: /^[^/\s]+\/[^/\s]+$/u },
  },
  // VS Code: the key from a password prompt, never in the file.
  {
    file: ".vscode/mcp.json",
    servers: "servers",
    env: { MA2H_URL: /^https:\/\//u, MA2H_API_KEY: /^\$\{input:ma2h-api-key\}$/u, MA2H_AGENT_ID: /./u },
  },
  // Claude Code: each value from the user's environment (with a default where one makes sense).
  {
    file: ".mcp.json",
    servers: "mcpServers",
    env: {
      MA2H_URL: /^\$\{MA2H_URL(:-[^}]+)?\}$/u,
      MA2H_API_KEY: /^\$\{MA2H_API_KEY\}$/u,
      MA2H_AGENT_ID: /^\$\{MA2H_AGENT_ID(:-[^}]+)?\}$/u,
    },
  },
];
describe("examples/mcp", () => {
  for (const config of MCP_CONFIGS) {
    const load = () => {
      const parsed = JSON.parse(readFileSync(example("mcp", config.file), "utf8"));
      return parsed[config.servers]?.ma2h as McpServerEntry;
    };

    it(`${config.file} parses and runs \`ma2h mcp\` with MA2H_URL, MA2H_API_KEY and MA2H_AGENT_ID`, () => {
      const entry = load();
      expect(entry).toMatchObject({ command: "ma2h", args: ["mcp"] });
      if (entry.type !== undefined) expect(entry.type).toBe("stdio");
      expect(Object.keys(entry.env).sort()).toEqual(Object.keys(config.env).sort());
      for (const [k, re] of Object.entries(config.env)) expect(entry.env[k], k).toMatch(re);
    });

    it(`${config.file}: the server it names answers tools/list against the Hub`, async () => {
      const entry = load();
      // `ma2h` → the built command; the env values → the test Hub and agent.
      const args = [CLI, ...entry.args];
      const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: dir };
      for (const k of Object.keys(entry.env)) env[k] = agentEnv()[k] as string;
      env.MA2H_STORE_DIR = join(dir, `mcp-store-${config.servers}-${config.file.length}`);
      const transport = new StdioClientTransport({ command: process.execPath, args, env, stderr: "pipe" });
      const client = new Client({ name: "ma2h-examples-test", version: "1.0.0" });
      await client.connect(transport);
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual(
          expect.arrayContaining(["ask_human", "check_answer", "notify_human", "cancel_ask", "read_directives"]),
        );
      } finally {
        await client.close();
      }
    }, 30_000);
  }
});
