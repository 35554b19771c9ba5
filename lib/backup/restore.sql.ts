/** The statement behind lib/backup/dump.ts: is the restore target empty? */
import { db } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";

/** Tables in the schemas a restore writes (public, where the migrations put the Hub's tables). */
export const countPublicTables = statement(
  "count the tables of the public schema (restore target check)",
  () => Prisma.sql`SELECT count(*)::int AS n FROM pg_catalog.pg_tables WHERE schemaname = 'public'`,
  [[]],
);

export async function countHubTables(): Promise<number> {
  const rows = await db().$queryRaw<{ n: number }[]>(countPublicTables.sql());
  return rows[0]?.n ?? 0;
}
