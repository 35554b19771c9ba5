/**
 * The Prisma client (driver adapter on node-postgres). One per process: it is kept on globalThis
 * because Next bundles and the tsx-loaded server may each evaluate this module.
 */
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "./generated/prisma/client";
import { env } from "./env";

export type Db = PrismaClient;
export type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];

const KEY = Symbol.for("ma2h.db");
const POOL = Symbol.for("ma2h.db.pool");
type Holder = { [KEY]?: PrismaClient; [POOL]?: pg.Pool };

export function db(): PrismaClient {
  const g = globalThis as Holder;
  if (!g[KEY]) {
    // The pool is ours (not made inside the adapter) so that metrics can read its counts; the
    // adapter ends it on $disconnect.
    const pool = new pg.Pool({ connectionString: env().DATABASE_URL, max: 10 });
    g[POOL] = pool;
    // No query logging in any mode: queries carry `state` and envelopes (§9.6).
    // Prisma's interactive-transaction defaults (2 s to get a connection, 5 s to finish) turn a burst
    // of submits from one agent — serialised on its inbox-depth advisory lock while holding pooled
    // connections — into 500s (P2028) on a busy box; queue instead, within bounds.
    g[KEY] = new PrismaClient({
      adapter: new PrismaPg(pool, { disposeExternalPool: true }),
      transactionOptions: { maxWait: 15_000, timeout: 20_000 },
    });
  }
  return g[KEY];
}

/** This process's pool: connections open, idle, and queries waiting for one; null before first use. */
export function poolStats(): { total: number; idle: number; waiting: number } | null {
  const pool = (globalThis as Holder)[POOL];
  return pool ? { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount } : null;
}

export async function closeDb(): Promise<void> {
  const g = globalThis as Holder;
  const client = g[KEY];
  delete g[KEY];
  delete g[POOL];
  await client?.$disconnect();
}
