/**
 * §8.7 consume / §14.3 receipt (`POST /v1/inbox/ack`), one call for every entry kind by its ack key
 * (§8.7.1): acking consumes. A directive or `message` entry goes `acknowledged` — the sender's
 * mailbox track reads it (§8.2); a `response` entry's ack is also the note-less response-leg ack of
 * its message (§14.3, first ack wins); a `receipt` is only consumed. Bound to the caller's own
 * mailbox by the credential — an id that is not live in it (acked already, unknown, another
 * agent's) changes nothing and is not counted, so the answer reveals nothing about other mailboxes.
 * The first ack wins; its note is what the human (or the sender) reads.
 */
import { AUDIT_EVENT } from "../audit/events";
import { clock } from "../clock";
import { db } from "../db";
import type { AgentPrincipal } from "../principals/types";
import { mailboxAckSchema } from "../protocol/directive";
import { parseWire } from "../protocol/wire";
import { inboxNotifySql } from "../pubsub/inbox";
import { DIRECTIVE_KIND } from "./record";
import { ENTRY_KIND } from "../protocol/entry-kinds";
import { HubError } from "../protocol/errors";
import { ackResponse } from "../messages/ack";
import { stampDeliveredToAgent } from "../messages/delivery-track";

export async function ackMailbox(principal: AgentPrincipal, input: unknown): Promise<{ acked: number }> {
  const { ids, note } = parseWire(mailboxAckSchema, input, "validation_error");
  const now = clock.now();
  const unique = [...new Set(ids)];
  // One statement: the acks, their audit events (a data-modifying WITH always runs to completion)
  // and the inbox NOTIFYs commit together, at a fixed cost per call however many ids it carries.
  const detail = JSON.stringify({ note: note !== undefined });
  const acked = await db().$queryRaw<{ id: string; kind: string; content: string }[]>`
    WITH acked AS (
      UPDATE mailbox_entries
         SET state = 'acknowledged', acknowledged_at = ${now}, ack_note = ${note ?? null}, ended_at = ${now}
       WHERE id = ANY(${unique})
         AND agent_row_id = ${principal.agentRowId}
         AND state IN ('queued', 'delivered')
      RETURNING id, account_id, kind, content),
    audited AS (
      INSERT INTO audit_events (account_id, message_id, actor, event, detail, at)
      SELECT account_id, CASE WHEN kind = ${ENTRY_KIND.message} THEN id END, ${`agent:${principal.agentId}`},
             CASE WHEN kind = ${DIRECTIVE_KIND} THEN ${AUDIT_EVENT.directiveAcknowledged}
                  ELSE ${AUDIT_EVENT.mailboxAcknowledged} END,
             ${detail}::jsonb || CASE WHEN kind = ${DIRECTIVE_KIND} THEN jsonb_build_object('directive_id', id)
                                      ELSE '{}'::jsonb END, ${now}
        FROM acked WHERE kind IN (${DIRECTIVE_KIND}, ${ENTRY_KIND.message}))
    SELECT id, kind, content, ${inboxNotifySql("account_id", "id")}::text AS notified FROM acked`;
  for (const entry of acked.filter((e) => e.kind === ENTRY_KIND.response)) {
    await ackResponseEntry(principal, entry.id, JSON.parse(entry.content) as { in_reply_to: string }, now);
  }
  return { acked: acked.length };
}

/**
 * §8.7.1: a `response` entry's ack is a note-less `POST /v1/messages/{id}/ack`. The ack is itself
 * client-originated evidence the answer arrived, so an entry that only a stream pushed (no
 * drain stamped it, §8.7.2) is stamped `delivered-to-agent` first. First ack wins (§14.1): a
 * message acked already, or purged since, leaves the stored outcome as it is.
 */
async function ackResponseEntry(
  principal: AgentPrincipal,
  resolutionId: string,
  content: { in_reply_to: string },
  now: Date,
): Promise<void> {
  await stampDeliveredToAgent(resolutionId, now, "mailbox", `agent:${principal.agentId}`);
  try {
    await ackResponse(principal, content.in_reply_to, { resolution_id: resolutionId });
  } catch (err) {
    if (!(err instanceof HubError)) throw err;
  }
}
