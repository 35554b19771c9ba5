/**
 * `npm run bench:scale`: does submit cost stay flat as the table grows, and what does a second web
 * process add? On one fresh database (Redis for rate counters, as in production):
 *   1. ~1k stored messages, one web process;
 *   2. BENCH_ROWS (default 1 000 000) stored messages — seeded with single INSERT … SELECT
 *      generate_series statements (messages, their audit events, idempotency records and
 *      resolutions), then VACUUM ANALYZE — one web process;
 *   3. the same large table, two web processes sharing the load.
 * Each phase is the bench:submit closed loop (64 connections, notify:ask 1:1, 64 agents) for
 * BENCH_SECONDS (default 15) after a 3 s warm-up; only 202s count. Needs `npm run build` first.
 */
import { join } from "node:path";
import { Redis } from "ioredis";
import pg from "pg";
import { AUDIT_EVENT } from "../lib/audit/events";
import { createTestDatabase } from "../test/support/database";
import { provisionAccount, releaseDatabase, useDatabase } from "../test/support/provision";
import {
  benchEnvelope,
  drive,
  fmt,
  logDir,
  machine,
  startWeb,
  summarize,
  type Summary,
  type Target,
  type WebProcess,
} from "./bench/lib";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const CONCURRENCY = 64;
const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379/11";
const ENV = { REDIS_URL, MA2H_RATE_LIMIT_PER_MINUTE: "1000000000", MA2H_INBOX_DEPTH: "1000000000" };

let pgDatabase = "";

async function phase(label: string, webs: WebProcess[], keys: string[], agents: string[]): Promise<Summary> {
  const tag = `${label.replace(/\W+/g, "")}${Date.now()}`;
  const targets: Target[] = webs.map((w) => ({ host: "127.0.0.1", port: w.port }));
  const r = await drive({
    targets,
    concurrency: CONCURRENCY,
    seconds: SECONDS,
    okStatus: 202,
    cpuPids: webs.map((w) => w.pid),
    pgDatabase,
    request: (w, seq) => ({
      method: "POST",
      path: "/v1/messages",
      headers: { authorization: `Bearer ${keys[w % keys.length]}`, "content-type": "application/json" },
      body: benchEnvelope(seq % 2 ? "ask" : "notify", agents[w % agents.length]!, seq, tag),
    }),
  });
  const s = summarize(r);
  console.log(`${label.padEnd(34)} ${fmt(s)}`);
  return s;
}

/**
 * Seeds `count` terminal messages spread over the benchmark's agents (half delivered notifies,
 * half answered asks with their resolution and idempotency record), each with one audit event:
 * what a Hub holds after weeks of traffic under a 30-day retention. Ids are unique per batch.
 */
