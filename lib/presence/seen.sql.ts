/** The statement behind lib/presence/seen.ts. */
import { db } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";

/** Monotonic: a slower concurrent stamp never moves `last_seen_at` back. */
export const stampLastSeen = statement(
  "stamp an agent's last_seen_at, never backwards",
  (agentRowId: string, at: Date) => Prisma.sql`UPDATE agents SET last_seen_at = ${at}
    WHERE id = ${agentRowId} AND (last_seen_at IS NULL OR last_seen_at < ${at})`,
  [["agt_row_sample", new Date(0)]],
);

export async function runStampLastSeen(agentRowId: string, at: Date): Promise<void> {
  await db().$executeRaw(stampLastSeen.sql(agentRowId, at));
}
