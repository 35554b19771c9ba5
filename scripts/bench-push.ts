/**
 * `npm run bench:push`: resolve → signed push received, for the built Hub against a bare floor. On a
 * fresh PostgreSQL database: the web and worker processes (submit limits raised, logs at warn), a
 * loopback receiver in this process, and N asks with hmac push callbacks. For each queue backend
 * (BullMQ on PostgreSQL, then on Redis db 11):
 *   - latency: resolves one at a time; the time from sending the resolve to the signed push landing
 *     on the receiver (p50, p99);
 *   - throughput: resolves from CONCURRENCY connections at once; pushes received per second from
 *     the first resolve sent to the last push landed, and the latency under that load.
 * The baseline signs the same Response bodies (@ma2h/protocol/signing, hmac-sha256, fresh t and jti)
 * and POSTs them from this bare Node process to the same receiver with node:http and a fresh
 * connection each (as the Hub's egress does), in the same two shapes. Prints both and the ratios.
 * Loopback only; bounded to well under two minutes. Needs `npm run build` first.
 */
import http from "node:http";
import os from "node:os";
import { Redis } from "ioredis";
import { addBinding } from "../lib/principals/bindings";
import { signResponsePush, type ResponseSigningBody } from "@ma2h/protocol/signing";
import { createTestDatabase } from "../test/support/database";
import { startHub, waitForReady, type HubProcess } from "../test/support/hub";
import { envelope, provisionAccount, releaseDatabase, useDatabase } from "../test/support/provision";
import { startReceiver } from "../test/support/receiver";

const N_LATENCY = Number(process.env.BENCH_PUSH_LATENCY_N ?? 60);
const N_THROUGHPUT = Number(process.env.BENCH_PUSH_THROUGHPUT_N ?? 200);
const CONCURRENCY = Number(process.env.BENCH_PUSH_CONCURRENCY ?? 16);
const REDIS_URL = process.env.BENCH_PUSH_REDIS_URL ?? "redis://127.0.0.1:6379/11";
// Several agents: submits of one agent serialise on its inbox-depth lock, which is not what this measures.
const AGENTS = Array.from({ length: 16 }, (_, i) => `bench/pusher-${i}`);
const SECRET = "bench-push-secret";
const DEADLINE_MS = 110_000;

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

