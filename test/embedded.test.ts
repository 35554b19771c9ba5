/**
 * The zero-setup smoke test: a fresh clone, `npm run hub` with no
 * environment at all (PATH and HOME only: no DATABASE_URL, no AUTH_SECRET, no PORT, no dev flag),
 * then the CLI, a submit, a resolve with an operator token and a pull — all against the embedded
 * PostgreSQL under the clone's ./.data/. Then SIGTERM stops everything (database included) within
 * 10 s, a restart finds the data, and a restart after SIGKILL recovers from the stale
 * postmaster.pid (and from a leftover postgres whose supervisor died).
 *
 * What is not fresh: `git clone` copies only committed files, so the clone gets the repo's
 * `node_modules` as a symlink, and copies of the `.next` build and the generated Prisma client
 * (`lib/generated`, written by `prisma generate` in postinstall and build) and the `dist/` bundles. A truly fresh
 * `npm ci` (~60 s) and `npm run build` (~40 s) are what `.ci/run` itself does on every run;
 * repeating them here would only make this test slower.
 */
// covers: server/embedded-db.ts, server/embedded-env.ts, server/embedded-init.ts, server/hub.ts
import { execFile, spawn, type ChildProcess } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { repoRoot, waitForDiscovery } from "./support/hub";
import { waitFor } from "./support/wait";

const HUB = "http://127.0.0.1:3000"; // the default PORT: the hub is given no environment
const BARE_ENV = { PATH: process.env.PATH, HOME: process.env.HOME } as unknown as NodeJS.ProcessEnv; // env -i, but for PATH and HOME

let base: string;
let clone: string;
let current: RunningHub | null = null;

interface RunningHub {
  child: ChildProcess;
  pgid: number;
  output(): string;
  exited: Promise<number | null>;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((ok) => {
    const srv = createServer();
    srv.once("error", () => ok(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => ok(true)));
  });
}

/** Every process that belongs to the clone: by command line, or by working directory. */
function cloneProcesses(): { pid: number; cmd: string }[] {
  const found: { pid: number; cmd: string }[] = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
      let cwd = "";
      try {
        cwd = readlinkSync(`/proc/${pid}/cwd`);
      } catch {
        /* kernel thread or gone */
      }
      if (cmd.includes(clone) || cwd === clone || cwd.startsWith(`${clone}/`))
        found.push({ pid, cmd: cmd || "(zombie)" });
    } catch {
      /* exited while we looked */
    }
  }
  return found;
}

/** Processes in a process group (what a signal to the group reaches). */
function groupMembers(pgid: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid pgrp …"; comm may hold spaces, so split after ')'.
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid && fields[0] !== "Z") pids.push(pid);
    } catch {
      /* gone */
    }
  }
  return pids;
}

