/**
 * `npm run bench:submit`: submit throughput of the built Hub against its floor. In one run, on one
 * fresh PostgreSQL database: the web process (rate limit and inbox depth raised out of the way,
 * access log at info to a file), with Redis and without it (PostgreSQL rate counters), and a bare
 * node:http server doing one parameterized INSERT per request (scripts/bench/baseline-server.ts).
 * Each is driven by the same closed loop — 64 connections, half notifies and half asks, 64 agents
 * (one per connection) — for BENCH_SECONDS (default 15) after a 3 s warm-up. Only 202s count.
 * Prints requests/s, p50, p99 and the Hub/baseline ratio. Needs `npm run build` first.
 */
import { join } from "node:path";
import { Redis } from "ioredis";
import { createTestDatabase } from "../test/support/database";
import { provisionAccount, releaseDatabase, useDatabase } from "../test/support/provision";
import {
  benchEnvelope,
  drive,
  fmt,
  logDir,
  machine,
  startBaseline,
  startWeb,
  summarize,
  type Summary,
  type Target,
} from "./bench/lib";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const CONCURRENCY = 64;
const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379/10";
const RAISED = { MA2H_RATE_LIMIT_PER_MINUTE: "1000000000", MA2H_INBOX_DEPTH: "1000000000" };

let pgDatabase = "";

async function run(
  label: string,
  targets: Target[],
  keys: string[],
  agents: string[],
  cpuPids: number[],
): Promise<Summary> {
  const tag = `${label.replace(/\W+/g, "")}${Date.now()}`;
  const r = await drive({
    targets,
    concurrency: CONCURRENCY,
    seconds: SECONDS,
    okStatus: 202,
    cpuPids,
    pgDatabase,
    request: (w, seq) => ({
      method: "POST",
      path: "/v1/messages",
      headers: { authorization: `Bearer ${keys[w % keys.length]}`, "content-type": "application/json" },
      body: benchEnvelope(seq % 2 ? "ask" : "notify", agents[w % agents.length]!, seq, tag),
    }),
  });
  const s = summarize(r);
  console.log(`${label.padEnd(28)} ${fmt(s)}`);
  return s;
}

async function main(): Promise<void> {
  console.log(`bench:submit — ${machine()}`);
  console.log(
    `concurrency ${CONCURRENCY}, ${SECONDS} s per phase after a 3 s warm-up, notify:ask 1:1, 64 agents; logs in ${logDir()}`,
  );
  const database = await createTestDatabase();
  pgDatabase = new URL(database.url).pathname.slice(1);
  await useDatabase(database.url);
  const agents = Array.from({ length: 64 }, (_, i) => `bench/agent-${i}`);
  const { keys } = await provisionAccount("bench", agents);
  const keyList = agents.map((a) => keys[a]!);
  const redis = new Redis(REDIS_URL);
  await redis.flushdb();
  const results: Record<string, Summary> = {};
  try {
    // The floor: one INSERT per request, same database, same client concurrency.
    const baseline = await startBaseline(database.url);
    results.baseline = await run("baseline (1 INSERT)", [baseline.target], keyList, agents, [baseline.pid]);
    baseline.stop();

    const withRedis = await startWeb(database.url, { ...RAISED, REDIS_URL }, join(logDir(), "web-redis.log"));
    results.redis = await run(
      "Hub web (REDIS_URL set)",
      [{ host: "127.0.0.1", port: withRedis.port }],
      keyList,
      agents,
      [withRedis.pid],
    );
    await withRedis.stop();

    const pgOnly = await startWeb(database.url, { ...RAISED }, join(logDir(), "web-pg.log"));
    results.pg = await run("Hub web (PostgreSQL only)", [{ host: "127.0.0.1", port: pgOnly.port }], keyList, agents, [
      pgOnly.pid,
    ]);
    await pgOnly.stop();
  } finally {
    await redis.flushdb().catch(() => {});
    redis.disconnect();
    await releaseDatabase();
    await database.drop();
  }
  const b = results.baseline!;
  console.log("");
  for (const k of ["redis", "pg"] as const) {
    const h = results[k]!;
    console.log(
      `ratio Hub/baseline (${k === "redis" ? "Redis" : "PostgreSQL only"}): throughput ${(h.rps / b.rps).toFixed(2)}×, p50 ${(h.p50 / b.p50).toFixed(1)}×, p99 ${(h.p99 / b.p99).toFixed(1)}×` +
        (h.cpuPerReq && b.cpuPerReq ? `, server CPU per request ${(h.cpuPerReq / b.cpuPerReq).toFixed(1)}×` : ""),
    );
  }
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
