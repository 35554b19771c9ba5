/**
 * `npm run bench:longpoll`: long-poll capacity of one web process. Submits BENCH_WAITERS (default
 * 10 000) asks, parks one `GET /v1/messages/{id}?wait=60` per ask on web A — each on its own
 * connection, as that many separate agents would — and prints web A's RSS (from /proc) before and
 * while they are parked. Then resolves every message through web B (a second web process on the
 * same database, as in a scaled-out deployment, so A only does wake-ups) at BENCH_RESOLVE_CONCURRENCY
 * (default 16) in flight, and prints the wake-up latency: from the resolve's 200 (and from sending
 * it) to the parked request's answer on A. A waiter whose 60 s run out before its resolve re-polls,
 * as a real client does; those are counted. The open-file limit is raised in a child shell if the
 * soft limit is too low for the sockets. Needs `npm run build` first.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { Redis } from "ioredis";
import { createTestDatabase } from "../test/support/database";
import { provisionAccount, releaseDatabase, useDatabase } from "../test/support/provision";
import { benchEnvelope, cpuTicks, logDir, machine, percentile, rssMiB, send, sleep, startWeb } from "./bench/lib";

const REQUESTED = Number(process.env.BENCH_WAITERS ?? 10_000);
const RESOLVE_CONCURRENCY = Number(process.env.BENCH_RESOLVE_CONCURRENCY ?? 16);
const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379/12";
const AGENTS = 10;

function openFileLimits(): { soft: number; hard: number } {
  const line = readFileSync("/proc/self/limits", "utf8").split("\n").find((l) => l.startsWith("Max open files")) ?? "";
  const [soft, hard] = line.replace("Max open files", "").trim().split(/\s+/).map((v) => (v === "unlimited" ? Infinity : Number(v)));
  return { soft: soft ?? 1024, hard: hard ?? 1024 };
}

/** Each side (this process and the web) holds one socket per waiter, plus a margin. */
function ensureFileLimit(): number {
  const need = REQUESTED + 2000;
  const { soft, hard } = openFileLimits();
  if (soft >= need) return REQUESTED;
  if (!process.env.BENCH_LIMIT_RAISED && hard > soft) {
    const target = Number.isFinite(hard) ? hard : need;
    console.log(`raising the open-file limit from ${soft} to ${target} in a child shell`);
    const r = spawnSync("bash", ["-c", `ulimit -n ${target} && exec "$0" "$@"`, process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
      stdio: "inherit",
      env: { ...process.env, BENCH_LIMIT_RAISED: "1" },
    });
    process.exit(r.status ?? 1);
  }
  const fits = Math.max(1000, Math.floor((soft - 2000) / 1000) * 1000);
  console.log(`open-file limit ${soft} (hard ${hard}) cannot hold ${REQUESTED} waiters; measuring ${fits} instead`);
  return fits;
}

interface Waiter {
  id: string;
  key: string;
  polls: number;
  answeredAt: number;
  status: string;
  resolveSentAt: number;
  resolveAckedAt: number;
}

/** Long-polls until the message is terminal, re-polling when a 60 s wait runs out (as clients do). */
function waitFor(target: { host: string; port: number }, w: Waiter, agent: http.Agent, onFirstParked: () => void): Promise<void> {
  return new Promise((done) => {
    const poll = () => {
      w.polls++;
      const req = http.request(
        { host: target.host, port: target.port, path: `/v1/messages/${w.id}?wait=60`, headers: { authorization: `Bearer ${w.key}` }, agent },
        (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (d: string) => (body += d));
          res.on("end", () => {
            const status = res.statusCode === 200 ? (JSON.parse(body).status as string) : `http_${res.statusCode}`;
            if (status === "open") return poll();
            w.answeredAt = performance.now();
            w.status = status;
            done();
          });
        },
      );
      req.on("error", () => setTimeout(poll, 100));
      req.end();
      if (w.polls === 1) req.on("socket", (s) => s.once("connect", onFirstParked));
    };
    poll();
  });
}