function startHub(): RunningHub {
  let out = "";
  const child = spawn("npm", ["run", "hub"], {
    cwd: clone,
    env: BARE_ENV,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((ok) => child.on("exit", (code) => ok(code)));
  current = { child, pgid: child.pid as number, output: () => out, exited };
  return current;
}

async function waitReady(hub: RunningHub, timeoutMs = 180_000): Promise<void> {
  await waitForDiscovery(hub, HUB, timeoutMs, 300);
}

/** Signals the whole group; resolves with the ms until nothing of the clone is left running. */
async function stopGroup(hub: RunningHub, signal: NodeJS.Signals, budgetMs = 10_000): Promise<number> {
  const t0 = Date.now();
  let exited = hub.child.exitCode !== null || hub.child.signalCode !== null;
  void hub.exited.then(() => (exited = true));
  process.kill(-hub.pgid, signal);
  // Its exit event, and then every process of the group and of the clone gone (or the budget spent:
  // the caller's assertions say what is left).
  await waitFor(() => exited && groupMembers(hub.pgid).length === 0 && cloneProcesses().length === 0, {
    timeout: budgetMs,
  }).catch(() => {});
  return Date.now() - t0;
}

/**
 * Requests parked in the clone's hub: its held-request counts in the embedded database (live
 * leases only), read with the credentials the hub keeps under .data/ — as its CLI finds them.
 */
async function parkedInClone(): Promise<number> {
  const data = join(clone, ".data");
  const port = readFileSync(join(data, "pg-port"), "utf8").trim();
  const password = readFileSync(join(data, "pg-password"), "utf8").trim();
  const db = new pg.Client({
    connectionString: `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/ma2h`,
  });
  await db.connect();
  try {
    const res = await db.query<{ n: number }>(
      `SELECT COALESCE(SUM(c.count), 0)::int AS n FROM parked_counts c
         JOIN process_leases l ON l.process_id = c.process_id AND l.alive_until > now()`,
    );
    return res.rows[0]?.n ?? 0;
  } finally {
    await db.end();
  }
}

/** The CLI in the clone, with no environment either: it finds the embedded database under .data/. */
function cli(...args: string[]): Promise<Record<string, any>> {
  return new Promise((ok, fail) => {
    execFile(
      process.execPath,
      ["bin/ma2h-hub.js", ...args, "--json"],
      { cwd: clone, env: BARE_ENV, timeout: 60_000 },
      (err, stdout, stderr) => {
        if (err) return fail(new Error(`ma2h-hub ${args.join(" ")} failed: ${stdout}\n${stderr}`));
        ok(JSON.parse(stdout) as Record<string, any>);
      },
    );
  });
}

async function api(method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(HUB + path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

beforeAll(async () => {
  if (!(await portFree(3000))) {
    throw new Error(
      "port 3000 on 127.0.0.1 is taken: this test runs `npm run hub` with no environment, so on the default port; free it",
    );
  }
  if (!existsSync(join(repoRoot, ".next/BUILD_ID"))) throw new Error("no build: run `npm run build` first");
  base = mkdtempSync(join(tmpdir(), "ma2h-clone-"));
  // Run as root, PostgreSQL runs as the `postgres` user, which must be able to reach the clone.
  chmodSync(base, 0o755);
  clone = join(base, "hub");
  await new Promise<void>((ok, fail) =>
    execFile("git", ["clone", "--quiet", repoRoot, clone], { env: BARE_ENV }, (err, _o, stderr) =>
      err ? fail(new Error(stderr)) : ok(),
    ),
  );
  symlinkSync(join(repoRoot, "node_modules"), join(clone, "node_modules"), "dir");
  cpSync(join(repoRoot, ".next"), join(clone, ".next"), { recursive: true });
  cpSync(join(repoRoot, "lib/generated"), join(clone, "lib/generated"), { recursive: true });
  // The ahead-of-time bundles last, so they are newer than every source: the launchers run them.
  cpSync(join(repoRoot, "dist"), join(clone, "dist"), { recursive: true });
}, 180_000);

afterAll(async () => {
  if (current && current.child.exitCode === null) await stopGroup(current, "SIGTERM").catch(() => 0);
  // Anything of the clone still running (a failed test) is ours to end, by pid.
  for (const p of clone ? cloneProcesses() : []) {
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {
      /* gone */
    }
  }
  if (base) rmSync(base, { recursive: true, force: true });
}, 60_000);

describe("a fresh clone, `npm run hub` with no environment at all", { timeout: 300_000 }, () => {
  let key: string;
  let pat: string;
  let messageId: string;
  let resolutionId: string;

  it("starts the embedded PostgreSQL under ./.data/ and answers on 127.0.0.1:3000 in dev mode", async () => {
    const hub = startHub();
    await waitReady(hub);
    const data = join(clone, ".data");
    const port = Number(readFileSync(join(data, "pg-port"), "utf8").trim());
    expect(port).not.toBe(5432);
    expect(existsSync(join(data, "pg", "PG_VERSION"))).toBe(true);
    // A generated AUTH_SECRET (and the database password), kept once, owner-only.
    for (const f of ["auth-secret", "pg-password"]) {
      expect(readFileSync(join(data, f), "utf8").trim().length).toBeGreaterThanOrEqual(24);
      expect(statSync(join(data, f)).mode & 0o077).toBe(0);
    }
    // The web now answers before the worker has started: wait for the worker's line.
    await waitFor(() => hub.output().includes('"msg":"worker running"'), {
      timeout: 60_000,
      what: 'the worker\'s "worker running" line',
    });
    const out = hub.output();
    expect(out).toContain('"msg":"embedded database running"');
    expect(out).toContain('"mode":"dev"');
    expect(out).toContain('"url":"http://127.0.0.1:3000"');
    expect(out).toContain('"queue_backend":"postgres"');
    // The embedded database listens on loopback only.
    const pgCmd = cloneProcesses().find((p) => p.cmd.includes("postgres -D"));
    expect(pgCmd?.cmd).toContain("listen_addresses=127.0.0.1");
    expect(pgCmd?.cmd).toContain(`-p ${port}`);
  });

  it("the CLI (no environment either) provisions an account, a human with a token and an agent", async () => {
    expect((await cli("account", "create", "acme")).account.slug).toBe("acme");
    expect(
      (await cli("user", "add", "alice@acme.test", "--account", "acme", "--handle", "alice", "--role", "owner")).user
        .handle,
    ).toBe("alice");
    const token = await cli("token", "create", "--user", "alice@acme.test");
    expect(token.token).toMatch(/^ma2h_pat_/);
    pat = token.token;
    const agent = await cli("agent", "create", "deploybot/dev-team", "--account", "acme");
    expect(agent.api_key).toMatch(/^ma2h_key_/);
    key = agent.api_key;
  });

  it("a submit, a long-poll pull, a resolve with the operator token, and the answer pulled", async () => {
    const submitted = await api("POST", "/v1/messages", key, {
      ma2h_version: "0.5",
      type: "ask",
      created_at: new Date().toISOString(),
      agent: { id: "deploybot/dev-team", run_id: "run_smoke", runtime: "cli" },
      title: "Ship to prod?",
      idempotency_key: "smoke-1",
      request: { mode: "confirm" },
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(202);
    messageId = submitted.body.id;
    expect(submitted.body.poll_url).toBe(`${HUB}/v1/messages/${messageId}`);

    const waiting = api("GET", `/v1/messages/${messageId}?wait=30`, key);
    // Parked: the long-poll holds its slot in the hub's held-request store (after its first read).
    await waitFor(async () => (await parkedInClone()) >= 1, { what: "the long-poll parked" });
    const resolved = await api("POST", `/v1/messages/${messageId}/resolve`, pat, {
      resolution: "answered",
      value: "approve",
    });
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
    const woke = await waiting;
    expect([woke.status, woke.body.status]).toEqual([200, "answered"]);

    const pulled = await api("GET", `/v1/messages/${messageId}`, key);
    expect(pulled.status).toBe(200);
    expect(pulled.body.status).toBe("answered");
    expect(pulled.body.response.response).toMatchObject({ value: "approve", actor: "human:alice" });
    resolutionId = pulled.body.response.resolution_id;
    expect(resolutionId).toMatch(/^res_/);
  });

  it("SIGTERM to the process group: everything (database included) gone within 10 s", async () => {
    const hub = current!;
    const before = cloneProcesses();
    expect(before.some((p) => p.cmd.includes("postgres -D"))).toBe(true);
    // The hub's children run the build's bundles (bin/launcher.mjs), not the sources through tsx.
    expect(before.some((p) => p.cmd.includes("dist/web.mjs"))).toBe(true);
    expect(before.some((p) => p.cmd.includes("dist/worker.mjs"))).toBe(true);
    const ms = await stopGroup(hub, "SIGTERM");
    expect(cloneProcesses(), hub.output().slice(-2000)).toEqual([]);
    expect(groupMembers(hub.pgid)).toEqual([]);
    expect(ms).toBeLessThan(10_000);
    expect(hub.output()).toContain('"msg":"hub stopping"');
    // A clean stop leaves no pid file behind.
    expect(existsSync(join(clone, ".data/pg/postmaster.pid"))).toBe(false);
    expect(await portFree(3000)).toBe(true);
  });

  it("a restart finds the data: the same message, answer and credentials", async () => {
    const hub = startHub();
    await waitReady(hub);
    expect(hub.output()).not.toContain("initialising the embedded database");
    const pulled = await api("GET", `/v1/messages/${messageId}`, key);
    expect([pulled.status, pulled.body.status, pulled.body.response.resolution_id]).toEqual([
      200,
      "answered",
      resolutionId,
    ]);
  });

  it("after SIGKILL of the whole group, a start recovers from the stale postmaster.pid", async () => {
    const hub = current!;
    await stopGroup(hub, "SIGKILL");
    expect(groupMembers(hub.pgid)).toEqual([]);
    // No clean shutdown: PostgreSQL's pid file is left behind, naming a dead postmaster.
    expect(existsSync(join(clone, ".data/pg/postmaster.pid"))).toBe(true);
    // Backends outlive a killed postmaster for a moment; they notice and exit on their own.
    await waitFor(() => cloneProcesses().length === 0, { timeout: 10_000 }).catch(() => {});
    expect(cloneProcesses()).toEqual([]);
    // The dead postmaster's pid may already belong to another process (pids are recycled; PostgreSQL
    // then refuses to start, "another postmaster … running"). Make it so: point it at this process.
    const pidFile = join(clone, ".data/pg/postmaster.pid");
    const lines = readFileSync(pidFile, "utf8").split("\n");
    lines[0] = String(process.pid);
    writeFileSync(pidFile, lines.join("\n"));

    const again = startHub();
    await waitReady(again);
    const pulled = await api("GET", `/v1/messages/${messageId}`, key);
    expect([pulled.status, pulled.body.status, pulled.body.response.resolution_id]).toEqual([
      200,
      "answered",
      resolutionId,
    ]);
    // And it still takes work.
    const more = await api("POST", "/v1/messages", key, {
      ma2h_version: "0.5",
      type: "notify",
      created_at: new Date().toISOString(),
      agent: { id: "deploybot/dev-team", run_id: "run_smoke_2", runtime: "cli" },
      title: "back after a crash",
    });
    expect(more.status).toBe(202);
  });

  it("after the supervisor dies leaving postgres running, a start stops the leftover postgres and carries on", async () => {
    const hub = current!;
    // Kill every process of the clone but the postmaster and its backends, as a crash might.
    const postmaster = cloneProcesses().find((p) => p.cmd.includes("postgres -D"));
    expect(postmaster).toBeDefined();
    for (const pid of groupMembers(hub.pgid)) if (pid !== postmaster!.pid) process.kill(pid, "SIGKILL");
    await hub.exited;
    // Its node processes gone (as far as /proc shows), the postmaster left running.
    await waitFor(() => !cloneProcesses().some((p) => p.cmd.includes("node")), { timeout: 5000 }).catch(() => {});
    expect(cloneProcesses().some((p) => p.pid === postmaster!.pid)).toBe(true);

    const again = startHub();
    await waitReady(again);
    expect(again.output()).toContain("stopping a leftover embedded postgres");
    const pulled = await api("GET", `/v1/messages/${messageId}`, key);
    expect([pulled.status, pulled.body.status]).toEqual([200, "answered"]);
    expect(cloneProcesses().some((p) => p.pid === postmaster!.pid)).toBe(false);

    const ms = await stopGroup(again, "SIGTERM");
    expect(cloneProcesses()).toEqual([]);
    expect(ms).toBeLessThan(10_000);
  });
});
