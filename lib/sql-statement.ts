/**
 * A hand-written SQL statement with its owner's name and the arguments a test plans it with. Every
 * raw statement of the Hub is built by one of these, in a `<verb>.sql.ts` file beside the verb that
 * runs it (docs/ARCHITECTURE.md, "Hand SQL"); test/sql-statements.test.ts imports every such file and
 * runs `EXPLAIN` on each exported statement with each sample against the migrated schema, so a
 * statement that names a column or table the migrations do not create fails in seconds, not in the
 * one slow test that happens to reach it.
 */
import type { Prisma } from "./generated/prisma/client";

const BRAND = "ma2h.sql-statement";

export interface Statement<A extends unknown[]> {
  readonly kind: typeof BRAND;
  /** What it does, in a few words (test names, logs). */
  readonly name: string;
  /** The statement for these arguments: every value travels as a parameter. */
  sql(...args: A): Prisma.Sql;
  /**
   * Representative arguments, one list per shape the statement takes (a dynamic statement lists one
   * per branch), or why it cannot be planned (`EXPLAIN` takes SELECT/INSERT/UPDATE/DELETE only: DDL,
   * `LOCK`, `SET` and `LISTEN` say so here).
   */
  readonly samples: readonly A[] | { readonly unplanned: string };
}

export function statement<A extends unknown[]>(
  name: string,
  build: (...args: A) => Prisma.Sql,
  samples: readonly A[] | { readonly unplanned: string },
): Statement<A> {
  return { kind: BRAND, name, sql: build, samples };
}

export function isStatement(value: unknown): value is Statement<unknown[]> {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === BRAND;
}
