/** The statement behind lib/health.ts. */
import { db } from "./db";
import { Prisma } from "./generated/prisma/client";
import { statement } from "./sql-statement";

/** Answers only when the database is up and migrated (the table exists). */
export const selectFromMessages = statement(
  "one read of messages (readiness)",
  () => Prisma.sql`SELECT 1 FROM messages LIMIT 1`,
  [[]],
);

export async function probeMigratedSchema(): Promise<void> {
  await db().$queryRaw(selectFromMessages.sql());
}
