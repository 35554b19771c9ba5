/** The statement behind lib/messages/lifecycle.ts: the §7 compare-and-set. */
import { messageResolved } from "../audit/events";
import { auditDetail, auditRowsInsert } from "../audit/row-fragment.sql";
import { statementRows, type Tx } from "../db";
import { Prisma } from "../generated/prisma/client";
import { ENTRY_KIND } from "@ma2h/protocol/entry-kinds";
import type { Resolution } from "@ma2h/protocol/lifecycle";
import { PUSH_CHANNEL, TERMINAL_CHANNEL } from "../pubsub/channels";
import { inboxNotifySql } from "../pubsub/inbox";
import { mailboxWakeKey } from "../pubsub/terminal";
import { statement } from "../sql-statement";

/** `undeliverable`: §7 (v0.5) an addressed ask/task whose mailbox track ended bounced or expired. */
export type TerminalKind = "resolve" | "cancel" | "expire" | "undeliverable";

/**
 * §7 (v0.5): this addressed message's `message` entry ended undeliverable (`bounced` / `expired`,
 * §14.2) — at or before the message's own `expires_at` when `beforeExpiry`, which is what decides
 * between the undeliverable auto-resolution and expiry: whichever the Hub clock reached first.
 */
function undeliverable(beforeExpiry: boolean): Prisma.Sql {
  const when = beforeExpiry
    ? Prisma.sql`AND (messages.expires_at IS NULL OR e.ended_at <= messages.expires_at)`
    : Prisma.empty;
  return Prisma.sql`EXISTS (SELECT 1 FROM mailbox_entries e WHERE e.id = messages.id AND e.kind = ${ENTRY_KIND.message}
                                AND e.state IN ('bounced', 'expired') ${when})`;
}

/**
 * The §7 guard, as an SQL condition on the row:
 * - resolve/cancel win only while open AND (no expires_at OR now <= expires_at): an answer at
 *   exactly expires_at beats the default, a cancel strictly after it loses to expiry — and only
 *   while an addressed message's delivery has not ended undeliverable (its end is the terminal
 *   moment, §7; the auto-resolution then applies, lazily if the worker has not yet);
 * - expiry wins only while open AND expires_at < now, unless the delivery ended undeliverable
 *   first;
 * - the undeliverable auto-resolution wins only while open, once the delivery ended undeliverable
 *   at or before expires_at.
 */
export function guard(kind: TerminalKind, now: Date): Prisma.Sql {
  if (kind === "expire")
    return Prisma.sql`status = 'open' AND expires_at < ${now}::timestamptz AND NOT ${undeliverable(true)}`;
  if (kind === "undeliverable") return Prisma.sql`status = 'open' AND ${undeliverable(true)}`;
  return Prisma.sql`status = 'open' AND (expires_at IS NULL OR expires_at >= ${now}::timestamptz)
                    AND NOT ${undeliverable(false)}`;
}

/** One terminal transition: what commitTerminal (./lifecycle.ts) minted and decided. */
export interface TerminalTransition {
  messageId: string;
  kind: TerminalKind;
  resolution: Resolution;
  actor: string;
  defaulted: boolean;
  /** The §6 `response` object, or null. */
  response: Record<string, unknown> | null;
  /** How a person's answer reached the Hub when not the inbox or /v1 ("email"); audited. */
  channel?: string;
  /** The person a delegate answered for (docs/policies.md "Delegation"); audited as `for`. */
  onBehalfOf?: string;
  resolutionId: string;
  deliveryId: string;
  /** §8.3 the envelope asks for a push: the obligation is written when the row has a callback. */
  pushes: boolean;
  /** A response entry's drop time (its retention horizon). */
  dropAt: Date;
  now: Date;
}

/**
 * What a quorum's completing vote writes in the transition's statement (lib/messages/approvals.sql.ts):
 * one more condition on the row (the version its count was read at), CTEs over `cas`, and a column
 * of the final SELECT that reads them — so they run while the statement's row is read, before the
 * transition's own writes that nothing reads (the vote's audit row precedes `message.answered`).
 */
export interface TransitionRider {
  condition: Prisma.Sql;
  ctes: Prisma.Sql;
  column: Prisma.Sql;
}

/**
 * One SQL statement: the conditional UPDATE, then — only when it matched — the Resolution, the
 * audit event, the push obligation, the cancellation of the item's pending notifications and the
 * NOTIFYs. One row when it won, none when it lost.
 */
export const commitTransition = statement(
  "the §7 compare-and-set: one terminal transition with everything it writes",
  (t: TerminalTransition) => transitionSql(t),
  // One per guard (resolve and cancel share one), with and without a push, a response and a channel.
  (["resolve", "cancel", "expire", "undeliverable"] as const).map((kind): [TerminalTransition] => [
    {
      messageId: "msg_sample",
      kind,
      resolution: kind === "resolve" ? "answered" : kind === "expire" ? "expired" : "cancelled",
      actor: kind === "resolve" ? "human:sample" : "system:expiry",
      defaulted: kind === "expire",
      response: kind === "resolve" ? { value: "yes" } : null,
      channel: kind === "resolve" ? "email" : undefined,
      resolutionId: "res_sample",
      deliveryId: "dlv_sample",
      pushes: kind !== "cancel",
      dropAt: new Date(86_400_000),
      now: new Date(0),
    },
  ]),
);