async function seed(client: pg.Client, count: number, batch: string): Promise<void> {
  const p = `seed${batch}`;
  await client.query(
    `INSERT INTO messages (id, account_id, agent_row_id, type, status, ma2h_version, envelope, title, priority, sensitive,
       idempotency_key, created_at, status_changed_at, terminal_at)
     SELECT 'msg_${p}_' || g, a.account_id, a.id, CASE WHEN g % 2 = 0 THEN 'notify' ELSE 'ask' END,
       CASE WHEN g % 2 = 0 THEN 'delivered' ELSE 'answered' END, '0.5',
       '{"ma2h_version":"0.5","type":"ask","agent":{"id":"' || a.agent_id || '","run_id":"run_seed","runtime":"cli"},"title":"seeded ' || g || '","request":{"mode":"confirm"}}',
       'seeded ' || g, 'normal', false, CASE WHEN g % 2 = 1 THEN '${p}-' || g END,
       now() - (g % 2592000) * interval '1 second', now() - (g % 2592000) * interval '1 second', now() - (g % 2592000) * interval '1 second'
     FROM generate_series(1, $1::int) g
     JOIN (SELECT id, account_id, agent_id, row_number() OVER (ORDER BY id) - 1 AS n FROM agents) a ON a.n = g % (SELECT count(*) FROM agents)`,
    [count],
  );
  await client.query(
    `INSERT INTO resolutions (id, message_id, resolution, actor, defaulted, response, resolved_at)
     SELECT 'res_${p}_' || g, 'msg_${p}_' || g, 'answered', 'human:ops', false, '{"value":"ship"}', now()
     FROM generate_series(1, $1::int, 2) g`,
    [count],
  );
  await client.query(
    `INSERT INTO idempotency_records (agent_row_id, idempotency_key, payload_hash, message_id, created_at)
     SELECT m.agent_row_id, m.idempotency_key, md5(m.id), m.id, m.created_at FROM messages m
     WHERE m.id LIKE 'msg_${p}_%' AND m.idempotency_key IS NOT NULL`,
  );
  await client.query(
    `INSERT INTO audit_events (account_id, message_id, actor, event, detail, at)
     SELECT m.account_id, m.id, 'agent:seed', '${AUDIT_EVENT.messageSubmitted}', '{"type":"ask"}'::jsonb, m.created_at FROM messages m
     WHERE m.id LIKE 'msg_${p}_%'`,
  );
}

async function main(): Promise<void> {
  console.log(`bench:scale — ${machine()}`);
  console.log(
    `concurrency ${CONCURRENCY}, ${SECONDS} s per phase after a 3 s warm-up, notify:ask 1:1, 64 agents; logs in ${logDir()}`,
  );
  const database = await createTestDatabase();
  pgDatabase = new URL(database.url).pathname.slice(1);
  await useDatabase(database.url);
  const agents = Array.from({ length: 64 }, (_, i) => `scale/agent-${i}`);
  const { keys } = await provisionAccount("bench", agents);
  const keyList = agents.map((a) => keys[a]!);
  const redis = new Redis(REDIS_URL);
  await redis.flushdb();
  const sql = new pg.Client({ connectionString: database.url });
  await sql.connect();
  const count = async () => Number((await sql.query("SELECT count(*) AS n FROM messages")).rows[0].n);
  const webs: WebProcess[] = [];
  try {
    await seed(sql, 1000, "small");
    await sql.query("VACUUM ANALYZE");
    webs.push(await startWeb(database.url, ENV, join(logDir(), "scale-web-1.log")));
    const small = await phase(`1 web, ${(await count()).toLocaleString("en")} rows`, webs, keyList, agents);

    const t0 = Date.now();
    await seed(sql, ROWS - (await count()), "large");
    const seeded = (Date.now() - t0) / 1000;
    const t1 = Date.now();
    await sql.query("VACUUM ANALYZE");
    const size = (await sql.query("SELECT pg_size_pretty(pg_total_relation_size('messages')) AS s")).rows[0].s;
    console.log(
      `seeded to ${(await count()).toLocaleString("en")} messages in ${seeded.toFixed(0)} s (+ VACUUM ANALYZE ${((Date.now() - t1) / 1000).toFixed(0)} s); messages table with indexes: ${size}`,
    );
    const large = await phase(`1 web, ${(await count()).toLocaleString("en")} rows`, webs, keyList, agents);

    webs.push(await startWeb(database.url, ENV, join(logDir(), "scale-web-2.log")));
    const two = await phase(`2 webs, ${(await count()).toLocaleString("en")} rows`, webs, keyList, agents);

    console.log("");
    console.log(
      `large/small table throughput: ${(large.rps / small.rps).toFixed(2)}× (p50 ${(large.p50 / small.p50).toFixed(2)}×, p99 ${(large.p99 / small.p99).toFixed(2)}×)`,
    );
    console.log(`two/one web processes throughput: ${(two.rps / large.rps).toFixed(2)}×`);
  } finally {
    await Promise.all(webs.map((w) => w.stop()));
    await sql.end();
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
