/** The statement behind lib/sessions/sweep.ts. */
import { db } from "../db";
import { Prisma } from "../generated/prisma/client";
import { COMMAND_KINDS } from "@ma2h/protocol/entry-kinds";
import { statement } from "../sql-statement";

/**
 * Sessions that still hold un-acked command entries though they are no longer live: a crash between
 * a session's end and its bounce, or an author racing the end (§3.1).
 */
export const orphanedSessions = statement(
  "sessions no longer active that still hold live command entries",
  (limit: number) => Prisma.sql`
    SELECT DISTINCT m.to_session FROM mailbox_entries m
     WHERE m.to_session IS NOT NULL AND m.state IN ('queued', 'delivered') AND m.kind = ANY(${[...COMMAND_KINDS]})
       AND NOT EXISTS (SELECT 1 FROM agent_sessions s WHERE s.id = m.to_session AND s.state = 'active')
     LIMIT ${limit}`,
  [[500]],
);

export async function readOrphanedSessions(limit: number): Promise<string[]> {
  return (await db().$queryRaw<{ to_session: string }[]>(orphanedSessions.sql(limit))).map((o) => o.to_session);
}
