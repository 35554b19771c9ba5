/**
 * The statement behind lib/notifications/send.ts, on the pool: a few due rows of one item claimed
 * for one attempt each — ONE conditional UPDATE, as claims.ts `claim` does, of rows no other run
 * holds (SKIP LOCKED) — returned with what their sends need: the person's address and seat (handle,
 * role, and whose delegation names them now — the statement of lib/principals/seats.sql.ts) and the
 * item, read after the claim.
 */
import { statementRows } from "../db";
import { Prisma } from "../generated/prisma/client";
import { RESOLVING_ROLES } from "../principals/types";
import { statement } from "../sql-statement";
import type { MailItem } from "./sender";

/** A claimed row with its person's address and seat, and its item (ids: the row's `id`, the item's `messageId`). */
export interface ClaimedSend extends Omit<MailItem, "id"> {
  id: string;
  messageId: string;
  userId: string;
  channel: string;
  kind: string;
  digest: boolean;
  batchId: string | null;
  attempts: number;
  email: string;
  /** The person's seat in the item's account; null when they hold none. */
  seatHandle: string | null;
  seatRole: string | null;
  seatDelegators: string[] | null;
  // The item's, beside MailItem's.
  routing: string | null;
  agentRowId: string;
}

/** Which due rows of an item a claim takes, and the lease it takes them under. */
export interface ClaimParams {
  dueBy: Date;
  skipChannels: string[];
  skipIds: string[];
  limit: number;
  batchId: string;
  leaseUntil: Date;
  now: Date;
}

export const claimDueSends = statement(
  "a few due notification rows of an item claimed for one attempt each, with address, seat and item",
  (messageId: string, p: ClaimParams) => Prisma.sql`WITH due AS (
             SELECT id FROM notifications
              WHERE message_id = ${messageId} AND digest = false AND status = 'pending'
                AND next_attempt_at <= ${p.dueBy}::timestamptz
                AND channel <> ALL(${p.skipChannels}::text[]) AND id <> ALL(${p.skipIds}::text[])
              ORDER BY next_attempt_at, id
              LIMIT ${p.limit}
                FOR UPDATE SKIP LOCKED),
           c AS (
             UPDATE notifications n
                SET status = 'sending', batch_id = ${p.batchId}, lease_until = ${p.leaseUntil}::timestamptz,
                    attempts = n.attempts + 1, updated_at = ${p.now}::timestamptz
               FROM due WHERE n.id = due.id AND n.status = 'pending'
             RETURNING n.id, n.message_id, n.user_id, n.channel, n.kind, n.digest, n.batch_id, n.attempts)
      SELECT c.id, c.message_id AS "messageId", c.user_id AS "userId", c.channel, c.kind, c.digest,
             c.batch_id AS "batchId", c.attempts, u.email,
             mb.handle AS "seatHandle", mb.role AS "seatRole",
             CASE WHEN mb.id IS NULL THEN NULL ELSE
               ARRAY(SELECT f.handle FROM delegations d JOIN memberships f ON f.id = d.delegator_id
                      WHERE d.delegate_id = mb.id AND d.starts_at <= ${p.now}::timestamptz
                        AND d.ends_at > ${p.now}::timestamptz AND f.role = ANY(${[...RESOLVING_ROLES]}::text[])
                      ORDER BY f.handle) END AS "seatDelegators",
             m.account_id AS "accountId", m.title, m.priority, m.sensitive, m.status, m.envelope,
             m.created_at AS "createdAt", m.expires_at AS "expiresAt", m.routing, m.agent_row_id AS "agentRowId"
        FROM c
        JOIN users u ON u.id = c.user_id
        JOIN messages m ON m.id = c.message_id
        LEFT JOIN memberships mb ON mb.account_id = m.account_id AND mb.user_id = c.user_id`,
  [
    [
      "msg_sample",
      {
        dueBy: new Date(0),
        skipChannels: ["email"],
        skipIds: ["ntf_done"],
        limit: 16,
        batchId: "ntf_batch",
        leaseUntil: new Date(0),
        now: new Date(0),
      },
    ],
  ],
);

export async function claimSends(messageId: string, p: ClaimParams): Promise<ClaimedSend[]> {
  return statementRows<ClaimedSend>(claimDueSends.sql(messageId, p));
}
