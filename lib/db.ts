/**
 * The Prisma client (driver adapter on node-postgres) and the pool beneath it. One per process: it is
 * kept on globalThis because Next bundles and the tsx-loaded server may each evaluate this module.
 */
import { createHash } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { type Prisma, PrismaClient } from "./generated/prisma/client";
import { env } from "./env";

export type Db = PrismaClient;
export type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];

const KEY = Symbol.for("ma2h.db");
type Holder = { [KEY]?: { client: PrismaClient; pool: pg.Pool } };

function state(): { client: PrismaClient; pool: pg.Pool } {
  const g = globalThis as Holder;
  if (!g[KEY]) {
    // One pool for both: the client's queries and the hot paths' single statements (statementRows)
    // share its connections and its bound; it is ours, so metrics read its counts (poolStats).
    const pool = new pg.Pool({ connectionString: env().DATABASE_URL, max: 10 });
    // No query logging in any mode: queries carry `state` and envelopes (§9.6).
    // Prisma's interactive-transaction defaults (2 s to get a connection, 5 s to finish) turn a burst
    // of submits from one agent — serialised on its inbox-depth lock while holding pooled
    // connections — into 500s (P2028) on a busy box; queue instead, within bounds.
    const client = new PrismaClient({
      adapter: new PrismaPg(pool),
      transactionOptions: { maxWait: 15_000, timeout: 20_000 },
    });
    g[KEY] = { client, pool };
  }
  return g[KEY];
}

export function db(): PrismaClient {
  return state().client;
}

/** This process's pool: connections open, idle, and queries waiting for one; null before first use. */
export function poolStats(): { total: number; idle: number; waiting: number } | null {
  const pool = (globalThis as Holder)[KEY]?.pool;
  return pool ? { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount } : null;
}

/**
 * Runs one parameterized statement — built with Prisma.sql, so every value travels as a parameter —
 * straight on the pool, or on `tx` inside the caller's transaction. The hot paths (submit, the §7
 * CAS) are a single statement each; on the pool they skip the client's per-query work, which costs
 * several times the statement's own CPU and about a millisecond of latency (docs/PERFORMANCE.md,
 * #20). Rows come back as node-postgres types: int8 and numeric as strings, so such statements
 * cast what they return.
 */
export async function statementRows<T>(query: Prisma.Sql, tx?: Tx): Promise<T[]> {
  if (tx) return tx.$queryRaw<T[]>(query);
  const result = await state().pool.query({ name: statementName(query.text), text: query.text, values: query.values });
  return result.rows as T[];
}

/**
 * A name per statement text, so each pooled connection prepares it once and PostgreSQL stops
 * parsing and planning it on every call (#20: the submit statement's planning cost about as much as
 * its writes). The texts are the few fixed statements of lib/ — values are always parameters — so
 * the map stays small. Named by a hash of the text: this module may be evaluated twice in one process
 * (see above) over one pool, and a name must never stand for two texts on a connection.
 */
const names = new Map<string, string>();
function statementName(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `ma2h_${createHash("sha256").update(text).digest("hex").slice(0, 32)}`;
    names.set(text, name);
  }
  return name;
}

export async function closeDb(): Promise<void> {
  const g = globalThis as Holder;
  const held = g[KEY];
  delete g[KEY];
  if (!held) return;
  await held.client.$disconnect();
  await held.pool.end().catch(() => {});
}
