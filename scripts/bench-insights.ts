/**
 * `npm run bench:insights [-- --n 200000]`: the insights queries (lib/insights/insights.sql.ts) on a
 * large account. On a fresh scratch database: account `bench` with N messages (default 1,000,000)
 * spread over the last 180 days — 80 % asks, the rest tasks and notices; of the asks 85 % answered
 * (one in ten by a standing rule, the rest by 20 people, half of those with a recorded first
 * showing), 10 % expired, 5 % open — and a small account `other` of 10,000. Seeded with INSERT …
 * SELECT in chunks, then ANALYZE. Each statement runs once with EXPLAIN (ANALYZE, BUFFERS) for the
 * account (7 and 30 days) and for one person (30 days): its plan's node types and indexes, its
 * execution time and buffers, and the median of three plain runs. Figures are printed, never
 * asserted (docs/PERFORMANCE.md, "Insights"). BENCH_KEEP_DB=1 keeps the database and prints its URL.
 */
import { db } from "../lib/db";
import { Prisma } from "../lib/generated/prisma/client";
import { answerTimes, asksPerHour, expiredByAgent, rubberStamps } from "../lib/insights/insights.sql";
import { addUser } from "../lib/principals/users";
import { createTestDatabase } from "../test/support/database";
import { provisionAccount, releaseDatabase, useDatabase } from "../test/support/provision";
import { machine, percentile } from "./bench/lib";

const arg = process.argv.indexOf("--n");
const N = arg > 0 ? Number(process.argv[arg + 1]) : 1_000_000;
const CHUNK = 100_000;
const DAYS = 180;
const PEOPLE = 20;
const AGENTS = 12;

/**
 * Rows `offset+1 … offset+n` of `accountId`: message i is created (i − base)·(DAYS/total) before now. i % 10 < 8
 * are asks; of those, by i % 20: 0 expired, 1 open, else answered after (i % 3600) s, by
 * `system:rule/r1` when i % 10 = 7, else by human:p<i % PEOPLE>; every other human answer has a
 * first showing (i % 60) s before it.
 */
async function seed(
  accountId: string,
  agents: string[],
  memberships: string[],
  n: number,
  total: number,
  offset: number,
  base: number,
) {
  const step = (DAYS * 86_400) / total;
  await db().$executeRaw`
    INSERT INTO messages (id, account_id, agent_row_id, type, status, ma2h_version, envelope, title, priority, priority_rank,
                          project, created_at, status_changed_at, terminal_at)
    SELECT 'msg_b' || lpad(i::text, 9, '0'), ${accountId}, (${agents}::text[])[1 + i % ${agents.length}::int],
           CASE WHEN i % 10 < 8 THEN 'ask' WHEN i % 10 = 8 THEN 'task' ELSE 'notify' END,
           CASE WHEN i % 10 >= 8 THEN 'open' WHEN i % 20 = 0 THEN 'expired' WHEN i % 20 = 1 THEN 'open' ELSE 'answered' END,
           '0.5', '{}', 'bench ' || i,
           (ARRAY['urgent','high','normal','low'])[1 + (i * 7) % 4], ((i * 7) % 4)::smallint,
           CASE WHEN i % 9 = 0 THEN NULL ELSE 'proj-' || (i % 7) END,
           now() - make_interval(secs => (i - ${base}::int) * ${step}::float8), now(), NULL
    FROM generate_series(${offset + 1}::int, ${offset + n}::int) AS s(i)`;
  await db().$executeRaw`
    INSERT INTO resolutions (id, message_id, resolution, actor, defaulted, resolved_at)
    SELECT 'res_' || m.id, m.id, CASE WHEN m.status = 'expired' THEN 'expired' ELSE 'answered' END,
           CASE WHEN m.status = 'expired' THEN 'system:expiry'
                WHEN i % 10 = 7 THEN 'system:rule/r1' ELSE 'human:p' || (i % ${PEOPLE}::int) END,
           false, m.created_at + make_interval(secs => CASE WHEN m.status = 'expired' THEN 86400 ELSE i % 3600 END)
    FROM generate_series(${offset + 1}::int, ${offset + n}::int) AS s(i)
    JOIN messages m ON m.id = 'msg_b' || lpad(i::text, 9, '0')
    WHERE m.status IN ('answered', 'expired') AND m.account_id = ${accountId}`;
  await db().$executeRaw`
    INSERT INTO item_views (message_id, membership_id, first_shown_at)
    SELECT r.message_id, (${memberships}::text[])[1 + substr(r.actor, 8)::int], r.resolved_at - make_interval(secs => i % 60)
    FROM generate_series(${offset + 1}::int, ${offset + n}::int) AS s(i)
    JOIN resolutions r ON r.message_id = 'msg_b' || lpad(i::text, 9, '0')
    WHERE r.actor LIKE 'human:p%' AND i % 2 = 0`;
}

interface PlanNode {
  "Node Type": string;
  "Index Name"?: string;
  "Relation Name"?: string;
  Plans?: PlanNode[];
}

function nodes(p: PlanNode, out: string[] = []): string[] {
  const what = p["Index Name"] ?? p["Relation Name"];
  out.push(what ? `${p["Node Type"]} (${what})` : p["Node Type"]);
  for (const c of p.Plans ?? []) nodes(c, out);
  return out;
}

