/**
 * The statements behind server/embedded-db.ts, on its admin connection to the embedded server's
 * `postgres` database. The tag is Prisma's from @prisma/client-runtime-utils, as in
 * ./migrate.sql.ts: the hub's supervisor never loads the Prisma client.
 */
import { sql } from "@prisma/client-runtime-utils";
import type pg from "pg";
import { statement } from "../lib/sql-statement";

export const hubDatabaseExists = statement(
  "whether the Hub's database exists on the embedded server",
  () => sql`SELECT 1 FROM pg_database WHERE datname = 'ma2h'`,
  [[]],
);

export const createHubDatabase = statement(
  "create the Hub's database on the embedded server",
  () => sql`CREATE DATABASE ma2h`,
  {
    unplanned: "CREATE DATABASE is DDL, which EXPLAIN does not take",
  },
);

/** Creates the Hub's database unless it is there (the first start of the data directory). */
export async function ensureHubDatabase(admin: pg.Client): Promise<void> {
  const exists = await admin.query(hubDatabaseExists.sql().text);
  if (!exists.rowCount) await admin.query(createHubDatabase.sql().text);
}
