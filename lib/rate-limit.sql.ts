/** The statement behind lib/rate-limit.ts (the PostgreSQL counter, when Redis is not configured). */
import { statementRows } from "./db";
import { Prisma } from "./generated/prisma/client";
import { statement } from "./sql-statement";

export const countInRateWindow = statement(
  "count one event under a key in its window, returning the window's count",
  (key: string, windowStart: Date) => Prisma.sql`
    INSERT INTO rate_counters (key, window_start, count) VALUES (${key}, ${windowStart}::timestamptz, 1)
    ON CONFLICT (key, window_start) DO UPDATE SET count = rate_counters.count + 1
    RETURNING count`,
  [["submit:agt_sample", new Date(0)]],
);

/** The count so far in the window, this event included. One statement on the pool (lib/db.ts statementRows). */
export async function incrementRateCounter(key: string, windowStart: Date): Promise<number> {
  const rows = await statementRows<{ count: number }>(countInRateWindow.sql(key, windowStart));
  return rows[0]?.count ?? 1;
}
