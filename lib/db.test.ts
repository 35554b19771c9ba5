/**
 * The pool beneath the Prisma client (lib/db.ts, lib/db-pool.ts) against a real PostgreSQL: one pool
 * that statementRows uses without making the client and the client is made on; its size is
 * MA2H_DATABASE_POOL_MAX, and a second pooled connection taken inside a transaction — the pattern
 * that deadlocks the pool under a burst — is logged as an error wherever it happens, while reads
 * through the transaction's own `tx`, and work that merely started inside it, are not.
 */
// covers: lib/db.ts, lib/db-pool.ts
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { useTestDatabase } from "../test/support/test-database";
import pg from "pg";
import { closeDb, db, poolStats, statementRows } from "./db";
import { Prisma } from "./generated/prisma/client";
import { resetEnvCache } from "./env";
import { waitFor } from "../test/support/wait";

useTestDatabase();

let lines: string[] = [];
beforeAll(async () => {
  await closeDb();
  process.env.MA2H_DATABASE_POOL_MAX = "2";
  resetEnvCache();
});
afterEach(() => {
  vi.restoreAllMocks();
  process.env.LOG_LEVEL = "silent";
});

function captureErrors(): void {
  lines = [];
  process.env.LOG_LEVEL = "error";
  const write = process.stderr.write.bind(process.stderr);
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = String(chunk);
    if (text.includes('"level":"error"')) {
      lines.push(text);
      return true;
    }
    return (write as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
  });
}
const secondConnections = () =>
  lines.filter((l) => l.includes("a second pooled connection taken inside a transaction"));

describe("the database pool", () => {
  it("holds at most MA2H_DATABASE_POOL_MAX connections, queueing the rest", async () => {
    await Promise.all(Array.from({ length: 12 }, () => db().$queryRaw`SELECT 1 AS one FROM pg_sleep(0.05)`));
    expect(poolStats()?.total).toBeLessThanOrEqual(2);
  });

  it("logs a read through db() inside a transaction, with where it came from", async () => {
    captureErrors();
    await db().$transaction(async (tx) => {
      await tx.account.count();
      await db().account.count();
    });
    expect(secondConnections()).toHaveLength(1);
    expect(JSON.parse(secondConnections()[0] as string).at).toMatch(/db\.test\.ts/);
    // A nested transaction is one too.
    await db().$transaction(async () => {
      await db().$transaction(async (inner) => inner.account.count());
    });
    expect(secondConnections()).toHaveLength(2);
  });

  it("logs nothing for reads through tx, nor for work the transaction left running", async () => {
    captureErrors();
    let later: Promise<unknown> = Promise.resolve();
    await db().$transaction(async (tx) => {
      await tx.account.count();
      await tx.$queryRaw`SELECT 1`;
      later = new Promise((ok) => setTimeout(ok, 20)).then(() => db().account.count());
    });
    await later;
    await db().account.count();
    expect(secondConnections()).toEqual([]);
  });

  it("runs statementRows on the pool without making the Prisma client; db() makes it on that same pool", async () => {
    await closeDb();
    const held = () =>
      (globalThis as unknown as Record<symbol, { pool: pg.Pool; client?: unknown } | undefined>)[Symbol.for("ma2h.db")];
    const [first] = await statementRows<{ pid: number }>(Prisma.sql`SELECT pg_backend_pid() AS pid`);
    expect(held()?.client).toBeUndefined();
    const pool = held()?.pool;
    expect(poolStats()).toEqual({ total: 1, idle: 1, waiting: 0 });
    // The client's adapter takes the pool's one idle connection: the same backend.
    const [viaClient] = await db().$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
    expect(held()?.client).toBeDefined();
    expect(held()?.pool).toBe(pool);
    expect(viaClient?.pid).toBe(first?.pid);
    await closeDb();
    expect(held()).toBeUndefined();
    expect(pool?.ended).toBe(true);
  });

  it("survives the server ending an idle pooled connection (a restart, a terminated backend) and reconnects", async () => {
    await closeDb(); // a fresh pool: only statementRows has used it, Prisma has not connected
    const [row] = await statementRows<{ pid: number }>(Prisma.sql`SELECT pg_backend_pid() AS pid`);
    const pid = row?.pid;
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.prependListener("uncaughtException", onUncaught);
    try {
      const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await admin.connect();
      await admin.query("SELECT pg_terminate_backend($1)", [pid]);
      await admin.end();
      // The idle client's error arrives: the pool drops that connection (and emits `error`).
      await waitFor(() => poolStats()?.total === 0, { what: "the pool to drop the terminated connection" });
      expect(uncaught).toEqual([]);
      const [again] = await statementRows<{ one: number }>(Prisma.sql`SELECT 1 AS one`);
      expect(again?.one).toBe(1);
    } finally {
      process.removeListener("uncaughtException", onUncaught);
    }
  });
});
