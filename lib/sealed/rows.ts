/**
 * Reading and rewriting sealed values row by row, for the two paths that touch them all: the
 * start-up re-seal (reseal.ts) and the secret rotation (rotate.ts). Plain SQL over one client
 * (node-postgres; the statements are ./rows.sql.ts), so the caller's transaction and advisory lock
 * cover every statement.
 */
import type { SealContext } from "../secrets";
import { contextColumns, rowKeyContext, SEALED, type SealedColumn, sealContext, type SealPurpose } from "./catalogue";
import { readSealedValues, runBegin, runCommit, runReplaceSealedValue, runRollback, type SqlClient } from "./rows.sql";

export interface SealedRow {
  purpose: SealPurpose;
  ctx: SealContext;
  /** The row key's columns and values: what identifies the row to rewrite. */
  key: ReadonlyArray<readonly [column: string, value: string]>;
  /** For a `boundTo` purpose: the context before the parent's columns joined it (re-seal only). */
  rowKeyCtx: SealContext | null;
  value: string;
  /** Names the row for messages: table, column and identifying values (never the value). */
  label: string;
}

/** The values of `purpose` (only old-format ones with `legacyOnly`), locked until the transaction ends. */
export async function lockedRows(client: SqlClient, purpose: SealPurpose, legacyOnly: boolean): Promise<SealedRow[]> {
  const entry: SealedColumn = SEALED[purpose];
  const { table, column, rowKey, boundTo } = entry;
  const rows = await readSealedValues(client, purpose, legacyOnly);
  return rows.map((r) => {
    const row = Object.fromEntries(contextColumns(purpose).map((c) => [c, String(r[c])]));
    const ctx = sealContext(purpose, row as never);
    const key = rowKey.map((c) => [c, String(r[c])] as const);
    const ids = key.map(([c, v]) => `${c}=${v}`).join(", ");
    const rowKeyCtx = boundTo ? rowKeyContext(purpose, row) : null;
    return { purpose, ctx, key, rowKeyCtx, value: String(r.value), label: `${table}.${column} (${ids})` };
  });
}

/** Replaces one row's value; the old value in the WHERE makes a concurrent change visible (0 rows). */
export async function replaceValue(client: SqlClient, row: SealedRow, sealed: string): Promise<void> {
  const replaced = await runReplaceSealedValue(
    client,
    row.purpose,
    sealed,
    row.value,
    row.key.map(([, v]) => v),
  );
  if (!replaced) throw new Error(`sealed value ${row.label} changed while being re-sealed`);
}

/** Runs `fn` in one transaction on `client`: all of it commits, or none of it. */
export async function inTransaction<T>(client: SqlClient, fn: () => Promise<T>): Promise<T> {
  await runBegin(client);
  try {
    const out = await fn();
    await runCommit(client);
    return out;
  } catch (err) {
    await runRollback(client).catch(() => {});
    throw err;
  }
}
