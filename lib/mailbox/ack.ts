/**
 * §8.7 consume / §14.3 directive receipt (`POST /v1/inbox/ack`): acking is acknowledging. Bound to
 * the caller's own mailbox by the credential — an id that is not live in it (acked already,
 * unknown, another agent's) changes nothing and is not counted, so the answer reveals nothing
 * about other mailboxes. The first ack wins; its note is what the human reads.
 */
import { clock } from "../clock";
import { db } from "../db";
import { INBOX_CHANNEL } from "../notify/channels";
import type { AgentPrincipal } from "../principals/types";
import { inboxAckSchema } from "../protocol/directive";
import { parseWire } from "../protocol/wire";
import { DIRECTIVE_KIND } from "./record";

export async function ackMailbox(principal: AgentPrincipal, input: unknown): Promise<{ acked: number }> {
  const { ids, note } = parseWire(inboxAckSchema, input, "validation_error");
  const now = clock.now();
  const unique = [...new Set(ids)];
  // One statement: the acks, their audit events (a data-modifying WITH always runs to completion)
  // and the inbox NOTIFYs commit together, at a fixed cost per call however many ids it carries.
  const detail = JSON.stringify({ note: note !== undefined });
  const acked = await db().$queryRaw<{ id: string }[]>`
    WITH acked AS (
      UPDATE mailbox_entries
         SET state = 'acknowledged', acknowledged_at = ${now}, ack_note = ${note ?? null}, ended_at = ${now}
       WHERE id = ANY(${unique})
         AND agent_row_id = ${principal.agentRowId}
         AND kind = ${DIRECTIVE_KIND}
         AND state IN ('queued', 'delivered')
      RETURNING id, account_id),
    audited AS (
      INSERT INTO audit_events (account_id, actor, event, detail, at)
      SELECT account_id, ${`agent:${principal.agentId}`}, 'directive.acknowledged',
             ${detail}::jsonb || jsonb_build_object('directive_id', id), ${now}
        FROM acked)
    SELECT id, pg_notify(${INBOX_CHANNEL}, account_id || ':' || id)::text AS notified FROM acked`;
  return { acked: acked.length };
}
