/**
 * The statements behind lib/sealed/rows.ts, on one node-postgres client (not the Prisma pool), so the
 * caller's transaction and advisory lock cover every one. Table and column names come only from the
 * catalogue, never from input. Built with Prisma's `sql` tag from @prisma/client-runtime-utils (the
 * tag `Prisma.sql` re-exports): the migration runner and the hub's supervisor, which run the start-up
 * re-seal, never load the Prisma client, and would pay a third of a second to load it for a tag.
 */
import { join, raw, sql } from "@prisma/client-runtime-utils";
import { SEAL_PURPOSES, SEALED, type SealedColumn, type SealPurpose } from "./catalogue";
import { statement } from "../sql-statement";

/** What the statements need of a database client: node-postgres' `pg.Client` fits. */
export interface SqlClient {
  query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

const ident = (name: string) => `"${name}"`;

export const sealedValues = statement(
  "every sealed value of a purpose (only old-format ones, or all), with its context columns, locked",
  (purpose: SealPurpose, legacyOnly: boolean) => {
    const entry: SealedColumn = SEALED[purpose];
    const { table, column, rowKey, boundTo } = entry;
    const keys = rowKey.map((c) => `t.${ident(c)}`).join(", ");
    const parent = boundTo ? boundTo.columns.map((c) => `, p.${ident(c)}`).join("") : "";
    const join = boundTo ? ` JOIN ${ident(boundTo.table)} p ON p."id" = t.${ident(boundTo.via)}` : "";
    const filter = legacyOnly ? `t.${ident(column)} LIKE 'v1.%'` : `t.${ident(column)} IS NOT NULL`;
    // Names only, from the catalogue: no value reaches the text.
    return raw(`SELECT ${keys}${parent}, t.${ident(column)} AS value FROM ${ident(table)} t${join}
      WHERE ${filter} ORDER BY ${keys} FOR UPDATE OF t`);
  },
  // Each purpose, with each filter.
  SEAL_PURPOSES.flatMap((p): [SealPurpose, boolean][] => [
    [p, false],
    [p, true],
  ]),
);

export async function readSealedValues(
  client: SqlClient,
  purpose: SealPurpose,
  legacyOnly: boolean,
): Promise<Record<string, unknown>[]> {
  const q = sealedValues.sql(purpose, legacyOnly);
  const { rows } = await client.query(q.text, q.values);
  return rows;
}

/** The old value in the WHERE makes a concurrent change visible (0 rows). */
export const replaceSealedValue = statement(
  "replace one sealed value, if it is still the one read",
  (purpose: SealPurpose, sealed: string, old: string, keyValues: string[]) => {
    const { table, column, rowKey } = SEALED[purpose];
    const where = join(
      rowKey.map((c, i) => sql`${raw(ident(c))} = ${keyValues[i]}`),
      " AND ",
    );
    return sql`UPDATE ${raw(ident(table))} SET ${raw(ident(column))} = ${sealed} WHERE ${raw(ident(column))} = ${old} AND ${where} RETURNING 1 AS ok`;
  },
  SEAL_PURPOSES.map((p): [SealPurpose, string, string, string[]] => [
    p,
    "v2.new",
    "v2.old",
    SEALED[p].rowKey.map(() => "1"),
  ]),
);

/** Whether the row still held `old` (and now holds `sealed`). */
export async function runReplaceSealedValue(
  client: SqlClient,
  purpose: SealPurpose,
  sealed: string,
  old: string,
  keyValues: string[],
): Promise<boolean> {
  const q = replaceSealedValue.sql(purpose, sealed, old, keyValues);
  const { rows } = await client.query(q.text, q.values);
  return rows.length === 1;
}

const NOT_PLANNED = { unplanned: "transaction control, which EXPLAIN does not take" };
export const begin = statement("begin a transaction", () => sql`BEGIN`, NOT_PLANNED);
export const commit = statement("commit the transaction", () => sql`COMMIT`, NOT_PLANNED);
export const rollback = statement("roll the transaction back", () => sql`ROLLBACK`, NOT_PLANNED);

export async function runBegin(client: SqlClient): Promise<void> {
  await client.query(begin.sql().text);
}

export async function runCommit(client: SqlClient): Promise<void> {
  await client.query(commit.sql().text);
}

export async function runRollback(client: SqlClient): Promise<void> {
  await client.query(rollback.sql().text);
}
