/**
 * `npm run bench:submit`: submit cost of the built Hub against two floors measured in the same run
 * (docs/PERFORMANCE.md), on one fresh migrated PostgreSQL database (both floors write the
 * migrations' `bench_baseline`):
 * - **bare**: a node:http server doing one parameterized INSERT per request
 *   (scripts/bench/baseline-server.ts) — no framework at all;
 * - **floor**: the same INSERT from a route handler of this same Next.js build, through the Hub's
 *   own pool (app/bench/floor, served because the web runs with MA2H_DEV_MODE=1 and
 *   MA2H_BENCH_FLOOR=1) — the framework's own cost;
 * - **Hub**: `POST /v1/messages` at 64 connections (Redis set, and PostgreSQL only) and at 8, and
 *   once more at 64 through Next's router (MA2H_PROTOCOL_LANE=0, server/protocol-lane.ts).
 * Each closed loop: half notifies and half asks (asks keyed; the verb follows the load's global
 * request counter), one agent per connection, for BENCH_SECONDS (default 10) after a 3 s warm-up;
 * only 202s count. On the Redis web two more: **notify** (64 connections, notifies only) and
 * **mixed** (64 agents, 64 connections, each connection alternating notify and ask 1:1, with each
 * verb's p50/p99 beside the whole) — each with web and PostgreSQL CPU per submit. The whole set runs
 * BENCH_RUNS times (default 3) and the table prints each figure's median. Needs `npm run build` first.
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

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379/10";
/** BENCH_PHASES=redis8,pg runs only those phases (keys of the table below); all by default. */
const PHASES = process.env.BENCH_PHASES?.split(",").filter(Boolean);
const want = (k: string) => !PHASES || PHASES.includes(k);
const RAISED = { MA2H_RATE_LIMIT_PER_MINUTE: "1000000000", MA2H_INBOX_DEPTH: "1000000000", MA2H_BENCH_FLOOR: "1" };

let pgDatabase = "";

type Verb = "notify" | "ask";

interface Phase {
  label: string;
  targets: Target[];
  path: string;
  concurrency: number;
  cpuPids: number[];
  /**
   * The verb of connection `w`'s `n`-th request (n counts per connection); by default the load's
   * global request counter alternates them. A phase that sets it also reports each verb's latency.
   */
  verb?: (w: number, n: number) => Verb;
}

/** notify, ask, notify, … on every connection; odd connections start with the ask, so half are in flight of each. */
const alternating = (w: number, n: number): Verb => ((w + n) % 2 ? "ask" : "notify");

