/** The statement behind lib/mailbox/drain.ts. */
import { db } from "../db";
import { Prisma } from "../generated/prisma/client";
import { inboxNotifySql } from "../pubsub/inbox";
import { statement } from "../sql-statement";
import { DIRECTIVE_KIND } from "./record";

export interface Claim {
  agentRowId: string;
  sessionId: string | null;
  max: number;
  now: Date;
  /** The end of the visibility window the claim starts. */
  visibleAt: Date;
  /** A stream push's claim (§8.7.2): starts the window, changes nothing else. */
  provisional: boolean;
}

/**
 * One statement claims — `FOR UPDATE SKIP LOCKED` in the subquery, so concurrent drains never hand
 * one entry to two callers within a window — and NOTIFYs the author's inbox of each first delivery
 * (the track moves to `delivered` live): a fixed cost per drain, not one round trip per entry.
 */
export const claimMailboxEntries = statement(
  "claim an agent's deliverable mailbox entries for the visibility window",
  (c: Claim) => Prisma.sql`
    WITH claimed AS (
      UPDATE mailbox_entries
         SET state = CASE WHEN ${c.provisional} THEN state ELSE 'delivered' END,
             delivered_at = CASE WHEN ${c.provisional} THEN delivered_at ELSE COALESCE(delivered_at, ${c.now}) END,
             claim_session = CASE WHEN ${c.provisional} THEN claim_session ELSE ${c.sessionId}::text END,
             visible_at = ${c.visibleAt},
             deliveries = deliveries + CASE WHEN ${c.provisional} THEN 0 ELSE 1 END
       WHERE id IN (
         SELECT id FROM mailbox_entries
          WHERE agent_row_id = ${c.agentRowId}
            AND (kind = ${DIRECTIVE_KIND} OR ${c.sessionId}::text IS NOT NULL)
            AND (to_session IS NULL OR to_session = ${c.sessionId}::text)
            AND state IN ('queued', 'delivered')
            AND visible_at <= ${c.now}
            AND drop_at > ${c.now}
            AND (expires_at IS NULL OR expires_at > ${c.now})
          ORDER BY seq
          LIMIT ${c.max}
          FOR UPDATE SKIP LOCKED)
      RETURNING id, account_id, deliveries)
    SELECT id, CASE WHEN deliveries = 1 AND NOT ${c.provisional} THEN ${inboxNotifySql("account_id", "id")}::text END AS notified
      FROM claimed`,
  [
    // A session-less drain, a session's drain, a stream's provisional claim.
    [
      {
        agentRowId: "agt_row_sample",
        sessionId: null,
        max: 32,
        now: new Date(0),
        visibleAt: new Date(60_000),
        provisional: false,
      },
    ],
    [
      {
        agentRowId: "agt_row_sample",
        sessionId: "sess_sample",
        max: 32,
        now: new Date(0),
        visibleAt: new Date(60_000),
        provisional: false,
      },
    ],
    [
      {
        agentRowId: "agt_row_sample",
        sessionId: "sess_sample",
        max: 1,
        now: new Date(0),
        visibleAt: new Date(60_000),
        provisional: true,
      },
    ],
  ],
);

/** The ids claimed. */
export async function runClaimMailboxEntries(c: Claim): Promise<{ id: string }[]> {
  return db().$queryRaw<{ id: string }[]>(claimMailboxEntries.sql(c));
}
