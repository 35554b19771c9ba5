/** The statement behind lib/messages/stats.ts. */
import { db } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";

/** One query on the (status, expires_at) index, so a scrape costs the same however many messages are closed. */
export const openItems = statement(
  "open asks/tasks: how many, and the earliest overdue expires_at",
  (now: Date) => Prisma.sql`
    SELECT count(*)::int AS open, min(expires_at) FILTER (WHERE expires_at < ${now}) AS overdue_since
    FROM messages WHERE status = 'open'`,
  [[new Date(0)]],
);

export async function readOpenItems(now: Date): Promise<{ open: number; overdue_since: Date | null } | undefined> {
  const [row] = await db().$queryRaw<{ open: number; overdue_since: Date | null }[]>(openItems.sql(now));
  return row;
}
