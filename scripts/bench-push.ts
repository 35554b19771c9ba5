/**
 * `npm run bench:push`: resolve → signed push received, for the built Hub against a bare floor; a
 * policy-routed 2-of-3 quorum ask against a plain one; and the notification fan-out of asks mailed
 * to five people and posted to Slack. On a fresh PostgreSQL database, with the web and worker
 * processes (submit limits raised, logs at warn) and loopback receivers in this process. Phases
 * (BENCH_PHASES=postgres,redis,quorum,fanout picks some; all by default):
 *
 * - **postgres**, **redis** — asks with hmac push callbacks, with BullMQ on PostgreSQL, then on
 *   Redis db 11: latency, resolves one at a time, from sending the resolve to the signed push
 *   landing on the receiver (p50, p99); throughput, resolves from CONCURRENCY connections at once,
 *   pushes received per second from the first resolve sent to the last push landed, and the latency
 *   under that load. The baseline signs the same Response bodies (@ma2h/protocol/signing,
 *   hmac-sha256, fresh t and jti) and POSTs them from this bare Node process to the same receiver
 *   with node:http and a fresh connection each (as the Hub's egress does), in the same two shapes.
 * - **quorum** — account `quorum`, whose approval policy (applied with `ma2h-hub policy apply`, as
 *   an operator does) routes its agents' confirm asks to ap1, ap2 and ap3 with `approvals: 2`,
 *   beside the plain account `bench` (no policy, its owner resolves), in the same web and worker
 *   (BENCH_PUSH_QUEUE, Redis by default), after BENCH_QUORUM_WARMUP (100) uncounted asks of each
 *   kind taken from submit to push: each ask's submit to its 202, one at a time (plain and quorum
 *   interleaved) and from CONCURRENCY connections (blocks plain, quorum, quorum, plain) with
 *   web and PostgreSQL CPU per submit; then one at a time, a plain resolve to its 200 and its push,
 *   a quorum ask's first approval to its 202 and its second — the one that completes the quorum and
 *   makes the signed Response — to its 200 and its push; then the CONCURRENCY-connection rows:
 *   plain resolves as above, the quorum asks' first approvals, then their completing approvals with
 *   pushes/s.
 * - **fanout** — account `fan` with five people (each mailed every ask by default) and its Slack app
 *   connected to one channel: the local SMTP sink (test/support/mail-capture.ts) and Slack Web API
 *   stand-in (test/support/slack-fake.ts) run in this process on loopback. BENCH_FANOUT_ASKS
 *   (default 1000) asks are submitted at an even pace over BENCH_FANOUT_SECONDS (default 60) — after
 *   BENCH_FANOUT_WARMUP (20) uncounted ones, notified before the count starts — each timed from its
 *   202 to the last of its six notifications (five mails, one channel post) arriving at the sinks;
 *   with the web's CPU per ask. The plain submit, same web, same run: asks of an
 *   account with nobody to notify, first closed-loop from 16 connections for 5 s, then paced at the
 *   same rate for BENCH_FANOUT_PLAIN_SECONDS (default 15).
 *
 * The web and the worker run with V8's default tiers, as in production (BENCH_NODE_ARGS adds flags,
 * e.g. `--liftoff-only` as the tests' Hubs run). Loopback only; a watchdog bounds the run (about 2
 * minutes for the first two phases, 2 more for quorum, and the fan-out's duration plus 2.5;
 * BENCH_PUSH_DEADLINE_S sets it). Needs `npm run build` first.
 */
import { spawn } from "node:child_process";
import http from "node:http";
import os from "node:os";
import { mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Redis } from "ioredis";
import { db } from "../lib/db";
import { resetEnvCache } from "../lib/env";
import { connectSlack } from "../lib/notifications/slack/connection";
import { addBinding } from "../lib/principals/bindings";
import { seatFor } from "../lib/principals/seats";
import { signResponsePush, type ResponseSigningBody } from "@ma2h/protocol/signing";
import { runCli } from "../test/support/cli-run";
import { createTestDatabase } from "../test/support/database";
import { nodeArgs } from "../bin/launcher.mjs";
import { freePort, type HubMode, type HubProcess, hubEnv, repoRoot, waitForReady, watchHub } from "../test/support/hub";
import { startMailCapture } from "../test/support/mail-capture";
import { envelope, provisionAccount, releaseDatabase, useDatabase } from "../test/support/provision";
import { startReceiver } from "../test/support/receiver";
import { type SlackCall, startSlackFake } from "../test/support/slack-fake";
import { benchEnvelope, cpuMeter, drive, summarize } from "./bench/lib";

/**
 * Waits until the worker has fanned out every submitted message's notifications (the outbox is
 * drained): the way back is measured alone, not beside the fan-out of the asks just submitted for it.
 */
async function outboxDrained(timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await db().notificationOutbox.count({ where: { processedAt: null } })) > 0) {
    if (Date.now() > deadline) throw new Error("the notification outbox did not drain within a minute");
    await new Promise((ok) => setTimeout(ok, 100));
  }
}

