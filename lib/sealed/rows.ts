/**
 * Reading and rewriting sealed values row by row, for the two paths that touch them all: the
 * start-up re-seal (reseal.ts) and the secret rotation (rotate.ts). Plain SQL over one client
 * (node-postgres), so the caller's transaction and advisory lock cover every statement; table and
 * column names come only from the catalogue, never from input.
 */
import type { SealContext } from "../secrets";
import { contextColumns, rowKeyContext, SEALED, type SealedColumn, sealContext, type SealPurpose } from "./catalogue";

/** What both paths need of a database client: node-postgres' `pg.Client` fits. */
export interface SqlClient {
  query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

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

const ident = (name: string) => `"${name}"`;

/** The values of `purpose` (only old-format ones with `legacyOnly`), locked until the transaction ends. */
export async function lockedRows(client: SqlClient, purpose: SealPurpose, legacyOnly: boolean): Promise<SealedRow[]> {
  const entry: SealedColumn = SEALED[purpose];
  const { table, column, rowKey, boundTo } = entry;
  const keys = rowKey.map((c) => `t.${ident(c)}`).join(", ");
  const parent = boundTo ? boundTo.columns.map((c) => `, p.${ident(c)}`).join("") : "";
  const join = boundTo ? ` JOIN ${ident(boundTo.table)} p ON p."id" = t.${ident(boundTo.via)}` : "";
  const filter = legacyOnly ? `t.${ident(column)} LIKE 'v1.%'` : `t.${ident(column)} IS NOT NULL`;
  const { rows } = await client.query(
    `SELECT ${keys}${parent}, t.${ident(column)} AS value FROM ${ident(table)} t${join}
      WHERE ${filter} ORDER BY ${keys} FOR UPDATE OF t`,
  );
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
  const { table, column } = SEALED[row.purpose];
  const where = row.key.map(([c], i) => `${ident(c)} = $${i + 3}`).join(" AND ");
  const { rows } = await client.query(
    `UPDATE ${ident(table)} SET ${ident(column)} = $1 WHERE ${ident(column)} = $2 AND ${where} RETURNING 1 AS ok`,
    [sealed, row.value, ...row.key.map(([, v]) => v)],
  );
  if (rows.length !== 1) throw new Error(`sealed value ${row.label} changed while being re-sealed`);
}

/** Runs `fn` in one transaction on `client`: all of it commits, or none of it. */
export async function inTransaction<T>(client: SqlClient, fn: () => Promise<T>): Promise<T> {
  await client.query("BEGIN");
  try {
    const out = await fn();
    await client.query("COMMIT");
    return out;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  }
}
