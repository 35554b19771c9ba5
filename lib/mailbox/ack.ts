/**
 * §8.7 consume / §14.3 receipt (`POST /v1/inbox/ack`), one call for every entry kind by its ack key
 * (§8.7.1): acking consumes. A directive or `message` entry goes `acknowledged` — the sender's
 * mailbox track reads it (§8.2); a `response` entry's ack is also the note-less response-leg ack of
 * its message (§14.3, first ack wins); a `receipt` is only consumed. Bound to the caller's own
 * mailbox by the credential — an id that is not live in it (acked already, unknown, another
 * agent's) changes nothing and is not counted, so the answer reveals nothing about other mailboxes.
 * The first ack wins; its note is what the human (or the sender) reads.
 */
import { clock } from "../clock";
import type { AgentPrincipal } from "../principals/types";
import { mailboxAckSchema } from "@ma2h/protocol/directive";
import { parseWire } from "@ma2h/protocol/wire";
import { ENTRY_KIND } from "@ma2h/protocol/entry-kinds";
import { HubError } from "@ma2h/protocol/errors";
import { ackResponse } from "../messages/ack";
import { stampDeliveredToAgent } from "../messages/delivery-track";
import { runAckMailboxEntries } from "./ack.sql";

export async function ackMailbox(principal: AgentPrincipal, input: unknown): Promise<{ acked: number }> {
  const { ids, note } = parseWire(mailboxAckSchema, input, "validation_error");
  const now = clock.now();
  const acked = await runAckMailboxEntries({
    agentRowId: principal.agentRowId,
    agentId: principal.agentId,
    ids: [...new Set(ids)],
    note: note ?? null,
    now,
  });
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
