/**
 * §7 lifecycle: the one compare-and-set. Every terminal transition of an ask/task — resolve, cancel,
 * expiry — goes through `commitTerminal`, which is a single conditional UPDATE against the time the
 * caller passes in (from lib/clock, never the database's now()). In the same statement it writes
 * the Resolution, the audit event, the push-delivery obligation (§3.1) and a NOTIFY that wakes
 * long-poll waiters on commit. First terminal wins; a loser writes nothing.
 */
import { Prisma, type Message as MessageRow } from "../generated/prisma/client";
import { messageResolved } from "../audit/events";
import { statementRows, type Tx } from "../db";
import { mintId } from "../protocol/ids";
import type { Resolution } from "../protocol/lifecycle";
import { callbackOf, type Message } from "../protocol/message";
import { PUSH_CHANNEL, TERMINAL_CHANNEL } from "../pubsub/channels";
import { inboxNotifySql } from "../pubsub/inbox";
import { mailboxWakeKey } from "../pubsub/terminal";
import { inboundLimits } from "../env";
import { ENTRY_KIND } from "../protocol/entry-kinds";

/** `undeliverable`: §7 (v0.5) an addressed ask/task whose mailbox track ended bounced or expired. */
export type TerminalKind = "resolve" | "cancel" | "expire" | "undeliverable";

export interface TerminalOutcome {
  resolution: Resolution;
  actor: string;
  defaulted: boolean;
  /** The §6 `response` object, or null when the Response carries none (e.g. an expired task). */
  response: Record<string, unknown> | null;
  /** How a person's answer reached the Hub when not the inbox or /v1 ("email"); audited. */
  channel?: string;
}

export interface CommitResult {
  won: boolean;
  resolutionId?: string;
  /** The push obligation written with the transition; enqueue it once the transaction commits. */
  deliveryId?: string;
  /** The message that went terminal (when won), for what follows the commit (after-terminal.ts). */
  messageId?: string;
  /** Whether the item was posted to Slack, whose posts then need an update (after-terminal.ts). */
  slackPosted?: boolean;
  /** The resolution it committed (when won), counted after the commit (after-terminal.ts). */
  resolution?: Resolution;
}

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
function guard(kind: TerminalKind, now: Date): Prisma.Sql {
  if (kind === "expire")
    return Prisma.sql`status = 'open' AND expires_at < ${now}::timestamptz AND NOT ${undeliverable(true)}`;
  if (kind === "undeliverable") return Prisma.sql`status = 'open' AND ${undeliverable(true)}`;
  return Prisma.sql`status = 'open' AND (expires_at IS NULL OR expires_at >= ${now}::timestamptz)
                    AND NOT ${undeliverable(false)}`;
}

/**
 * One SQL statement: the conditional UPDATE, then — only when it matched — the Resolution, the
 * audit event, the push obligation, the cancellation of the item's pending notifications and the
 * NOTIFYs. Atomic on its own, so a resolve runs it without a transaction (`tx` null) in one round
 * trip; callers that must write more with the transition (cancel's, expiry's, an email answer's
 * token) pass their transaction.
 */
