/** The statements behind lib/messages/delivery-track.ts (the §14.2 response track's stamp). */
import { AUDIT_EVENT } from "../audit/events";
import { auditDetail, auditRowsInsert } from "../audit/row-fragment.sql";
import { statementRows } from "../db";
import { Prisma } from "../generated/prisma/client";
import { inboxNotifySql } from "../pubsub/inbox";
import { statement } from "../sql-statement";

/** `mailbox`: a session drain that returned the Response as a `response` entry (§8.7.1). */
export type DeliveryVia = "push" | "pull" | "mailbox";

/**
 * The stamp's two CTEs — `stamped` (first wins) and `audited` (its audit event, returning
 * `account_id, message_id`) — for a statement that writes them beside its own rows: the stamp below,
 * and the push attempt's outcome (lib/delivery/push-attempt.sql.ts), which commits the 2xx it
 * records together with the stamp.
 */
export function stampDeliveredCtes(resolutionId: string, at: Date, via: DeliveryVia, actor: string): Prisma.Sql {
  return Prisma.sql`stamped AS (
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
    )`;
}

/** A won stamp's NOTIFY of the inbox channel, evaluated per row of `audited` (one row when it won). */
export const STAMP_NOTIFY = inboxNotifySql("account_id", "message_id");

/**
 * The stamp as one statement — first wins, with its audit event, so a stamp and its audit row
 * commit together or not at all — one row when it won, none otherwise. A win also NOTIFYs the
 * inbox channel, so the item page of the person who answered refreshes live.
 */
export const stampDelivered = statement(
  "stamp a resolution delivered-to-agent once, audited and NOTIFYd",
  (resolutionId: string, at: Date, via: DeliveryVia, actor: string) => Prisma.sql`
    WITH ${stampDeliveredCtes(resolutionId, at, via, actor)}
    SELECT message_id, ${STAMP_NOTIFY}::text AS notified FROM audited`,
  [
    ["res_sample", new Date(0), "pull", "agent:sample"],
    ["res_sample", new Date(0), "push", "system:push"],
  ],
);

/** One stamp asked for: the resolution, when, how, and by whom (the audit row's actor). */
export interface StampRequest {
  resolutionId: string;
  at: Date;
  via: DeliveryVia;
  actor: string;
}

/**
 * Several stamps in one statement (one transaction, one commit): the long-polls that one burst of
 * NOTIFYs wakes and answers together. Each stamp is still first-wins and commits with its own audit
 * row — the same row, detail and NOTIFY the single stamp writes. Returns the resolutions it won.
 */
export const stampDeliveredMany = statement(
  "stamp several resolutions delivered-to-agent once each, audited and NOTIFYd",
  (stamps: StampRequest[]) => Prisma.sql`
    WITH wanted AS (
      SELECT * FROM unnest(${stamps.map((s) => s.resolutionId)}::text[], ${stamps.map((s) => s.at)}::timestamptz[],
                           ${stamps.map((s) => s.via)}::text[], ${stamps.map((s) => s.actor)}::text[])
        AS w(resolution_id, at, via, actor)
    ), stamped AS (
      UPDATE resolutions r SET delivered_to_agent_at = w.at
      FROM wanted w
      WHERE r.id = w.resolution_id AND r.delivered_to_agent_at IS NULL
      RETURNING r.id, r.message_id, w.at, w.via, w.actor
    ), audited AS (
      ${auditRowsInsert({
        accountId: Prisma.sql`m.account_id`,
        messageId: Prisma.sql`s.message_id`,
        actor: Prisma.sql`s.actor`,
        event: AUDIT_EVENT.responseDeliveredToAgent,
        detail: Prisma.sql`jsonb_build_object('resolution_id', s.id, 'via', s.via)`,
        at: Prisma.sql`s.at`,
      })}
      FROM stamped s JOIN messages m ON m.id = s.message_id
      RETURNING account_id, message_id, detail->>'resolution_id' AS resolution_id
    )
    SELECT resolution_id, ${STAMP_NOTIFY}::text AS notified FROM audited`,
  [
    [
      [
        { resolutionId: "res_a", at: new Date(0), via: "pull", actor: "agent:a" },
        { resolutionId: "res_b", at: new Date(0), via: "pull", actor: "agent:b" },
      ],
    ],
  ],
);

/** On the pool (lib/db.ts statementRows): the resolutions of `stamps` whose stamp won. */
export async function runStampDeliveredMany(stamps: StampRequest[]): Promise<Set<string>> {
  const rows = await statementRows<{ resolution_id: string }>(stampDeliveredMany.sql(stamps));
  return new Set(rows.map((r) => r.resolution_id));
}

/** On the pool (lib/db.ts statementRows): this runs for every long-poll woken by an answer. Whether it won. */
export async function runStampDelivered(
  resolutionId: string,
  at: Date,
  via: DeliveryVia,
  actor: string,
): Promise<boolean> {
  return (await statementRows(stampDelivered.sql(resolutionId, at, via, actor))).length === 1;
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