async function run(p: Phase, keys: string[], agents: string[]): Promise<Summary> {
  const tag = `${p.label.replace(/\W+/g, "")}${Date.now()}`;
  const perConnection: number[] = [];
  const r = await drive({
    targets: p.targets,
    concurrency: p.concurrency,
    seconds: SECONDS,
    okStatus: 202,
    cpuPids: p.cpuPids,
    pgDatabase,
    request: (w, seq) => {
      const n = (perConnection[w] ?? -1) + 1;
      perConnection[w] = n;
      const verb: Verb = p.verb ? p.verb(w, n) : seq % 2 ? "ask" : "notify";
      return {
        method: "POST",
        path: p.path,
        headers: { authorization: `Bearer ${keys[w % keys.length]}`, "content-type": "application/json" },
        body: benchEnvelope(verb, agents[w % agents.length]!, seq, tag),
        ...(p.verb ? { tag: verb } : {}),
      };
    },
  });
  const s = summarize(r);
  console.log(`${p.label.padEnd(30)} ${fmt(s)}`);
  if (p.verb)
    for (const [verb, t] of Object.entries(s.byTag))
      console.log(
        `${"".padEnd(30)}   ${verb.padEnd(6)} ${t.ok} × 202   p50 ${t.p50.toFixed(1)} ms   p99 ${t.p99.toFixed(1)} ms`,
      );
  return s;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  console.log(`bench:submit — ${machine()}`);
  console.log(
    `${RUNS} runs; ${SECONDS} s per phase after a 3 s warm-up, notify:ask 1:1, one agent per connection; logs in ${logDir()}`,
  );
  const database = await createTestDatabase();
  pgDatabase = new URL(database.url).pathname.slice(1);
  await useDatabase(database.url);
  const agents = Array.from({ length: 64 }, (_, i) => `bench/agent-${i}`);
  const { keys } = await provisionAccount("bench", agents);
  const keyList = agents.map((a) => keys[a]!);
  const redis = new Redis(REDIS_URL);
  await redis.flushdb();
  const rows: Record<string, Summary[]> = {};
  const keep = (k: string, s: Summary | false) => {
    if (!s) return;
    rows[k] = [...(rows[k] ?? []), s];
  };
  try {
    for (let i = 1; i <= RUNS; i++) {
      console.log(`\nrun ${i}/${RUNS} (load average ${(await import("node:os")).loadavg()[0]!.toFixed(1)})`);
      if (want("bare") || want("bare8")) {
        const baseline = await startBaseline(database.url);
        const bare = { targets: [baseline.target], cpuPids: [baseline.pid], path: "/v1/messages" };
        if (want("bare"))
          keep("bare", await run({ label: "bare node:http + INSERT", concurrency: 64, ...bare }, keyList, agents));
        if (want("bare8"))
          keep("bare8", await run({ label: "bare node:http + INSERT, 8", concurrency: 8, ...bare }, keyList, agents));
        baseline.stop();
      }

      const web = await startWeb(database.url, { ...RAISED, REDIS_URL }, join(logDir(), "web-redis.log"));
      const hub = { targets: [{ host: "127.0.0.1", port: web.port }], cpuPids: [web.pid] };
      keep(
        "floor",
        want("floor") &&
          (await run(
            { label: "Next.js + INSERT floor", concurrency: 64, path: "/bench/floor", ...hub },
            keyList,
            agents,
          )),
      );
      keep(
        "floor8",
        want("floor8") &&
          (await run(
            { label: "Next.js + INSERT floor, 8", concurrency: 8, path: "/bench/floor", ...hub },
            keyList,
            agents,
          )),
      );
      keep(
        "redis",
        want("redis") &&
          (await run(
            { label: "Hub, REDIS_URL set, 64", concurrency: 64, path: "/v1/messages", ...hub },
            keyList,
            agents,
          )),
      );
      keep(
        "notify",
        want("notify") &&
          (await run(
            { label: "Hub, notify only, 64", concurrency: 64, path: "/v1/messages", verb: () => "notify", ...hub },
            keyList,
            agents,
          )),
      );
      keep(
        "mixed",
        want("mixed") &&
          (await run(
            { label: "Hub, mixed 1:1 per conn, 64", concurrency: 64, path: "/v1/messages", verb: alternating, ...hub },
            keyList,
            agents,
          )),
      );
      keep(
        "redis8",
        want("redis8") &&
          (await run(
            { label: "Hub, REDIS_URL set, 8", concurrency: 8, path: "/v1/messages", ...hub },
            keyList,
            agents,
          )),
      );
      await web.stop();

      const viaNext = await startWeb(
        database.url,
        { ...RAISED, REDIS_URL, MA2H_PROTOCOL_LANE: "0" },
        join(logDir(), "web-next.log"),
      );
      const nextHub = { targets: [{ host: "127.0.0.1", port: viaNext.port }], cpuPids: [viaNext.pid] };
      keep(
        "next",
        want("next") &&
          (await run(
            { label: "Hub via Next's router, 64", concurrency: 64, path: "/v1/messages", ...nextHub },
            keyList,
            agents,
          )),
      );
      await viaNext.stop();

      const pgOnly = await startWeb(database.url, { ...RAISED }, join(logDir(), "web-pg.log"));
      const pgHub = { targets: [{ host: "127.0.0.1", port: pgOnly.port }], cpuPids: [pgOnly.pid] };
      keep(
        "pg",
        want("pg") &&
          (await run(
            { label: "Hub, PostgreSQL only, 64", concurrency: 64, path: "/v1/messages", ...pgHub },
            keyList,
            agents,
          )),
      );
      await pgOnly.stop();
    }
  } finally {
    await redis.flushdb().catch(() => {});
    redis.disconnect();
    await releaseDatabase();
    await database.drop();
  }
  const m = (k: string, f: (s: Summary) => number | undefined) => median(rows[k]!.map((s) => f(s) ?? NaN));
  console.log(`\nmedians of ${RUNS} runs`);
  console.log("| phase | req/s | p50 | p99 | web CPU/req | PostgreSQL CPU/req |");
  console.log("| --- | --- | --- | --- | --- | --- |");
  for (const [k, label] of [
    ["bare", "bare node:http + INSERT, 64"],
    ["floor", "Next.js + INSERT floor, 64"],
    ["bare8", "bare node:http + INSERT, 8"],
    ["floor8", "Next.js + INSERT floor, 8"],
    ["redis", "Hub, REDIS_URL set, 64"],
    ["pg", "Hub, PostgreSQL only, 64"],
    ["redis8", "Hub, REDIS_URL set, 8"],
    ["next", "Hub via Next's router (lane off), 64"],
    ["notify", "Hub, notify only, 64 (Redis set)"],
    ["mixed", "Hub, mixed notify:ask 1:1 per connection, 64 (Redis set)"],
  ] as const) {
    if (!rows[k]) continue;
    console.log(
      `| ${label} | ${m(k, (s) => s.rps).toFixed(0)} | ${m(k, (s) => s.p50).toFixed(1)} ms | ${m(k, (s) => s.p99).toFixed(1)} ms | ${m(k, (s) => s.cpuPerReq).toFixed(2)} ms | ${m(k, (s) => s.pgCpuPerReq).toFixed(2)} ms |`,
    );
  }
  if (rows.mixed) {
    const verb = (v: Verb, f: (t: { p50: number; p99: number }) => number) =>
      m("mixed", (s) => (s.byTag[v] ? f(s.byTag[v]) : undefined)).toFixed(1);
    console.log(
      `\nmixed, by verb (medians): notify p50 ${verb("notify", (t) => t.p50)} ms, p99 ${verb("notify", (t) => t.p99)} ms; ask p50 ${verb("ask", (t) => t.p50)} ms, p99 ${verb("ask", (t) => t.p99)} ms`,
    );
  }
  const ratio = (k: string, base: string) =>
    rows[k] && rows[base] ? median(rows[k].map((s, i) => s.rps / rows[base]![i]!.rps)) : NaN;
  console.log(
    `\nthroughput / Next.js floor (median of per-run ratios): Redis ${ratio("redis", "floor").toFixed(2)}×, PostgreSQL only ${ratio("pg", "floor").toFixed(2)}×, via Next's router ${ratio("next", "floor").toFixed(2)}×`,
  );
  if (rows.mixed && rows.notify) {
    const per = (f: (s: Summary) => number | undefined) =>
      median(rows.mixed!.map((s, i) => (f(s) ?? NaN) / (f(rows.notify![i]!) ?? NaN))).toFixed(2);
    console.log(
      `mixed / notify only (median of per-run ratios): throughput ${per((s) => s.rps)}×, web CPU per submit ${per((s) => s.cpuPerReq)}×, PostgreSQL CPU per submit ${per((s) => s.pgCpuPerReq)}×`,
    );
  }
  console.log(
    `throughput / bare node: Redis ${ratio("redis", "bare").toFixed(2)}×, PostgreSQL only ${ratio("pg", "bare").toFixed(2)}×; floor / bare ${ratio("floor", "bare").toFixed(2)}×`,
  );
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
