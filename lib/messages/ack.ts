/**
 * §14.3 response-leg ack: `POST /v1/messages/{id}/ack` by the submitting agent, on a resolved
 * ask/task whose Response reached it (`delivered-to-agent`, §14.2). The first ack wins (§14.1): one
 * conditional UPDATE of the Resolution row, with its audit event in the same transaction; a repeat
 * returns the stored ack unchanged, whatever it carries. `by` and `acked_at` are the Hub's (§9.1,
 * §9.5), never the request's.
 */
import { AUDIT_EVENT } from "../audit/events";
import { writeAudit } from "../audit/write";
import { clock } from "../clock";
import { db } from "../db";
import { type Ack, type AckRequest, ackRequestSchema } from "@ma2h/protocol/ack";
import { HubError } from "@ma2h/protocol/errors";
import { parseWire } from "@ma2h/protocol/wire";
import type { AgentPrincipal } from "../principals/types";
import { publishInboxChange } from "../pubsub/inbox";
import { loadForSubmitter } from "./access";
import { ackVersion, storedAck } from "./delivery-track";

/** Parses an ack body; any mismatch is `422 invalid_field`, like the other sub-actions' fields. */
export function parseAckRequest(body: unknown): AckRequest {
  return parseWire(ackRequestSchema, body, "invalid_field");
}

function notAcknowledgeable(message: string): HubError {
  return new HubError("not_acknowledgeable", message);
}

/**
 * In order: submitter binding (another principal's or an unknown id → the same 404; purged → 410),
 * the body, then the track: a notify, an open message and an answer not yet delivered are
 * `409 not_acknowledgeable`; a `resolution_id` naming another resolution is `422 invalid_field`.
 * Then the first-wins write, or the stored ack.
 */
export async function ackResponse(principal: AgentPrincipal, id: string, body: unknown): Promise<Ack> {
  const row = await loadForSubmitter(principal, id);
  const request = parseAckRequest(body);
  if (row.type === "notify") throw notAcknowledgeable("a notify has no response to acknowledge (§5.1)");
  const resolution = row.resolution;
  if (row.status === "open" || !resolution)
    throw notAcknowledgeable("the message is still open: there is no response to acknowledge yet");
  if (request.resolution_id !== undefined && request.resolution_id !== resolution.id) {
    throw new HubError("invalid_field", "resolution_id: does not match the message's resolution");
  }
  if (resolution.deliveredToAgentAt === null) {
    throw notAcknowledgeable(
      "the response has not been delivered to the agent yet: GET the message (or receive its push) first",
    );
  }

  const now = clock.now();
  const by = `agent:${principal.agentId}`;
  await db().$transaction(async (tx) => {
    // §14.1 first ack wins: only an un-acked, delivered resolution takes this write.
    const won = await tx.resolution.updateMany({
      where: { id: resolution.id, ackedAt: null, deliveredToAgentAt: { not: null } },
      data: { ackedAt: now, ackBy: by, ackNote: request.note ?? null, ackResolutionId: request.resolution_id ?? null },
    });
    if (won.count !== 1) return;
    await writeAudit(tx, {
      accountId: row.accountId,
      messageId: row.id,
      actor: by,
      event: AUDIT_EVENT.responseAcknowledged,
      detail: {
        resolution_id: resolution.id,
        ack_version: ackVersion(row.ma2hVersion),
        note: request.note !== undefined,
      },
      at: now,
    });
    // The person who answered sees the ack live (the inbox's LISTEN fan-out, on commit).
    await publishInboxChange(tx, row.accountId, row.id);
  });

  const stored = await db().resolution.findUnique({ where: { id: resolution.id } });
  const ack = stored ? storedAck(row.id, row.ma2hVersion, stored) : null;
  // Gone between the write and the read: retention purged it (its submitter reads 410, §8.2).
  if (ack === null) throw new HubError("gone", "message was deleted after its retention period");
  return ack;
}
