/**
 * The process's one node-postgres pool — beneath the Prisma client (lib/db.ts) and under the single
 * statements that skip it (`statementRows`) — obtainable without loading Prisma: nothing here imports
 * the generated client or its runtime but its types. A process that only reads through owned
 * statements (an `ma2h-hub` listing) never loads, nor compiles, Prisma's query compiler; lib/db.ts
 * makes the client on the first `db()`, on this same pool. Kept on globalThis because Next bundles
 * and the tsx-loaded server may each evaluate this module.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import pg from "pg";
import type { Prisma, PrismaClient } from "./generated/prisma/client";
import { env } from "./env";
import { log } from "./log";
import { processWide } from "./process-wide";

export type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];

/** The name cli/ma2h-hub.ts asks `hasProcessWide` about: set once the pool (and maybe the client) exists. */
const KEY = Symbol.for("ma2h.db");
type Held = { pool: pg.Pool; client?: PrismaClient };
type Holder = { [KEY]?: Held };
/** Process-wide like the client: the module that wraps `$transaction` may not be the one a caller's `db()` is in. */
const TX_KEY = Symbol.for("ma2h.db.transaction");
type TxHolder = { [TX_KEY]?: AsyncLocalStorage<{ open: boolean }> };

function held(): Held {
  const g = globalThis as Holder;
  if (!g[KEY]) {
    // One pool for both: the client's queries and the single statements (statementRows) share its
    // connections and its bound; it is ours, so metrics read its counts (poolStats). Code inside a
    // transaction reads through its `tx` only: a second connection taken while one is held
    // deadlocks the pool once every connection is held by a transaction waiting for another.
    const pool = new pg.Pool({ connectionString: env().DATABASE_URL, max: env().MA2H_DATABASE_POOL_MAX });
    // An idle pooled connection the server ends (a PostgreSQL restart, a terminated backend, a
    // dropped database) emits `error` on the pool; with no listener that is an uncaught exception
    // that ends the process. Prisma's adapter listens only while it is connected (not before its
    // first query, not after $disconnect), and statementRows uses the pool directly: listen always.
    // The pool drops the connection and opens a new one on the next query.
    pool.on("error", (err) =>
      log.warn("an idle database connection was closed by the server", { error_name: err.name }),
    );
    g[KEY] = { pool };
  }
  return g[KEY];
}

/**
 * The Prisma client on this process's pool: made by `make` on the first call (lib/db.ts, which alone
 * loads Prisma), with its transactions watched, and the same one for every copy of lib/ after.
 */
export function clientOnPool(make: (pool: pg.Pool) => PrismaClient): PrismaClient {
  const h = held();
  if (!h.client) {
    const client = make(h.pool);
    watchTransactions(client);
    h.client = client;
  }
  return h.client;
}

/**
 * The deadlock the pool bound invites: code inside an interactive transaction (which holds one
 * pooled connection) that takes another — a read through `db()` or `statementRows` without its
 * `tx`, a nested `$transaction` — waits for a free connection; under a burst every connection is
 * held by such a transaction and none is ever freed, until the transaction timeout answers 500
 * (P2028). Each such call is logged as an error with where it came from, whatever the load, so a
 * test (test/pool-bursts.test.ts) or an operator sees the path before a burst finds it.
 */
(globalThis as TxHolder)[TX_KEY] ??= new AsyncLocalStorage();
const insideTransaction = (globalThis as TxHolder)[TX_KEY] as AsyncLocalStorage<{ open: boolean }>;

function watchTransactions(client: PrismaClient): void {
  const transaction = client.$transaction.bind(client) as (...args: unknown[]) => Promise<unknown>;
  // biome-ignore lint/suspicious/noExplicitAny: the overloads of $transaction, passed through unchanged
  (client as any).$transaction = (arg: unknown, ...rest: unknown[]) => {
    if (typeof arg !== "function") return transaction(arg, ...rest);
    return transaction(
      async (tx: Tx) => {
        // Closed when the callback ends: work it started that outlives it is not inside.
        const scope = { open: true };
        try {
          return await insideTransaction.run(scope, () => (arg as (tx: Tx) => Promise<unknown>)(tx));
        } finally {
          scope.open = false;
        }
      },
      ...rest,
    );
  };
}

/** Logs a pooled connection taken inside an open transaction (see above), with where it came from. */
export function noteSecondConnection(): void {
  if (!insideTransaction.getStore()?.open) return;
  log.error("a second pooled connection taken inside a transaction: read through its tx", {
    at: callerOutsideDb(new Error().stack ?? ""),
  });
}

/** The first stack frames outside lib/db.ts, this module and node_modules: file and line only. */
function callerOutsideDb(stack: string): string {
  return stack
    .split("\n")
    .slice(1)
    .map((line) => line.trim().replace(/^at /, ""))
    .filter((line) => !/node_modules|node:|lib\/db(-pool)?\.ts/.test(line))
    .slice(0, 3)
    .join(" < ");
}

/** This process's pool: connections open, idle, and queries waiting for one; null before first use. */
export function poolStats(): { total: number; idle: number; waiting: number } | null {
  const pool = (globalThis as Holder)[KEY]?.pool;
  return pool ? { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount } : null;
}

/**
 * Runs one parameterized statement — built with Prisma's `sql` tag, so every value travels as a
 * parameter — straight on the pool, or on `tx` inside the caller's transaction. The hot paths
 * (submit, the §7 CAS) are a single statement each; on the pool they skip the client's per-query
 * work, which costs several times the statement's own CPU and about a millisecond of latency
 * (docs/PERFORMANCE.md). Without `tx` it never makes the client. Rows come back as node-postgres
 * types: int8 and numeric as strings, so such statements cast what they return.
 */
export async function statementRows<T>(query: Prisma.Sql, tx?: Tx): Promise<T[]> {
  if (tx) return tx.$queryRaw<T[]>(query);
  noteSecondConnection();
  const result = await held().pool.query({ name: statementName(query.text), text: query.text, values: query.values });
  return result.rows as T[];
}

/**
 * A name per statement text, so each pooled connection prepares it once and PostgreSQL stops
 * parsing and planning it on every call (the submit statement's planning cost about as much as
 * its writes). The texts are the few fixed statements of lib/ — values are always parameters — so
 * the map stays small. Named by a hash of the text: this module may be evaluated twice in one process
 * (see above) over one pool, and a name must never stand for two texts on a connection.
 */
const names = () => processWide("ma2h.statement-names", () => new Map<string, string>());
function statementName(text: string): string {
  let name = names().get(text);
  if (!name) {
    name = `ma2h_${createHash("sha256").update(text).digest("hex").slice(0, 32)}`;
    names().set(text, name);
  }
  return name;
}

/** Closes what this process opened: the Prisma client if one was made, then the pool. */
export async function closeDb(): Promise<void> {
  const g = globalThis as Holder;
  const h = g[KEY];
  delete g[KEY];
  if (!h) return;
  await h.client?.$disconnect();
  await h.pool.end().catch(() => {});
}