const N_LATENCY = Number(process.env.BENCH_PUSH_LATENCY_N ?? 60);
const N_THROUGHPUT = Number(process.env.BENCH_PUSH_THROUGHPUT_N ?? 200);
const CONCURRENCY = Number(process.env.BENCH_PUSH_CONCURRENCY ?? 16);
const REDIS_URL = process.env.BENCH_PUSH_REDIS_URL ?? "redis://127.0.0.1:6379/11";
/** BENCH_PHASES=quorum,fanout runs only those phases; all by default. */
const PHASES = process.env.BENCH_PHASES?.split(",").filter(Boolean);
const want = (k: string) => !PHASES || PHASES.includes(k);
/** The queue backend of the quorum and fan-out phases. */
const QUEUE = process.env.BENCH_PUSH_QUEUE === "postgres" ? "postgres" : "redis";
const FANOUT_ASKS = Number(process.env.BENCH_FANOUT_ASKS ?? 1000);
const FANOUT_SECONDS = Number(process.env.BENCH_FANOUT_SECONDS ?? 60);
const FANOUT_PLAIN_SECONDS = Number(process.env.BENCH_FANOUT_PLAIN_SECONDS ?? 15);
const FANOUT_WITHIN_MS = 10_000;
/** Asks of each kind the quorum phase takes through submit and approvals first, uncounted (JIT, pools). */
const QUORUM_WARMUP = Number(process.env.BENCH_QUORUM_WARMUP ?? 100);
/** Asks the fan-out phase notifies first, uncounted, so the worker is warm too. */
const FANOUT_WARMUP = Number(process.env.BENCH_FANOUT_WARMUP ?? 20);
// Several agents: submits of one agent serialise on its inbox-depth lock, which is not what this measures.
const AGENTS = Array.from({ length: 16 }, (_, i) => `bench/pusher-${i}`);
const QUORUM_AGENTS = Array.from({ length: 16 }, (_, i) => `quorum/agent-${i}`);
const APPROVERS = ["ap1", "ap2", "ap3"] as const;
const FAN_AGENTS = Array.from({ length: 16 }, (_, i) => `fan/agent-${i}`);
const FAN_PEOPLE = ["fo", "f1", "f2", "f3", "f4"];
const SOLO_AGENTS = Array.from({ length: 16 }, (_, i) => `solo/agent-${i}`);
const SECRET = "bench-push-secret";
const QUORUM_POLICY = `version: 1
rules:
  - name: two-of-three
    description: bench:push — the quorum agents' confirm asks need two of ap1, ap2 and ap3
    match: { agent: "quorum/*", mode: confirm }
    assign: [human:ap1, human:ap2, human:ap3]
    approvals: 2
`;
const SLACK_WORKSPACE = { token: "xoxb-bench-1", teamId: "TBENCH", teamName: "Bench", botUserId: "UBENCHBOT" };
const DEADLINE_MS =
  Number(process.env.BENCH_PUSH_DEADLINE_S ?? 0) * 1000 ||
  (want("postgres") || want("redis") ? 110_000 : 20_000) +
    (want("quorum") ? 120_000 : 0) +
    (want("fanout") ? (FANOUT_SECONDS + FANOUT_PLAIN_SECONDS + 150) * 1000 : 0);

interface Phase {
  latencies: number[];
  elapsedMs: number;
  count: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const t00 = Date.now();
/** Progress on stderr, so stdout carries only the results. */
const progress = (what: string) => process.stderr.write(`[${((Date.now() - t00) / 1000).toFixed(1)} s] ${what}\n`);

function pct(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function summary(phase: Phase) {
  const s = [...phase.latencies].sort((a, b) => a - b);
  return { p50: pct(s, 50), p99: pct(s, 99), perSecond: (phase.count / phase.elapsedMs) * 1000 };
}
type Figures = ReturnType<typeof summary>;
/** p50/p99 of latencies alone. */
const lat = (latencies: number[]) => summary({ latencies, elapsedMs: 1, count: 0 });

const ms = (n: number) => `${n.toFixed(1)} ms`;
const pm = (a: number, b: number) => `${a >= b ? "+" : "−"}${Math.abs((a / b - 1) * 100).toFixed(1)} %`;
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join("/");

/** Runs `task(i)` for i < n from `concurrency` loops; returns the wall time. */
async function pool(n: number, concurrency: number, task: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(n, concurrency) }, async () => {
      while (next < n) await task(next++);
    }),
  );
  return performance.now() - t0;
}

/** Starts `task(i)` for i < n at an even pace over `seconds` (open loop), and waits for them all. */
async function paced(n: number, seconds: number, task: (i: number) => Promise<void>): Promise<void> {
  const gap = (seconds * 1000) / n;
  const t0 = performance.now();
  const running: Promise<void>[] = [];
  for (let i = 0; i < n; i++) {
    const wait = t0 + i * gap - performance.now();
    if (wait > 0) await sleep(wait);
    running.push(task(i));
  }
  await Promise.all(running);
}

/** Arrival instants (performance.now()) of the first request to each path, and waits for them. */
function arrivals() {
  const seen = new Map<string, number>();
  const waiting = new Map<string, (at: number) => void>();
  return {
    record(path: string) {
      if (seen.has(path)) return;
      const at = performance.now();
      seen.set(path, at);
      waiting.get(path)?.(at);
    },
    wait(path: string, timeoutMs = 30_000): Promise<number> {
      const at = seen.get(path);
      if (at !== undefined) return Promise.resolve(at);
      return new Promise((ok, fail) => {
        const timer = setTimeout(() => fail(new Error(`no push to ${path} within ${timeoutMs} ms`)), timeoutMs);
        waiting.set(path, (t) => {
          clearTimeout(timer);
          waiting.delete(path);
          ok(t);
        });
      });
    },
  };
}

async function json(url: string, init: RequestInit): Promise<{ status: number; body: any }> {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function waitWorker(worker: HubProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!worker.output().includes("worker running")) {
    if (worker.child.exitCode !== null || Date.now() > deadline)
      throw new Error(`worker did not start:\n${worker.output()}`);
    await sleep(50);
  }
}

const processes: HubProcess[] = [];