async function measure(label: string, sql: Prisma.Sql): Promise<void> {
  const [row] = await db().$queryRaw<Array<{ "QUERY PLAN": unknown }>>(
    Prisma.sql`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`,
  );
  const plan = (
    (row?.["QUERY PLAN"] ?? []) as Array<{
      Plan: PlanNode & { "Shared Hit Blocks": number; "Shared Read Blocks": number; "Temp Read Blocks"?: number };
      "Execution Time": number;
      "Planning Time": number;
    }>
  )[0];
  if (!plan) throw new Error("no plan");
  const runs: number[] = [];
  let rows = 0;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    rows = (await db().$queryRaw<unknown[]>(sql)).length;
    runs.push(performance.now() - t0);
  }
  const seqScans = nodes(plan.Plan).filter((n) => n.startsWith("Seq Scan"));
  console.log(
    `\n${label}: execution ${plan["Execution Time"].toFixed(1)} ms (planning ${plan["Planning Time"].toFixed(1)} ms), ` +
      `buffers hit ${plan.Plan["Shared Hit Blocks"]} read ${plan.Plan["Shared Read Blocks"]}` +
      `${plan.Plan["Temp Read Blocks"] ? ` temp ${plan.Plan["Temp Read Blocks"]}` : ""}; ` +
      `plain run median ${percentile(runs, 50).toFixed(1)} ms, ${rows} rows${seqScans.length ? `; SEQ SCANS: ${seqScans.join(", ")}` : ""}`,
  );
  console.log(`  ${[...new Set(nodes(plan.Plan))].join(" · ")}`);
}

async function main(): Promise<void> {
  console.log(`bench:insights — ${machine()} — ${N.toLocaleString("en")} messages`);
  const database = await createTestDatabase();
  try {
    await useDatabase(database.url);
    const agents = Array.from({ length: AGENTS }, (_, i) => `bench/agent-${i}`);
    await provisionAccount("bench", agents);
    await provisionAccount("other", ["other/agent"]);
    for (let p = 0; p < PEOPLE; p++) await addUser(`p${p}@bench.test`, "bench", `p${p}`, "member");
    const accounts = await db().account.findMany({ include: { agents: true } });
    const bench = accounts.find((a) => a.slug === "bench");
    const other = accounts.find((a) => a.slug === "other");
    if (!bench || !other) throw new Error("accounts not provisioned");
    const seats = await db().membership.findMany({
      where: { accountId: bench.id },
      select: { id: true, handle: true },
    });
    const memberships = Array.from({ length: PEOPLE }, (_, p) => seats.find((s) => s.handle === `p${p}`)?.id ?? "");
    const t0 = performance.now();
    const agentIds = bench.agents.map((a) => a.id);
    for (let off = 0; off < N; off += CHUNK) {
      await seed(bench.id, agentIds, memberships, Math.min(CHUNK, N - off), N, off, 0);
      process.stdout.write(
        `  seeded ${Math.min(off + CHUNK, N).toLocaleString("en")} (${((performance.now() - t0) / 1000).toFixed(0)} s)\r`,
      );
    }
    const otherIds = other.agents.map((a) => a.id);
    await seed(other.id, otherIds, memberships, 10_000, 10_000, N, N);
    await db().$executeRawUnsafe("VACUUM ANALYZE messages");
    await db().$executeRawUnsafe("VACUUM ANALYZE resolutions");
    await db().$executeRawUnsafe("VACUUM ANALYZE item_views");
    const counts = await db().$queryRaw<Array<{ m: number; r: number; v: number }>>`
      SELECT (SELECT count(*) FROM messages)::int AS m, (SELECT count(*) FROM resolutions)::int AS r,
             (SELECT count(*) FROM item_views)::int AS v`;
    console.log(
      `\nseeded ${counts[0]?.m} messages, ${counts[0]?.r} resolutions, ${counts[0]?.v} item views over ${DAYS} days in ${((performance.now() - t0) / 1000).toFixed(0)} s (VACUUM ANALYZE included)`,
    );

    const now = new Date();
    const since = (d: number) => new Date(now.getTime() - d * 86_400_000);
    for (const days of [7, 30]) {
      const from = since(days);
      await measure(`answerTimes, account, ${days} d`, answerTimes.sql(bench.id, from, now, null));
      await measure(`expiredByAgent, account, ${days} d`, expiredByAgent.sql(bench.id, from, now));
      await measure(`asksPerHour, account, ${days} d`, asksPerHour.sql(bench.id, from, now, null));
      await measure(`rubberStamps, account, ${days} d`, rubberStamps.sql(bench.id, from, now, null));
    }
    const from = since(30);
    await measure("answerTimes, one person, 30 d", answerTimes.sql(bench.id, from, now, "human:p3"));
    await measure("asksPerHour, one person, 30 d", asksPerHour.sql(bench.id, from, now, "human:p3"));
    await measure("rubberStamps, one person, 30 d", rubberStamps.sql(bench.id, from, now, "human:p3"));
    await measure("answerTimes, small account, 30 d", answerTimes.sql(other.id, from, now, null));
  } finally {
    await releaseDatabase();
    if (process.env.BENCH_KEEP_DB === "1") console.log(`\nkept: ${database.url}`);
    else await database.drop();
  }
}

main().catch((err: Error) => {
  console.error(err);
  process.exit(1);
});
