/**
 * `npm run bench:inbox`: server time of the inbox list with 10 000 open items. On a fresh test
 * database: one account with 10 000 open asks/tasks (one INSERT … SELECT) plus 2 000 terminal ones,
 * a second account with 200, and one person seated in both. Times `listInbox` (the page and every
 * facet count, as /inbox renders them) for the first page, the next page (keyset), and filtered pages,
 * ROUNDS times each after a warm-up; prints p50/p99 and the plan of the open-items page query.
 * Figures are printed, never asserted (docs/PERFORMANCE.md, "Inbox"). BENCH_ROUNDS sets the rounds;
 * BENCH_KEEP_DB=1 keeps the seeded database and prints its URL.
 */
import { Prisma } from "../lib/generated/prisma/client";
import { db } from "../lib/db";
import { listInbox, PAGE_SIZE } from "../lib/inbox/list";
import { openPage } from "../lib/inbox/list.sql";
import type { InboxFilters } from "../lib/inbox/filters";
import { addUser } from "../lib/principals/users";
import { createTestDatabase } from "../test/support/database";
import { provisionAccount, releaseDatabase, useDatabase } from "../test/support/provision";
import { machine, percentile } from "./bench/lib";

const OPEN = 10_000;
const CLOSED = 2_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
const WARMUP = 20;

/** One INSERT … SELECT: `n` rows for `account`, cycling agents, priorities, projects, tags and words. */
async function seed(
  accountId: string,
  agentRowIds: string[],
  n: number,
  status: "open" | "answered",
  offset: number,
): Promise<void> {
  await db().$executeRaw`
    INSERT INTO messages (id, account_id, agent_row_id, type, status, ma2h_version, envelope, title, priority, priority_rank,
                          project, tags, idempotency_key, created_at, status_changed_at, terminal_at)
    SELECT 'msg_bench' || lpad((${offset}::int + i)::text, 8, '0'), ${accountId},
           (${agentRowIds}::text[])[1 + i % ${agentRowIds.length}::int],
           CASE WHEN i % 5 = 0 THEN 'task' ELSE 'ask' END, ${status}, '0.5',
           jsonb_build_object(
             'ma2h_version', '0.5', 'type', CASE WHEN i % 5 = 0 THEN 'task' ELSE 'ask' END,
             'created_at', '2026-12-01T12:00:00Z',
             'agent', jsonb_build_object('id', 'bench/agent-' || (i % ${agentRowIds.length}::int), 'run_id', 'run_' || i, 'runtime', 'cli', 'project', 'proj-' || (i % 7)),
             'title', (ARRAY['Deploy','Rotate key for','Approve migration of','Review release of'])[1 + i % 4] || ' service-' || (i % 997),
             'priority', (ARRAY['urgent','high','normal','low'])[1 + (i * 7) % 4],
             'tags', jsonb_build_array('team-' || (i % 13), CASE WHEN i % 2 = 0 THEN 'release' ELSE 'ops' END),
             'idempotency_key', 'bench-' || i,
             'request', jsonb_build_object('mode', 'confirm'),
             'action', jsonb_build_object('instructions', 'Do it')
           ) - CASE WHEN i % 5 = 0 THEN 'request' ELSE 'action' END,
           (ARRAY['Deploy','Rotate key for','Approve migration of','Review release of'])[1 + i % 4] || ' service-' || (i % 997),
           (ARRAY['urgent','high','normal','low'])[1 + (i * 7) % 4], ((i * 7) % 4)::smallint,
           'proj-' || (i % 7), ARRAY['team-' || (i % 13), CASE WHEN i % 2 = 0 THEN 'release' ELSE 'ops' END],
           'bench-' || (${offset}::int + i),
           now() - make_interval(secs => i), now() - make_interval(secs => i),
           CASE WHEN ${status} = 'open' THEN NULL ELSE now() END
    FROM generate_series(1, ${n}::int) AS s(i)`;
}

async function time(
  label: string,
  userId: string,
  filters: InboxFilters,
  after: () => string | null = () => null,
): Promise<void> {
  const run = async () => {
    const t0 = performance.now();
    const page = await listInbox(userId, filters, { after: after() });
    return { ms: performance.now() - t0, page };
  };
  for (let i = 0; i < WARMUP; i++) await run();
  const samples: number[] = [];
  let last = await run();
  for (let i = 0; i < ROUNDS; i++) {
    last = await run();
    samples.push(last.ms);
  }
  const p50 = percentile(samples, 50).toFixed(1);
  const p99 = percentile(samples, 99).toFixed(1);
  console.log(
    `${label.padEnd(44)} p50 ${p50.padStart(6)} ms   p99 ${p99.padStart(6)} ms   (${last.page.rows.length} rows of ${last.page.total})`,
  );
}