/**
 * A Hub process as `npm run <mode>` starts it (its bundle while fresh), with V8's default tiers as in
 * production — test/support/hub.ts's startHub keeps the tests' Hubs on the baseline tier
 * (--liftoff-only), which makes Prisma's WebAssembly slower; BENCH_NODE_ARGS adds flags.
 */
async function startProcess(mode: HubMode, databaseUrl: string, env: Record<string, string>): Promise<HubProcess> {
  const port = await freePort();
  const flags = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const child = spawn(process.execPath, [...flags, ...nodeArgs(mode)], {
    cwd: repoRoot,
    env: hubEnv(databaseUrl, port, env),
    detached: true, // its own process group, so stop() signals all of it
    stdio: ["ignore", "pipe", "pipe"],
  });
  return watchHub(child, mode, port);
}

/** The web and the worker on `databaseUrl`, both ready; tracked for the watchdog before they are. */
async function startPair(databaseUrl: string, env: Record<string, string>) {
  const web = await startProcess("web", databaseUrl, env);
  const worker = await startProcess("worker", databaseUrl, { ...env, LOG_LEVEL: "info" });
  processes.push(web, worker);
  await Promise.all([waitForReady(web), waitWorker(worker)]);
  return { web, worker, webPid: web.child.pid as number, workerPid: worker.child.pid as number };
}

const queueLabel = (backend: "postgres" | "redis") =>
  backend === "redis" ? "BullMQ on Redis" : "BullMQ on PostgreSQL";