/** The §7 statement's text, with a rider's writes when a completing vote brings them. */
export function transitionSql(t: TerminalTransition, rider?: TransitionRider): Prisma.Sql {
  return Prisma.sql`
    WITH cas AS (
      UPDATE messages SET status = ${t.resolution}, status_changed_at = ${t.now}::timestamptz,
                          terminal_at = ${t.now}::timestamptz
       WHERE id = ${t.messageId} AND ${guard(t.kind, t.now)} ${rider ? Prisma.sql`AND ${rider.condition}` : Prisma.empty}
      RETURNING id, account_id, agent_row_id, callback_url, submit_session, ma2h_version
    ), response_entry AS (
      -- §6 (v0.5): the Response also goes to the submitting session's mailbox as a response
      -- entry (ack key: its resolution_id, §8.7.1) when that session is live at resolution time;
      -- otherwise pull and push alone, and nothing bounces (§16.3).
      INSERT INTO mailbox_entries (id, account_id, agent_row_id, kind, to_session, from_actor, ma2h_version, title,
                                   content, drop_at, visible_at, created_at)
      SELECT ${t.resolutionId}, cas.account_id, cas.agent_row_id, ${ENTRY_KIND.response}, s.id, ${t.actor},
             cas.ma2h_version, '', json_build_object('in_reply_to', cas.id)::text, ${t.dropAt}::timestamptz,
             ${t.now}::timestamptz, ${t.now}::timestamptz
        FROM cas JOIN agent_sessions s ON s.id = cas.submit_session AND s.agent_row_id = cas.agent_row_id
       WHERE s.state = 'active' AND s.expires_at > ${t.now}::timestamptz
      RETURNING agent_row_id
    ), resolution AS (
      INSERT INTO resolutions (id, message_id, resolution, actor, defaulted, response, resolved_at)
      SELECT ${t.resolutionId}, id, ${t.resolution}, ${t.actor}, ${t.defaulted},
             ${t.response === null ? null : JSON.stringify(t.response)}::text, ${t.now}::timestamptz
        FROM cas
    ), audit AS (
      ${auditRowsInsert({
        accountId: Prisma.sql`account_id`,
        messageId: Prisma.sql`id`,
        actor: t.actor,
        event: messageResolved(t.resolution),
        detail: auditDetail({
          resolution_id: t.resolutionId,
          via: t.kind,
          defaulted: t.defaulted,
          ...(t.channel ? { channel: t.channel } : {}),
          ...(t.onBehalfOf ? { for: t.onBehalfOf } : {}),
        }),
        at: t.now,
      })}
        FROM cas
    ), delivery AS (
      INSERT INTO push_deliveries (id, message_id, resolution_id, callback_url, next_attempt_at, cycle_started_at,
                                   created_at, updated_at)
      SELECT ${t.deliveryId}, id, ${t.resolutionId}, callback_url, ${t.now}::timestamptz, ${t.now}::timestamptz,
             ${t.now}::timestamptz, ${t.now}::timestamptz
        FROM cas WHERE ${t.pushes} AND callback_url IS NOT NULL
      RETURNING id
    ), settled AS (
      -- The item's notifications not yet sent (a reminder, an escalation, a mail held by quiet
      -- hours) are cancelled with the transition — a settled item asks no one to act. Statuses are
      -- lib/notifications/send.ts's; not_open is its error class for the same case at send time.
      UPDATE notifications SET status = 'cancelled', last_error_class = 'not_open', updated_at = ${t.now}::timestamptz
       WHERE message_id IN (SELECT id FROM cas) AND status = 'pending'
    )${rider ? Prisma.sql`, ${rider.ctes}` : Prisma.empty}
    SELECT (SELECT id FROM delivery) AS delivery_id,
           (EXISTS (SELECT 1 FROM slack_posts WHERE slack_posts.message_id = cas.id)
             OR EXISTS (SELECT 1 FROM teams_posts WHERE teams_posts.message_id = cas.id)) AS slack_posted,
           pg_notify(${TERMINAL_CHANNEL}, cas.id)::text AS woke,
           (SELECT pg_notify(${PUSH_CHANNEL}, id) FROM delivery)::text AS pushed,
           (SELECT pg_notify(${TERMINAL_CHANNEL}, ${mailboxWakeKey("")} || agent_row_id) FROM response_entry)::text AS entry,
           ${inboxNotifySql("cas.account_id", "cas.id")}::text AS notified
           ${rider ? Prisma.sql`, ${rider.column}` : Prisma.empty}
      FROM cas`;
}

/**
 * Runs the transition on the pool, prepared by name (lib/db.ts statementRows) — atomic on its own,
 * so a resolve needs no transaction — or on `tx` when the caller writes more with it. `sqlOf` is a
 * statement that embeds it with more (a quorum's completing vote, lib/messages/approvals.sql.ts).
 */
export async function runCommitTransition(
  t: TerminalTransition,
  tx?: Tx,
  sqlOf: (t: TerminalTransition) => Prisma.Sql = commitTransition.sql,
): Promise<{ delivery_id: string | null; slack_posted: boolean } | undefined> {
  const rows = await statementRows<{ delivery_id: string | null; slack_posted: boolean }>(sqlOf(t), tx);
  return rows[0];
}
