/** The statements behind lib/messages/delivery-track.ts (the §14.2 response track's stamp). */
import { AUDIT_EVENT } from "../audit/events";
import { auditDetail, auditRowsInsert } from "../audit/row-fragment.sql";
import { db, statementRows } from "../db";
import { Prisma } from "../generated/prisma/client";
import { inboxNotifySql } from "../pubsub/inbox";
import { statement } from "../sql-statement";

/** `mailbox`: a session drain that returned the Response as a `response` entry (§8.7.1). */
export type DeliveryVia = "push" | "pull" | "mailbox";

/**
 * The stamp as one statement — first wins, with its audit event, so a stamp and its audit row
 * commit together or not at all — one row when it won, none otherwise. A win also NOTIFYs the
 * inbox channel, so the item page of the person who answered refreshes live.
 */
export const stampDelivered = statement(
  "stamp a resolution delivered-to-agent once, audited and NOTIFYd",
  (resolutionId: string, at: Date, via: DeliveryVia, actor: string) => Prisma.sql`
    WITH stamped AS (
      UPDATE resolutions SET delivered_to_agent_at = ${at}::timestamptz
      WHERE id = ${resolutionId} AND delivered_to_agent_at IS NULL
      RETURNING message_id
    ), audited AS (
      ${auditRowsInsert({
        accountId: Prisma.sql`m.account_id`,
        messageId: Prisma.sql`s.message_id`,
        actor,
        event: AUDIT_EVENT.responseDeliveredToAgent,
        detail: auditDetail({ resolution_id: resolutionId, via }),
        at,
      })}
      FROM stamped s JOIN messages m ON m.id = s.message_id
      RETURNING account_id, message_id
    )
    SELECT message_id, ${inboxNotifySql("account_id", "message_id")}::text AS notified FROM audited`,
  [
    ["res_sample", new Date(0), "pull", "agent:sample"],
    ["res_sample", new Date(0), "push", "system:push"],
  ],
);

/** On the pool (lib/db.ts statementRows): this runs for every long-poll woken by an answer. Whether it won. */
export async function runStampDelivered(
  resolutionId: string,
  at: Date,
  via: DeliveryVia,
  actor: string,
): Promise<boolean> {
  return (await statementRows(stampDelivered.sql(resolutionId, at, via, actor))).length === 1;
}

/**
 * The stamp as a query of the client, for a caller's own transaction batch: the push attempt
 * commits it with the attempt row that records the 2xx (lib/delivery/push-attempt.ts).
 */
export function stampDeliveredQuery(resolutionId: string, at: Date, via: DeliveryVia = "push", actor = "system:push") {
  return db().$queryRaw<Array<{ message_id: string }>>(stampDelivered.sql(resolutionId, at, via, actor));
}

export const deliveredToAgentAt = statement(
  "a resolution's delivered-to-agent time",
  (resolutionId: string) => Prisma.sql`SELECT delivered_to_agent_at FROM resolutions WHERE id = ${resolutionId}`,
  [["res_sample"]],
);

/** The stored delivered time; undefined when the resolution is gone. On the pool, as the stamp. */
export async function readDeliveredToAgentAt(resolutionId: string): Promise<Date | null | undefined> {
  const [row] = await statementRows<{ delivered_to_agent_at: Date | null }>(deliveredToAgentAt.sql(resolutionId));
  return row === undefined ? undefined : row.delivered_to_agent_at;
}