async function timeSql(label: string, sql: Prisma.Sql): Promise<void> {
  const samples: number[] = [];
  for (let i = 0; i < WARMUP + ROUNDS; i++) {
    const t0 = performance.now();
    await db().$queryRaw(sql);
    if (i >= WARMUP) samples.push(performance.now() - t0);
  }
  console.log(
    `${label.padEnd(44)} p50 ${percentile(samples, 50).toFixed(1).padStart(6)} ms   p99 ${percentile(samples, 99).toFixed(1).padStart(6)} ms`,
  );
}

async function main(): Promise<void> {
  console.log(`bench:inbox — ${machine()}`);
  const database = await createTestDatabase();
  try {
    await useDatabase(database.url);
    const agents = Array.from({ length: 8 }, (_, i) => `bench/agent-${i}`);
    await provisionAccount("bench", agents);
    await provisionAccount("small", ["small/agent"]);
    const userId = (await addUser("reader@bench.test", "bench", "reader", "member")).userId;
    await addUser("reader@bench.test", "small", "reader", "member");
    const accounts = await db().account.findMany({ include: { agents: true } });
    const bench = accounts.find((a) => a.slug === "bench")!;
    const small = accounts.find((a) => a.slug === "small")!;
    const t0 = performance.now();
    await seed(
      bench.id,
      bench.agents.map((a) => a.id),
      OPEN,
      "open",
      0,
    );
    await seed(
      bench.id,
      bench.agents.map((a) => a.id),
      CLOSED,
      "answered",
      OPEN,
    );
    await seed(
      small.id,
      small.agents.map((a) => a.id),
      200,
      "open",
      OPEN + CLOSED,
    );
    await db().$executeRawUnsafe("ANALYZE messages");
    const trgm = await db().$queryRaw<
      Array<{ n: bigint }>
    >`SELECT count(*) AS n FROM pg_indexes WHERE indexname = 'messages_title_trgm_idx'`;
    console.log(
      `seeded ${OPEN} open + ${CLOSED} answered (account bench) + 200 open (account small) in ${(performance.now() - t0).toFixed(0)} ms; trigram index: ${trgm[0]?.n ? "yes" : "no"}`,
    );
    console.log(
      `listInbox = the page (${PAGE_SIZE} rows, keyset) + faceted counts (two scans), ${ROUNDS} rounds after ${WARMUP} warm-up`,
    );

    const first = await listInbox(userId, {});
    await time("first page, both accounts", userId, {});
    await time("next page (keyset cursor)", userId, {}, () => first.next);
    await time("one account selected", userId, { account: "bench" });
    await time("filtered: verb=task priority=high", userId, { verb: "task", priority: "high" });
    await time("filtered: project=proj-3 tag=release", userId, { project: "proj-3", tag: "release" });
    await time('search: q="service-42"', userId, { q: "service-42" });
    await time('filtered: agent + search "migration"', userId, { agent: "bench/agent-2", q: "migration" });
    await timeSql("the page query alone (first page)", openPage.sql([bench.id, small.id], {}, null, PAGE_SIZE + 1));
    await timeSql(
      "the page query alone (verb=task priority=high)",
      openPage.sql([bench.id, small.id], { verb: "task", priority: "high" }, null, PAGE_SIZE + 1),
    );

    const plan = await db().$queryRaw<Array<{ "QUERY PLAN": string }>>(
      Prisma.sql`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${openPage.sql([bench.id, small.id], {}, null, PAGE_SIZE + 1)}`,
    );
    console.log("\nplan of the open-items page query (first page, both accounts):");
    for (const row of plan) console.log(`  ${row["QUERY PLAN"]}`);
  } finally {
    await releaseDatabase();
    // BENCH_KEEP_DB=1 leaves the seeded database for EXPLAIN in psql.
    if (process.env.BENCH_KEEP_DB === "1") console.log(`\nkept: ${database.url}`);
    else await database.drop();
  }
}

main().catch((err: Error) => {
  console.error(err);
  process.exit(1);
});