async function main(): Promise<void> {
  const N = ensureFileLimit();
  console.log(`bench:longpoll — ${machine()}`);
  console.log(`${N} waiters (?wait=60) on one web process, resolves through a second one at ${RESOLVE_CONCURRENCY} in flight; logs in ${logDir()}`);
  const database = await createTestDatabase();
  await useDatabase(database.url);
  const agentIds = Array.from({ length: AGENTS }, (_, i) => `poll/agent-${i}`);
  const { keys, tokens } = await provisionAccount("bench", agentIds, [{ handle: "ops", role: "owner" }]);
  const redis = new Redis(REDIS_URL);
  await redis.flushdb();
  const env = { REDIS_URL, MA2H_RATE_LIMIT_PER_MINUTE: "1000000000", MA2H_INBOX_DEPTH: "1000000000" };
  const webA = await startWeb(database.url, env, join(logDir(), "longpoll-web-a.log"));
  const webB = await startWeb(database.url, env, join(logDir(), "longpoll-web-b.log"));
  const A = { host: "127.0.0.1", port: webA.port };
  const B = { host: "127.0.0.1", port: webB.port };
  try {
    // The asks, submitted through B so A starts the measurement fresh.
    const submitAgent = new http.Agent({ keepAlive: true, maxSockets: 32 });
    const waiters: Waiter[] = [];
    let next = 0;
    const t0 = Date.now();
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < N) {
          const i = next++;
          const agentId = agentIds[i % AGENTS]!;
          const res = await send(submitAgent, B, {
            method: "POST",
            path: "/v1/messages",
            headers: { authorization: `Bearer ${keys[agentId]}`, "content-type": "application/json" },
            body: benchEnvelope("ask", agentId, i, "poll"),
          });
          if (res.status !== 202) throw new Error(`submit answered ${res.status}: ${res.body}`);
          waiters.push({ id: JSON.parse(res.body).id, key: keys[agentId]!, polls: 0, answeredAt: 0, status: "", resolveSentAt: 0, resolveAckedAt: 0 });
        }
      }),
    );
    submitAgent.destroy();
    console.log(`submitted ${waiters.length} asks in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    // Warm A's routes up with a few short polls, then take its idle RSS.
    const warm = new http.Agent({ keepAlive: false });
    for (const w of waiters.slice(0, 20)) await send(warm, A, { method: "GET", path: `/v1/messages/${w.id}`, headers: { authorization: `Bearer ${w.key}` } });
    await sleep(2000);
    const rssIdle = rssMiB(webA.pid);
    console.log(`web A RSS idle (after warm-up): ${rssIdle.toFixed(0)} MiB`);

    // Park them all: one connection each, opened in batches so the listen backlog keeps up.
    const parkAgent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
    let connected = 0;
    const parkStart = Date.now();
    const finished: Promise<void>[] = [];
    for (let i = 0; i < waiters.length; i += 250) {
      for (const w of waiters.slice(i, i + 250)) finished.push(waitFor(A, w, parkAgent, () => connected++));
      await sleep(25);
    }
    // Parked = all connected and web A idle (no CPU used for 2 s: every request is registered and waiting).
    let idleSince = 0;
    let ticks = cpuTicks(webA.pid);
    for (;;) {
      await sleep(500);
      const now = cpuTicks(webA.pid);
      if (now !== ticks) idleSince = 0;
      else idleSince ||= Date.now();
      ticks = now;
      if (connected >= waiters.length && idleSince && Date.now() - idleSince >= 2000) break;
      if (Date.now() - parkStart > 55_000) {
        console.log("web A still busy 55 s after parking began; measuring now");
        break;
      }
    }
    const answeredEarly = waiters.filter((w) => w.answeredAt > 0).length;
    const rssParked = rssMiB(webA.pid);
    const parkSeconds = (Date.now() - parkStart - 2000) / 1000;
    console.log(`parked ${connected} connections in ~${parkSeconds.toFixed(1)} s (${answeredEarly} answered before any resolve)`);
    console.log(`web A RSS while ${connected} long-polls are parked: ${rssParked.toFixed(0)} MiB (+${(rssParked - rssIdle).toFixed(0)} MiB, ≈ ${(((rssParked - rssIdle) * 1024) / connected).toFixed(1)} KiB per waiter)`);

    // Resolve every message through B; each waiter's answer on A is timed against its resolve.
    const resolveAgent = new http.Agent({ keepAlive: true, maxSockets: RESOLVE_CONCURRENCY });
    let r = 0;
    const resolveStart = Date.now();
    await Promise.all(
      Array.from({ length: RESOLVE_CONCURRENCY }, async () => {
        while (r < waiters.length) {
          const w = waiters[r++]!;
          w.resolveSentAt = performance.now();
          const res = await send(resolveAgent, B, {
            method: "POST",
            path: `/v1/messages/${w.id}/resolve`,
            headers: { authorization: `Bearer ${tokens.ops}`, "content-type": "application/json" },
            body: JSON.stringify({ resolution: "answered", value: "ship" }),
          });
          w.resolveAckedAt = performance.now();
          if (res.status !== 200) throw new Error(`resolve answered ${res.status}: ${res.body}`);
        }
      }),
    );
    const resolveSeconds = (Date.now() - resolveStart) / 1000;
    await Promise.race([Promise.all(finished), sleep(70_000)]);
    resolveAgent.destroy();
    parkAgent.destroy();

    const done = waiters.filter((w) => w.answeredAt > 0);
    const wrong = done.filter((w) => w.status !== "answered").length;
    const repolled = waiters.filter((w) => w.polls > 1).length;
    const fromAck = done.map((w) => w.answeredAt - w.resolveAckedAt);
    const fromSend = done.map((w) => w.answeredAt - w.resolveSentAt);
    console.log(`resolved ${waiters.length} through web B in ${resolveSeconds.toFixed(1)} s (${(waiters.length / resolveSeconds).toFixed(0)}/s)`);
    console.log(`answered ${done.length}/${waiters.length} (${wrong} with a status other than answered; ${repolled} re-polled after a 60 s wait ran out)`);
    console.log(
      `wake-up latency after the resolve's 200: p50 ${percentile(fromAck, 50).toFixed(1)} ms, p99 ${percentile(fromAck, 99).toFixed(1)} ms` +
        ` (negative: the waiter was answered before the resolver had its 200)`,
    );
    console.log(`wake-up latency from sending the resolve:  p50 ${percentile(fromSend, 50).toFixed(1)} ms, p99 ${percentile(fromSend, 99).toFixed(1)} ms`);
    console.log(`web A RSS after: ${rssMiB(webA.pid).toFixed(0)} MiB`);
  } finally {
    await Promise.all([webA.stop(), webB.stop()]);
    await redis.flushdb().catch(() => {});
    redis.disconnect();
    await releaseDatabase();
    await database.drop();
  }
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