const ms = (n: number) => `${n.toFixed(1)} ms`;

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
    `bench:push — ${new Date().toISOString()} — ${cpus.length} × ${cpus[0]?.model ?? "cpu"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join("/")}`,
  );
  console.log(
    `latency: ${N_LATENCY} resolves one at a time; throughput: ${N_THROUGHPUT} resolves over ${CONCURRENCY} connections; hmac push to a loopback receiver`,
  );

  const database = await createTestDatabase();
  await useDatabase(database.url);
  const landed = arrivals();
  const rx = await startReceiver("127.0.0.1", 0, { onRequest: (r) => landed.record(r.path) });

  const { keys, tokens } = await provisionAccount("bench", AGENTS, [{ handle: "op", role: "owner" }]);
  for (const agentId of AGENTS)
    await addBinding({ agentRef: { agentId }, origin: rx.origin, secretRef: "cb", secret: SECRET });
  const redis = new Redis(REDIS_URL);
  await redis.flushdb();

  type Figures = ReturnType<typeof summary>;
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

    for (const backend of ["postgres", "redis"] as const) {
      const env = {
        MA2H_DEV_CALLBACK_ALLOWLIST: rx.origin,
        MA2H_RATE_LIMIT_PER_MINUTE: "1000000000",
        MA2H_INBOX_DEPTH: "1000000000",
        LOG_LEVEL: "warn",
        // The worker logs "worker running" at info; keep it for readiness, quiet the rest.
        ...(backend === "redis" ? { REDIS_URL } : {}),
      };
      // Tracked before they are ready, so the watchdog can stop them whatever happens.
      const web = await startHub({ databaseUrl: database.url, mode: "web", env, waitReady: false });
      const worker = await startHub({ databaseUrl: database.url, mode: "worker", env: { ...env, LOG_LEVEL: "info" } });
      processes.push(web, worker);
      await Promise.all([waitForReady(web), waitWorker(worker)]);
      progress(`${backend}: web and worker up`);

      const submit = async (tag: string, i: number) => {
        const agentId = AGENTS[i % AGENTS.length]!;
        const body = envelope("ask", agentId, {
          request: {
            mode: "confirm",
            callback: { mode: "push", url: `${rx.origin}/${tag}/${i}`, auth: { scheme: "hmac", secret_ref: "cb" } },
          },
          state: { seq: i, tag },
        });
        const res = await json(`${web.url}/v1/messages`, {
          method: "POST",
          headers: { authorization: `Bearer ${keys[agentId]}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        if (res.status !== 202) throw new Error(`submit ${res.status} ${JSON.stringify(res.body)}`);
        return res.body.id as string;
      };
      /** Resolve → push landed into `latencies`; the resolve call's own 200 into `calls`. */
      const resolveAndWait = async (tag: string, id: string, i: number, latencies: number[], calls: number[] = []) => {
        const t0 = performance.now();
        const res = await json(`${web.url}/v1/messages/${id}/resolve`, {
          method: "POST",
          headers: { authorization: `Bearer ${tokens.op}`, "content-type": "application/json" },
          body: JSON.stringify({ resolution: "answered", value: "approve" }),
        });
        if (res.status !== 200) throw new Error(`resolve ${res.status} ${JSON.stringify(res.body)}`);
        calls.push(performance.now() - t0);
        latencies.push((await landed.wait(`/${tag}/${i}`)) - t0);
      };

      // Warm-up: the first pushes pay for connection pools and JIT.
      const warm = await Promise.all(Array.from({ length: 5 }, (_, i) => submit(`${backend}-warm`, i)));
      for (const [i, id] of warm.entries()) await resolveAndWait(`${backend}-warm`, id, i, []);

      progress(`${backend}: warmed up`);
      const lat: number[] = [];
      const latCalls: number[] = [];
      const ids1: string[] = [];
      for (let i = 0; i < N_LATENCY; i++) ids1.push(await submit(`${backend}-lat`, i));
      const latElapsed = await pool(N_LATENCY, 1, (i) => resolveAndWait(`${backend}-lat`, ids1[i]!, i, lat, latCalls));

      progress(`${backend}: latency phase done`);
      const load: number[] = [];
      const loadCalls: number[] = [];
      const ids2: string[] = [];
      await pool(N_THROUGHPUT, CONCURRENCY, async (i) => {
        ids2[i] = await submit(`${backend}-load`, i);
      });
      progress(`${backend}: ${N_THROUGHPUT} submitted`);
      const loadElapsed = await pool(N_THROUGHPUT, CONCURRENCY, (i) =>
        resolveAndWait(`${backend}-load`, ids2[i]!, i, load, loadCalls),
      );
      progress(`${backend}: throughput phase done`);

      results[`Hub (${backend === "redis" ? "BullMQ on Redis" : "BullMQ on PostgreSQL"})`] = {
        latency: summary({ latencies: lat, elapsedMs: latElapsed, count: N_LATENCY }),
        load: summary({ latencies: load, elapsedMs: loadElapsed, count: N_THROUGHPUT }),
        resolveCall: {
          alone: summary({ latencies: latCalls, elapsedMs: 1, count: 0 }),
          loaded: summary({ latencies: loadCalls, elapsedMs: 1, count: 0 }),
        },
      };
      if (bodies.length === 0) bodies = await Promise.all(ids2.map((id, i) => sampleBody(web.url, id, i)));
      await Promise.all([web.stop(), worker.stop()]);
    }

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
    console.log(`\ntotal ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await Promise.all(processes.map((p) => p.stop()));
    await rx.close();
    await redis.flushdb().catch(() => {});
    redis.disconnect();
    await releaseDatabase();
    await database.drop();
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    console.error(err);
    process.exit(1);
  },
);
