/**
 * §8.7 consume / §14.3 directive receipt (`POST /v1/inbox/ack`): acking is acknowledging. Bound to
 * the caller's own mailbox by the credential — an id that is not live in it (acked already,
 * unknown, another agent's) changes nothing and is not counted, so the answer reveals nothing
 * about other mailboxes. The first ack wins; its note is what the human reads.
 */
import { clock } from "../clock";
import { db } from "../db";
import { INBOX_CHANNEL } from "../messages/channel";
import { audit } from "../principals/admin";
import type { AgentPrincipal } from "../principals/types";
import { inboxAckSchema } from "../protocol/directive";
import { parseWire } from "../protocol/wire";
import { DIRECTIVE_KIND } from "./record";

export async function ackMailbox(principal: AgentPrincipal, input: unknown): Promise<{ acked: number }> {
  const { ids, note } = parseWire(inboxAckSchema, input, "validation_error");
  const now = clock.now();
  const unique = [...new Set(ids)];
  return db().$transaction(async (tx) => {
    const acked = await tx.$queryRaw<{ id: string; account_id: string }[]>`
      UPDATE mailbox_entries
         SET state = 'acknowledged', acknowledged_at = ${now}, ack_note = ${note ?? null}, ended_at = ${now}
       WHERE id = ANY(${unique})
         AND agent_row_id = ${principal.agentRowId}
         AND kind = ${DIRECTIVE_KIND}
         AND state IN ('queued', 'delivered')
      RETURNING id, account_id`;
    for (const row of acked) {
      await audit(tx, {
        accountId: row.account_id,
        actor: `agent:${principal.agentId}`,
        event: "directive.acknowledged",
        detail: { directive_id: row.id, note: note !== undefined },
      });
      await tx.$executeRaw`SELECT pg_notify(${INBOX_CHANNEL}, ${`${row.account_id}:${row.id}`})`;
    }
    return { acked: acked.length };
  });
}
