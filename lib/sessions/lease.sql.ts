/** The statement behind lib/sessions/lease.ts. */
import { db } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";

/**
 * §16.2 renewal, judged against the Hub clock in one atomic step: only a lease still running at
 * `now` on an active row is renewed (the expiry, ./end.sql.ts, needs it lapsed), so a lapsed lease
 * never comes back to life (dp-019). Neither the expiry nor `last_seen_at` ever moves backwards.
 */
export const renewLease = statement(
  "renew an agent's running session lease and stamp its last_seen",
  (agentRowId: string, sessionId: string, now: Date) => Prisma.sql`
      UPDATE agent_sessions
         SET expires_at = GREATEST(expires_at, ${now}::timestamptz + make_interval(secs => ttl_seconds)),
             last_seen_at = GREATEST(COALESCE(last_seen_at, ${now}), ${now})
       WHERE id = ${sessionId} AND agent_row_id = ${agentRowId}
         AND state = 'active' AND expires_at > ${now}
      RETURNING id`,
  [["agt_row_sample", "sess_sample", new Date(0)]],
);

/** Whether the lease was renewed. */
export async function runRenewLease(agentRowId: string, sessionId: string, now: Date): Promise<boolean> {
  return (await db().$queryRaw<{ id: string }[]>(renewLease.sql(agentRowId, sessionId, now))).length > 0;
}
