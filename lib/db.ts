/**
 * The Prisma client (driver adapter on node-postgres), made on the first `db()` on the process's one
 * pool (lib/db-pool.ts, which holds the pool, `statementRows`, the transaction watcher and
 * `closeDb`). Importing this module loads Prisma's generated client; code that only runs owned
 * statements on the pool imports lib/db-pool.ts instead and never loads it (an `ma2h-hub` listing).
 * One client per process: it is kept on globalThis (by lib/db-pool.ts) because Next bundles and the
 * tsx-loaded server may each evaluate this module.
 */
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client";
import { clientOnPool, noteSecondConnection } from "./db-pool";

export { closeDb, poolStats, statementRows, type Tx } from "./db-pool";
export type Db = PrismaClient;

export function db(): PrismaClient {
  noteSecondConnection();
  return clientOnPool(
    (pool) =>
      // No query logging in any mode: queries carry `state` and envelopes (§9.6).
      // Prisma's interactive-transaction defaults (2 s to get a connection, 5 s to finish) turn a
      // burst of submits from one agent — serialised on its inbox-depth lock while holding pooled
      // connections — into 500s (P2028) on a busy box; queue instead, within bounds.
      new PrismaClient({
        adapter: new PrismaPg(pool),
        transactionOptions: { maxWait: 15_000, timeout: 20_000 },
      }),
  );
}