export async function commitTerminal(
  tx: Tx | null,
  row: Pick<MessageRow, "id">,
  envelope: Message,
  kind: TerminalKind,
  outcome: TerminalOutcome,
  now: Date,
): Promise<CommitResult> {
  const resolutionId = mintId("resolution");
  // §8.3 / §3.1: the push obligation commits with the transition it reports.
  const pushes = callbackOf(envelope)?.mode === "push";
  const deliveryId = mintId("delivery");
  const detail = {
    resolution_id: resolutionId,
    via: kind,
    defaulted: outcome.defaulted,
    ...(outcome.channel ? { channel: outcome.channel } : {}),
  };
  const dropAt = new Date(now.getTime() + inboundLimits().retentionDays * 86_400_000);
  const rows = await statementRows<{ delivery_id: string | null; slack_posted: boolean }>(
    Prisma.sql`
    WITH cas AS (
      UPDATE messages SET status = ${outcome.resolution}, status_changed_at = ${now}::timestamptz,
                          terminal_at = ${now}::timestamptz
       WHERE id = ${row.id} AND ${guard(kind, now)}
      RETURNING id, account_id, agent_row_id, callback_url, submit_session, ma2h_version
    ), response_entry AS (
      -- §6 (v0.5): the Response also goes to the submitting session's mailbox as a response
      -- entry (ack key: its resolution_id, §8.7.1) when that session is live at resolution time;
      -- otherwise pull and push alone, and nothing bounces (§16.3).
      INSERT INTO mailbox_entries (id, account_id, agent_row_id, kind, to_session, from_actor, ma2h_version, title,
                                   content, drop_at, visible_at, created_at)
      SELECT ${resolutionId}, cas.account_id, cas.agent_row_id, ${ENTRY_KIND.response}, s.id, ${outcome.actor},
             cas.ma2h_version, '', json_build_object('in_reply_to', cas.id)::text, ${dropAt}::timestamptz,
             ${now}::timestamptz, ${now}::timestamptz
        FROM cas JOIN agent_sessions s ON s.id = cas.submit_session AND s.agent_row_id = cas.agent_row_id
       WHERE s.state = 'active' AND s.expires_at > ${now}::timestamptz
      RETURNING agent_row_id
    ), resolution AS (
      INSERT INTO resolutions (id, message_id, resolution, actor, defaulted, response, resolved_at)
      SELECT ${resolutionId}, id, ${outcome.resolution}, ${outcome.actor}, ${outcome.defaulted},
             ${outcome.response === null ? null : JSON.stringify(outcome.response)}::text, ${now}::timestamptz
        FROM cas
    ), audit AS (
      INSERT INTO audit_events (account_id, message_id, actor, event, detail, at)
      SELECT account_id, id, ${outcome.actor}, ${messageResolved(outcome.resolution)},
             ${JSON.stringify(detail)}::jsonb, ${now}::timestamptz
        FROM cas
    ), delivery AS (
      INSERT INTO push_deliveries (id, message_id, resolution_id, callback_url, next_attempt_at, cycle_started_at,
                                   created_at, updated_at)
      SELECT ${deliveryId}, id, ${resolutionId}, callback_url, ${now}::timestamptz, ${now}::timestamptz,
             ${now}::timestamptz, ${now}::timestamptz
        FROM cas WHERE ${pushes} AND callback_url IS NOT NULL
      RETURNING id
    ), settled AS (
      -- The item's notifications not yet sent (a reminder, an escalation, a mail held by quiet
      -- hours) are cancelled with the transition — a settled item asks no one to act. Statuses are
      -- lib/notifications/send.ts's; not_open is its error class for the same case at send time.
      UPDATE notifications SET status = 'cancelled', last_error_class = 'not_open', updated_at = ${now}::timestamptz
       WHERE message_id IN (SELECT id FROM cas) AND status = 'pending'
    )
    SELECT (SELECT id FROM delivery) AS delivery_id,
           EXISTS (SELECT 1 FROM slack_posts WHERE slack_posts.message_id = cas.id) AS slack_posted,
           pg_notify(${TERMINAL_CHANNEL}, cas.id)::text AS woke,
           (SELECT pg_notify(${PUSH_CHANNEL}, id) FROM delivery)::text AS pushed,
           (SELECT pg_notify(${TERMINAL_CHANNEL}, ${mailboxWakeKey("")} || agent_row_id) FROM response_entry)::text AS entry,
           ${inboxNotifySql("cas.account_id", "cas.id")}::text AS notified
      FROM cas`,
    tx ?? undefined,
  );
  const won = rows[0];
  if (!won) return { won: false };
  return {
    won: true,
    resolutionId,
    deliveryId: won.delivery_id ?? undefined,
    messageId: row.id,
    slackPosted: won.slack_posted,
    resolution: outcome.resolution,
  };
}