async function main(): Promise<void> {
  const started = Date.now();
  const watchdog = setTimeout(() => {
    console.error(`bench:push exceeded ${DEADLINE_MS / 1000} s; aborting`);
    void Promise.all(processes.map((p) => p.stop("SIGKILL"))).finally(() => process.exit(1));
  }, DEADLINE_MS);
  watchdog.unref();
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(
      signal,
      () => void Promise.all(processes.map((p) => p.stop("SIGKILL"))).finally(() => process.exit(130)),
    );
  }

  const cpus = os.cpus();
  console.log(
    `bench:push — ${new Date().toISOString()} — ${cpus.length} × ${cpus[0]?.model ?? "cpu"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, load ${load()}`,
  );
  console.log(
    `phases: ${["postgres", "redis", "quorum", "fanout"].filter(want).join(", ")}; latency: ${N_LATENCY} one at a time; throughput: ${N_THROUGHPUT} over ${CONCURRENCY} connections; hmac push to a loopback receiver`,
  );

  const database = await createTestDatabase();
  const pgDatabase = new URL(database.url).pathname.slice(1);
  await useDatabase(database.url);
  const landed = arrivals();
  const rx = await startReceiver("127.0.0.1", 0, { onRequest: (r) => landed.record(r.path) });
  // Another account's agents need their own callback origin (an origin is one account's unless proven).
  const rxQuorum = await startReceiver("127.0.0.1", 0, { onRequest: (r) => landed.record(r.path) });

  const { keys, tokens } = await provisionAccount("bench", AGENTS, [{ handle: "op", role: "owner" }]);
  for (const agentId of AGENTS)
    await addBinding({
      agentRef: { agentId, accountSlug: "bench" },
      origin: rx.origin,
      secretRef: "cb",
      secret: SECRET,
    });
  const redis = new Redis(REDIS_URL);
  await redis.flushdb();
  const baseEnv = {
    MA2H_DEV_CALLBACK_ALLOWLIST: `${rx.origin},${rxQuorum.origin}`,
    MA2H_RATE_LIMIT_PER_MINUTE: "1000000000",
    MA2H_INBOX_DEPTH: "1000000000",
    LOG_LEVEL: "warn",
  };
  const queueEnv = (backend: "postgres" | "redis"): Record<string, string> =>
    backend === "redis" ? { REDIS_URL } : {};

  /** Submits a confirm ask with an hmac push callback to `${origin}/${tag}/${i}`; its id and time to the 202. */
  const submitAsk = async (webUrl: string, key: string, agentId: string, origin: string, tag: string, i: number) => {
    const body = envelope("ask", agentId, {
      request: {
        mode: "confirm",
        callback: { mode: "push", url: `${origin}/${tag}/${i}`, auth: { scheme: "hmac", secret_ref: "cb" } },
      },
      state: { seq: i, tag },
    });
    const t0 = performance.now();
    const res = await json(`${webUrl}/v1/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (res.status !== 202) throw new Error(`submit ${res.status} ${JSON.stringify(res.body)}`);
    return { id: res.body.id as string, ms: performance.now() - t0 };
  };
  /** A person's resolve (an approval, under a quorum); its time to the `expected` status. */
  const vote = async (webUrl: string, token: string, id: string, expected: 200 | 202) => {
    const t0 = performance.now();
    const res = await json(`${webUrl}/v1/messages/${id}/resolve`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ resolution: "answered", value: "approve" }),
    });
    if (res.status !== expected)
      throw new Error(`resolve ${res.status} (expected ${expected}) ${JSON.stringify(res.body)}`);
    return performance.now() - t0;
  };

  const results: Record<string, { latency: Figures; load: Figures; resolveCall: { alone: Figures; loaded: Figures } }> =
    {};
  try {
    // --- baseline: sign the same body and POST it from this bare Node process -------------------
    const sampleBody = async (hubUrl: string, id: string, i: number) =>
      (
        await json(`${hubUrl}/v1/messages/${id}`, {
          headers: { authorization: `Bearer ${keys[AGENTS[i % AGENTS.length]!]}` },
        })
      ).body.response;
    let bodies: ResponseSigningBody[] = [];

    const postSigned = (path: string, body: ResponseSigningBody) =>
      new Promise<void>((ok, fail) => {
        const url = `${rx.origin}${path}`;
        const { header } = signResponsePush({
          response: body,
          callbackUrl: url,
          key: { alg: "hmac-sha256", secret: SECRET },
          now: new Date(),
        });
        const payload = JSON.stringify(body);
        const req = http.request(url, {
          method: "POST",
          agent: false,
          headers: {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(payload),
            "ma2h-signature": header,
            connection: "close",
          },
        });
        req.on("response", (res) => {
          res.resume();
          res.on("end", () => ok());
        });
        req.on("error", fail);
        req.end(payload);
      });

    for (const backend of (["postgres", "redis"] as const).filter(want)) {
      const { web, worker } = await startPair(database.url, { ...baseEnv, ...queueEnv(backend) });
      progress(`${backend}: web and worker up`);

      const submit = async (tag: string, i: number) => {
        const agentId = AGENTS[i % AGENTS.length]!;
        return (await submitAsk(web.url, keys[agentId]!, agentId, rx.origin, tag, i)).id;
      };
      /** Resolve → push landed into `latencies`; the resolve call's own 200 into `calls`. */
      const resolveAndWait = async (tag: string, id: string, i: number, latencies: number[], calls: number[] = []) => {
        const t0 = performance.now();
        calls.push(await vote(web.url, tokens.op!, id, 200));
        latencies.push((await landed.wait(`/${tag}/${i}`)) - t0);
      };

      // Warm-up: the first pushes pay for connection pools and JIT.
      const warm = await Promise.all(Array.from({ length: 5 }, (_, i) => submit(`${backend}-warm`, i)));
      for (const [i, id] of warm.entries()) await resolveAndWait(`${backend}-warm`, id, i, []);

      progress(`${backend}: warmed up`);
      const lat1: number[] = [];
      const latCalls: number[] = [];
      const ids1: string[] = [];
      for (let i = 0; i < N_LATENCY; i++) ids1.push(await submit(`${backend}-lat`, i));
      await outboxDrained();
      const latElapsed = await pool(N_LATENCY, 1, (i) => resolveAndWait(`${backend}-lat`, ids1[i]!, i, lat1, latCalls));

      progress(`${backend}: latency phase done`);
      const loaded: number[] = [];
      const loadCalls: number[] = [];
      const ids2: string[] = [];
      await pool(N_THROUGHPUT, CONCURRENCY, async (i) => {
        ids2[i] = await submit(`${backend}-load`, i);
      });
      progress(`${backend}: ${N_THROUGHPUT} submitted`);
      await outboxDrained();
      const loadElapsed = await pool(N_THROUGHPUT, CONCURRENCY, (i) =>
        resolveAndWait(`${backend}-load`, ids2[i]!, i, loaded, loadCalls),
      );
      progress(`${backend}: throughput phase done`);

      results[`Hub (${queueLabel(backend)})`] = {
        latency: summary({ latencies: lat1, elapsedMs: latElapsed, count: N_LATENCY }),
        load: summary({ latencies: loaded, elapsedMs: loadElapsed, count: N_THROUGHPUT }),
        resolveCall: { alone: lat(latCalls), loaded: lat(loadCalls) },
      };
      if (bodies.length === 0) bodies = await Promise.all(ids2.map((id, i) => sampleBody(web.url, id, i)));
      await Promise.all([web.stop(), worker.stop()]);
    }

    if (bodies.length > 0) {
      // The same bodies, signed and POSTed by a bare Node process, in the same two shapes.
      const baseLat: number[] = [];
      const baseLatElapsed = await pool(N_LATENCY, 1, async (i) => {
        const t0 = performance.now();
        await postSigned(`/base-lat/${i}`, bodies[i % bodies.length]!);
        baseLat.push((await landed.wait(`/base-lat/${i}`)) - t0);
      });
      const baseLoad: number[] = [];
      const baseLoadElapsed = await pool(N_THROUGHPUT, CONCURRENCY, async (i) => {
        const t0 = performance.now();
        await postSigned(`/base-load/${i}`, bodies[i % bodies.length]!);
        baseLoad.push((await landed.wait(`/base-load/${i}`)) - t0);
      });
      const baseline = {
        latency: summary({ latencies: baseLat, elapsedMs: baseLatElapsed, count: N_LATENCY }),
        load: summary({ latencies: baseLoad, elapsedMs: baseLoadElapsed, count: N_THROUGHPUT }),
      };

      console.log("");
      const row = (label: string, r: { latency: Figures; load: Figures }) =>
        console.log(
          `${label.padEnd(30)} one-at-a-time p50 ${ms(r.latency.p50).padStart(9)} p99 ${ms(r.latency.p99).padStart(9)} | ` +
            `${CONCURRENCY} concurrent ${r.load.perSecond.toFixed(0).padStart(5)} pushes/s p50 ${ms(r.load.p50).padStart(9)} p99 ${ms(r.load.p99).padStart(9)}`,
        );
      row("baseline (sign + POST)", baseline);
      for (const [label, r] of Object.entries(results)) row(label, r);
      console.log("");
      for (const [label, r] of Object.entries(results)) {
        console.log(
          `${label}: latency ×${(r.latency.p50 / baseline.latency.p50).toFixed(1)} (p50), ×${(r.latency.p99 / baseline.latency.p99).toFixed(1)} (p99); ` +
            `throughput ${((r.load.perSecond / baseline.load.perSecond) * 100).toFixed(1)} % of the baseline; ` +
            `the resolve call itself (to its 200): p50 ${ms(r.resolveCall.alone.p50)} alone, ${ms(r.resolveCall.loaded.p50)} under load`,
        );
      }
    }

    if (want("quorum")) await quorumPhase();
    if (want("fanout")) await fanoutPhase();
    console.log(`\ntotal ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await Promise.all(processes.map((p) => p.stop()));
    await rx.close();
    await rxQuorum.close();
    await redis.flushdb().catch(() => {});
    redis.disconnect();
    await releaseDatabase();
    await database.drop();
  }

  /** The quorum phase (see the header): a 2-of-3 policy-routed ask against a plain one, same processes. */
  async function quorumPhase(): Promise<void> {
    const q = await provisionAccount("quorum", QUORUM_AGENTS, [
      { handle: "qop", role: "owner" },
      ...APPROVERS.map((handle) => ({ handle, role: "member" as const })),
    ]);
    for (const agentId of QUORUM_AGENTS)
      await addBinding({
        agentRef: { agentId, accountSlug: "quorum" },
        origin: rxQuorum.origin,
        secretRef: "cb",
        secret: SECRET,
      });
    // As an operator applies it: the policy file through the admin CLI.
    const file = join(mkdtempSync(join(os.tmpdir(), "ma2h-bench-policy-")), "policy.yaml");
    writeFileSync(file, QUORUM_POLICY);
    const applied = await runCli(["policy", "apply", file, "--account", "quorum"], { databaseUrl: database.url });
    if (applied.code !== 0)
      throw new Error(`ma2h-hub policy apply: ${applied.code}\n${applied.stdout}${applied.stderr}`);

    const { web, worker, webPid, workerPid } = await startPair(database.url, { ...baseEnv, ...queueEnv(QUEUE) });
    progress(`quorum (${QUEUE}): web and worker up, policy applied`);
    type Kind = "plain" | "quorum";
    const submitOne = (kind: Kind, tag: string, i: number) => {
      const agentId = (kind === "plain" ? AGENTS : QUORUM_AGENTS)[i % 16]!;
      const key = (kind === "plain" ? keys : q.keys)[agentId]!;
      return submitAsk(web.url, key, agentId, kind === "plain" ? rx.origin : rxQuorum.origin, tag, i);
    };
    /** The two approvers of quorum ask i: (ap1, ap2), (ap2, ap3), (ap3, ap1), … */
    const approvers = (i: number) => [q.tokens[APPROVERS[i % 3]!]!, q.tokens[APPROVERS[(i + 1) % 3]!]!] as const;
    const resolvePlain = async (tag: string, id: string, i: number) => {
      const t0 = performance.now();
      const call = await vote(web.url, tokens.op!, id, 200);
      return { call, push: (await landed.wait(`/${tag}/${i}`)) - t0 };
    };
    const approveQuorum = async (tag: string, id: string, i: number) => {
      const [first, second] = approvers(i);
      const firstCall = await vote(web.url, first, id, 202);
      const t0 = performance.now();
      const secondCall = await vote(web.url, second, id, 200);
      return { firstCall, secondCall, push: (await landed.wait(`/${tag}/${i}`)) - t0 };
    };

    // Warm-up, uncounted: both kinds from submit to push, one at a time and then concurrently.
    for (let i = 0; i < 5; i++) {
      await resolvePlain("qw-plain", (await submitOne("plain", "qw-plain", i)).id, i);
      await approveQuorum("qw-quorum", (await submitOne("quorum", "qw-quorum", i)).id, i);
    }
    await pool(QUORUM_WARMUP, CONCURRENCY, async (i) => {
      await resolvePlain("qw2-plain", (await submitOne("plain", "qw2-plain", i)).id, i);
      await approveQuorum("qw2-quorum", (await submitOne("quorum", "qw2-quorum", i)).id, i);
    });
    progress("quorum: warmed up");

    // Submit, one at a time, interleaved.
    const subAlone: Record<Kind, number[]> = { plain: [], quorum: [] };
    const latIds: Record<Kind, string[]> = { plain: [], quorum: [] };
    for (let i = 0; i < N_LATENCY; i++)
      for (const kind of (i % 2 ? ["quorum", "plain"] : ["plain", "quorum"]) as Kind[]) {
        const r = await submitOne(kind, `q-lat-${kind}`, i);
        subAlone[kind].push(r.ms);
        latIds[kind].push(r.id);
      }
    // Submit from CONCURRENCY connections, in blocks plain, quorum, quorum, plain (the database grows meanwhile).
    const subLoad: Record<Kind, { lat: number[]; ms: number; web: number; pg: number }> = {
      plain: { lat: [], ms: 0, web: 0, pg: 0 },
      quorum: { lat: [], ms: 0, web: 0, pg: 0 },
    };
    const loadIds: Record<Kind, string[]> = { plain: [], quorum: [] };
    const half = Math.ceil(N_THROUGHPUT / 2);
    for (const [kind, from, to] of [
      ["plain", 0, half],
      ["quorum", 0, half],
      ["quorum", half, N_THROUGHPUT],
      ["plain", half, N_THROUGHPUT],
    ] as [Kind, number, number][]) {
      const meter = cpuMeter([webPid], pgDatabase);
      meter.start();
      const acc = subLoad[kind];
      acc.ms += await pool(to - from, CONCURRENCY, async (j) => {
        const r = await submitOne(kind, `q-load-${kind}`, from + j);
        loadIds[kind][from + j] = r.id;
        acc.lat.push(r.ms);
      });
      meter.stop();
      const cpu = meter.read();
      acc.web += cpu.cpuMs ?? 0;
      acc.pg += cpu.pgCpuMs ?? 0;
    }
    progress("quorum: submits done");

    // Resolve / approvals, one at a time, interleaved.
    const alone = { plainCall: [] as number[], plainPush: [] as number[], first: [] as number[] };
    const aloneQ = { second: [] as number[], push: [] as number[] };
    for (let i = 0; i < N_LATENCY; i++) {
      const p = await resolvePlain("q-lat-plain", latIds.plain[i]!, i);
      alone.plainCall.push(p.call);
      alone.plainPush.push(p.push);
      const r = await approveQuorum("q-lat-quorum", latIds.quorum[i]!, i);
      alone.first.push(r.firstCall);
      aloneQ.second.push(r.secondCall);
      aloneQ.push.push(r.push);
    }
    progress("quorum: one-at-a-time approvals done");

    // From CONCURRENCY connections: plain resolves, then the quorum asks' first approvals, then their completing ones.
    const measure = async (task: () => Promise<number>) => {
      const meter = cpuMeter([webPid], pgDatabase);
      const workerMeter = cpuMeter([workerPid]);
      meter.start();
      workerMeter.start();
      const elapsed = await task();
      meter.stop();
      workerMeter.stop();
      const cpu = meter.read();
      return {
        elapsed,
        web: cpu.cpuMs ?? 0,
        pg: cpu.pgCpuMs ?? 0,
        worker: workerMeter.read().cpuMs ?? 0,
      };
    };
    const plainLoad = { call: [] as number[], push: [] as number[] };
    const plainM = await measure(() =>
      pool(N_THROUGHPUT, CONCURRENCY, async (i) => {
        const r = await resolvePlain("q-load-plain", loadIds.plain[i]!, i);
        plainLoad.call.push(r.call);
        plainLoad.push.push(r.push);
      }),
    );
    const firstLoad: number[] = [];
    const firstM = await measure(() =>
      pool(N_THROUGHPUT, CONCURRENCY, async (i) => {
        firstLoad.push(await vote(web.url, approvers(i)[0], loadIds.quorum[i]!, 202));
      }),
    );
    const secondLoad = { call: [] as number[], push: [] as number[] };
    const secondM = await measure(() =>
      pool(N_THROUGHPUT, CONCURRENCY, async (i) => {
        const t0 = performance.now();
        secondLoad.call.push(await vote(web.url, approvers(i)[1], loadIds.quorum[i]!, 200));
        secondLoad.push.push((await landed.wait(`/q-load-quorum/${i}`)) - t0);
      }),
    );
    progress("quorum: concurrent approvals done");
    await Promise.all([web.stop(), worker.stop()]);

    const N = N_THROUGHPUT;
    const f = (xs: number[]) => lat(xs);
    const pp = (xs: number[]) => `p50 ${ms(f(xs).p50).padStart(9)} p99 ${ms(f(xs).p99).padStart(9)}`;
    const perOp = (cpuMs: number) => `${(cpuMs / N).toFixed(2)} ms`;
    console.log(
      `\nquorum — a 2-of-3 policy-routed confirm ask against a plain one, same web and worker (${queueLabel(QUEUE)}), load ${load()}`,
    );
    console.log(`submit to 202, one at a time (${N_LATENCY} each, interleaved)`);
    console.log(`  ${"plain ask".padEnd(34)} ${pp(subAlone.plain)}`);
    console.log(`  ${"policy-routed ask (2 of 3)".padEnd(34)} ${pp(subAlone.quorum)}`);
    console.log(`submit to 202, ${CONCURRENCY} concurrent (${N} each, blocks plain/quorum/quorum/plain)`);
    for (const [kind, label] of [
      ["plain", "plain ask"],
      ["quorum", "policy-routed ask (2 of 3)"],
    ] as [Kind, string][]) {
      const s = subLoad[kind];
      console.log(
        `  ${label.padEnd(34)} ${((N / s.ms) * 1000).toFixed(0).padStart(5)} submits/s ${pp(s.lat)}   web CPU ${perOp(s.web)}/submit + PostgreSQL ${perOp(s.pg)}/submit`,
      );
    }
    console.log(`resolve / approvals, one at a time (${N_LATENCY} each, interleaved)`);
    console.log(`  ${"plain resolve → 200".padEnd(34)} ${pp(alone.plainCall)}`);
    console.log(`  ${"1st approval → 202".padEnd(34)} ${pp(alone.first)}`);
    console.log(`  ${"2nd approval (completes) → 200".padEnd(34)} ${pp(aloneQ.second)}`);
    console.log(`  ${"plain resolve → push landed".padEnd(34)} ${pp(alone.plainPush)}`);
    console.log(`  ${"2nd approval → push landed".padEnd(34)} ${pp(aloneQ.push)}`);
    console.log(`${CONCURRENCY} concurrent (${N} each; CPU per resolve or approval: web + worker + PostgreSQL)`);
    const cpuOf = (m: { web: number; worker: number; pg: number }) =>
      `web ${perOp(m.web)} + worker ${perOp(m.worker)} + PostgreSQL ${perOp(m.pg)}`;
    console.log(
      `  ${"plain resolve".padEnd(34)} ${((N / plainM.elapsed) * 1000).toFixed(0).padStart(5)} pushes/s push ${pp(plainLoad.push)} | call ${pp(plainLoad.call)} | ${cpuOf(plainM)}`,
    );
    console.log(
      `  ${"1st approvals (no push)".padEnd(34)} ${((N / firstM.elapsed) * 1000).toFixed(0).padStart(5)} approvals/s      call ${pp(firstLoad)} | ${cpuOf(firstM)}`,
    );
    console.log(
      `  ${"2nd approvals (complete, push)".padEnd(34)} ${((N / secondM.elapsed) * 1000).toFixed(0).padStart(5)} pushes/s push ${pp(secondLoad.push)} | call ${pp(secondLoad.call)} | ${cpuOf(secondM)}`,
    );
    const p50 = (xs: number[]) => f(xs).p50;
    console.log(
      `quorum vs plain (p50; target within 10 %): submit alone ${pm(p50(subAlone.quorum), p50(subAlone.plain))}, ` +
        `submit under load ${pm(p50(subLoad.quorum.lat), p50(subLoad.plain.lat))} (throughput ${pm(subLoad.plain.ms, subLoad.quorum.ms)}, web CPU ${pm(subLoad.quorum.web, subLoad.plain.web)}); ` +
        `1st approval ${pm(p50(alone.first), p50(alone.plainCall))}, 2nd approval ${pm(p50(aloneQ.second), p50(alone.plainCall))} against a plain resolve; ` +
        `push after the completing approval ${pm(p50(aloneQ.push), p50(alone.plainPush))}; ` +
        `${CONCURRENCY}-concurrent pushes/s ${pm(plainM.elapsed, secondM.elapsed)}`,
    );
  }

  /** The fan-out phase (see the header). */
  async function fanoutPhase(): Promise<void> {
    const fan = await provisionAccount(
      "fan",
      FAN_AGENTS,
      FAN_PEOPLE.map((handle, i) => ({ handle, role: i === 0 ? ("owner" as const) : ("member" as const) })),
    );
    const solo = await provisionAccount("solo", SOLO_AGENTS);
    const runTag = Date.now().toString(36);
    const marker = new RegExp(`fo${runTag}n(\\d+)x`);
    const warmMarker = `fw${runTag}n`;
    const title = (i: number) => `Deploy check fo${runTag}n${i}x`;
    const notified = new Map<number, number[]>();
    let mails = 0;
    let posts = 0;
    let warmNotified = 0;
    let strays = 0;
    const note = (text: string) => {
      const m = marker.exec(text);
      if (!m) {
        if (text.includes(warmMarker)) warmNotified++;
        else strays++;
        return;
      }
      const i = Number(m[1]);
      notified.set(i, [...(notified.get(i) ?? []), performance.now()]);
    };
    // Arrival: the end of the mail's DATA, before the capture parses it; a post's request, as read.
    const smtp = await startMailCapture({
      data: (_to, raw) => {
        mails++;
        note(raw.toString("latin1"));
        return "accept";
      },
    });
    const slack = await startSlackFake([SLACK_WORKSPACE]);
    slack.calls.push = (...calls: SlackCall[]) => {
      for (const c of calls)
        if (c.method === "chat.postMessage") {
          posts++;
          note(JSON.stringify(c.args));
        }
      return Array.prototype.push.apply(slack.calls, calls);
    };
    try {
      // As the owner connects it on Admin → Slack: the token is checked with auth.test (the stand-in here).
      process.env.SLACK_API_URL = slack.apiUrl;
      resetEnvCache();
      const account = await db().account.findUniqueOrThrow({ where: { slug: "fan" }, select: { id: true } });
      const owner = await db().user.findUniqueOrThrow({ where: { email: "fo@fan.test" }, select: { id: true } });
      const seat = await seatFor(owner.id, account.id);
      if (!seat) throw new Error("no seat for fo");
      await connectSlack(
        { ...seat, actor: "human:fo" },
        {
          botToken: SLACK_WORKSPACE.token,
          signingSecret: "benchSigningSecret0123456789",
          channelId: "CBENCH01",
          directMessages: false,
        },
      );
      const { web, worker, webPid, workerPid } = await startPair(database.url, {
        ...baseEnv,
        ...queueEnv(QUEUE),
        SMTP_URL: smtp.url,
        MA2H_MAIL_FROM: "MA2H Hub <hub@bench.test>",
        SLACK_API_URL: slack.apiUrl,
      });
      progress(`fanout (${QUEUE}): web and worker up, Slack connected`);
      const target = { host: "127.0.0.1", port: web.port };
      const askBody = (agentId: string, i: number, t: string) => {
        const body = JSON.parse(benchEnvelope("ask", agentId, i, `${runTag}-${t}`));
        if (t === "fan") body.title = title(i);
        if (t === "warm") body.title = `Warm-up ${warmMarker}${i}x`;
        return JSON.stringify(body);
      };
      const submitPaced = async (
        n: number,
        seconds: number,
        agents: string[],
        keyOf: Record<string, string>,
        t: string,
      ) => {
        const accepted: number[] = [];
        const took: number[] = [];
        const statuses: Record<number, number> = {};
        const meter = cpuMeter([webPid]);
        meter.start();
        await paced(n, seconds, async (i) => {
          const agentId = agents[i % agents.length]!;
          const t0 = performance.now();
          const res = await fetch(`${web.url}/v1/messages`, {
            method: "POST",
            headers: { authorization: `Bearer ${keyOf[agentId]}`, "content-type": "application/json" },
            body: askBody(agentId, i, t),
          });
          await res.arrayBuffer();
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          if (res.status !== 202) return;
          accepted[i] = performance.now();
          took.push(accepted[i]! - t0);
        });
        meter.stop();
        return { accepted, took, statuses, webCpuMs: meter.read().cpuMs ?? 0, ok: took.length };
      };

      // The plain submit, same web: closed loop (also the web's warm-up), then paced at the fan-out's rate.
      const closed = summarize(
        await drive({
          targets: [target],
          concurrency: 16,
          seconds: 5,
          warmupSeconds: 2,
          okStatus: 202,
          cpuPids: [webPid],
          pgDatabase,
          request: (w, seq) => ({
            method: "POST",
            path: "/v1/messages",
            headers: { authorization: `Bearer ${solo.keys[SOLO_AGENTS[w]!]}`, "content-type": "application/json" },
            body: benchEnvelope("ask", SOLO_AGENTS[w]!, seq, `${runTag}-closed`),
          }),
        }),
      );
      const rate = FANOUT_ASKS / FANOUT_SECONDS;
      const plainN = Math.max(1, Math.round(rate * FANOUT_PLAIN_SECONDS));
      progress(`fanout: plain closed loop done; ${plainN} plain asks at ${rate.toFixed(1)}/s`);
      const plain = await submitPaced(plainN, FANOUT_PLAIN_SECONDS, SOLO_AGENTS, solo.keys, "plain");
      progress(
        `fanout: ${FANOUT_WARMUP} warm-up asks, then ${FANOUT_ASKS} at ${rate.toFixed(1)}/s, each to ${FAN_PEOPLE.length} people and Slack`,
      );

      // The worker's warm-up, uncounted: a few fanned-out asks, until their notifications are in.
      await submitPaced(FANOUT_WARMUP, Math.max(1, FANOUT_WARMUP / rate), FAN_AGENTS, fan.keys, "warm");
      const warmUntil = performance.now() + 60_000;
      while (warmNotified < FANOUT_WARMUP * (FAN_PEOPLE.length + 1) && performance.now() < warmUntil) await sleep(100);
      const mailsBefore = mails;
      const postsBefore = posts;

      // The fan-out.
      const loadBefore = load();
      const toLast = cpuMeter([webPid]);
      const workerMeter = cpuMeter([workerPid]);
      const pgMeter = cpuMeter([], pgDatabase);
      for (const m of [toLast, workerMeter, pgMeter]) m.start();
      const fanned = await submitPaced(FANOUT_ASKS, FANOUT_SECONDS, FAN_AGENTS, fan.keys, "fan");
      const expected = FAN_PEOPLE.length + 1;
      const complete = () => [...notified.values()].filter((a) => a.length >= expected).length;
      const lastAccepted = Math.max(...fanned.accepted.filter((x) => x !== undefined));
      while (complete() < fanned.ok && performance.now() - lastAccepted < 60_000) await sleep(100);
      for (const m of [toLast, workerMeter, pgMeter]) m.stop();
      const loadAfter = load();
      progress("fanout: notifications in");
      await Promise.all([web.stop(), worker.stop()]);

      const delays: number[] = [];
      const mailFirst: number[] = [];
      let within = 0;
      for (const [i, at] of fanned.accepted.entries()) {
        if (at === undefined) continue;
        const got = notified.get(i) ?? [];
        if (got.length < expected) continue;
        const d = Math.max(...got) - at;
        delays.push(d);
        mailFirst.push(Math.min(...got) - at);
        if (d <= FANOUT_WITHIN_MS) within++;
      }
      const s = [...delays].sort((a, b) => a - b);
      const webPerAsk = fanned.webCpuMs / fanned.ok;
      const webToLast = (toLast.read().cpuMs ?? 0) / fanned.ok;
      const plainPaced = plain.webCpuMs / plain.ok;
      console.log(
        `\nfan-out — ${FANOUT_ASKS} asks over ${FANOUT_SECONDS} s (${rate.toFixed(1)}/s, open loop, 16 agents), each mailed to ${FAN_PEOPLE.length} people (loopback SMTP sink) and posted to one Slack channel (loopback Slack stand-in); ${queueLabel(QUEUE)}; load ${loadBefore} before, ${loadAfter} after`,
      );
      console.log(
        `  asks accepted ${fanned.ok}/${FANOUT_ASKS} (statuses ${JSON.stringify(fanned.statuses)}); submit to 202 p50 ${ms(
          pct(
            [...fanned.took].sort((a, b) => a - b),
            50,
          ),
        )} p99 ${ms(
          pct(
            [...fanned.took].sort((a, b) => a - b),
            99,
          ),
        )}`,
      );
      console.log(
        `  notifications received: ${mails - mailsBefore} mails (expected ${fanned.ok * FAN_PEOPLE.length}), ${posts - postsBefore} Slack posts (expected ${fanned.ok})${strays ? `, ${strays} unmatched` : ""}; asks with all ${expected}: ${delays.length}/${fanned.ok}`,
      );
      console.log(
        `  202 → last of its ${expected} notifications: p50 ${ms(pct(s, 50))} p99 ${ms(pct(s, 99))} max ${ms(s[s.length - 1] ?? NaN)} (first: p50 ${ms(lat(mailFirst).p50)}); ` +
          `within 10 s: ${within}/${fanned.ok} — ${within === fanned.ok ? "all" : "NOT all"}`,
      );
      console.log(
        `  web CPU per ask ${webPerAsk.toFixed(2)} ms (first submit to last 202; ${webToLast.toFixed(2)} ms to the last notification); ` +
          `worker ${((workerMeter.read().cpuMs ?? 0) / fanned.ok).toFixed(2)} ms, PostgreSQL ${((pgMeter.read().pgCpuMs ?? 0) / fanned.ok).toFixed(2)} ms per ask`,
      );
      console.log(
        `  plain submit, same web (an account with nobody to notify): paced ${plain.ok} at ${rate.toFixed(1)}/s ${plainPaced.toFixed(2)} ms web CPU per ask; ` +
          `closed loop, 16 connections: ${closed.rps.toFixed(0)} req/s, ${closed.cpuPerReq?.toFixed(2)} ms web CPU/req (PostgreSQL ${closed.pgCpuPerReq?.toFixed(2)} ms)`,
      );
      console.log(
        `  web CPU per fanned-out ask / plain submit (target ≤ 2×): ×${(webPerAsk / plainPaced).toFixed(2)} against the paced plain ask, ×${(webPerAsk / (closed.cpuPerReq ?? NaN)).toFixed(2)} against the closed loop`,
      );
    } finally {
      await smtp.close();
      await slack.close();
    }
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    console.error(err);
    process.exit(1);
  },
);
