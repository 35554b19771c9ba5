/** Wire shapes of the agent→human leg: the §8.1 ack, the §6 Response and the §8.2 GET body. */
import type { Message as MessageRow, Resolution } from "../generated/prisma/client";
import { env } from "../env";
import type { SubmitAck } from "../protocol/submit-ack";
import type { ResponseSigningBody } from "../protocol/signing";
import { deliveryTrack } from "./delivery-track";
import { envelopeOf, stateOf, type MessageWithResolution } from "./record";

/** §8.1: exactly `{id, status, poll_url, review_url}`. */
export function submitAck(row: Pick<MessageRow, "id" | "status">): SubmitAck {
  const base = env().publicUrl;
  return {
    id: row.id,
    // The column holds only §7 states, each of which the ack schema's `status` enum lists.
    status: row.status as SubmitAck["status"],
    poll_url: `${base}/v1/messages/${row.id}`,
    review_url: `${base}/inbox/${row.id}`,
  };
}

/** The §6 Response as built here: the §9.2-bound fields the push signer reads, plus the rest. */
export type HubResponseBody = ResponseSigningBody & Record<string, unknown>;

/** §6 Response, at the message's own `ma2h_version` (§10: signed at the version carried). */
export function hubResponse(row: MessageRow, resolution: Resolution): HubResponseBody {
  const envelope = envelopeOf(row);
  const out: HubResponseBody = {
    ma2h_version: row.ma2hVersion,
    in_reply_to: row.id,
    resolution_id: resolution.id,
    agent: { id: envelope.agent.id, run_id: envelope.agent.run_id },
    resolution: resolution.resolution,
  };
  if (resolution.response !== null) out.response = JSON.parse(resolution.response);
  out.defaulted = resolution.defaulted;
  const state = stateOf(row);
  if (state !== undefined) out.state = state;
  return out;
}

/**
 * Top-level keys of the §8.2 GET body that only the Hub may set (§4: `id` is not an agent input;
 * §8.2: `status`, `response`, `delivery`, `mailbox` are the Hub's tracks). A submitted envelope may
 * carry any of them — it is stored verbatim for the §8.1 payload hash — so the GET drops the
 * submitted values and writes only the Hub's own.
 */
const HUB_OWNED_KEYS = ["id", "status", "response", "delivery", "mailbox"] as const;

/**
 * §8.2 GET body: the message as submitted, its Hub id and status, the Response once terminal, and
 * the §14.2 `delivery` object once the answer reached the agent. The embedded `response` is built
 * from the immutable Resolution only, so it is byte-stable across GETs while `delivery` advances.
 * No `mailbox`: this leg has no outbound mailbox track (§14.2, addressed messages only).
 */
export function messageBody(row: MessageWithResolution): Record<string, unknown> {
  const body: Record<string, unknown> = { ...envelopeOf(row) };
  for (const key of HUB_OWNED_KEYS) delete body[key];
  const state = stateOf(row);
  if (state !== undefined) body.state = state;
  body.id = row.id;
  body.status = row.status;
  if (row.resolution) body.response = hubResponse(row, row.resolution);
  // Only asks and tasks have a response track; a notify never carries `delivery` (§5.1).
  const delivery = row.type === "notify" ? undefined : deliveryTrack(row.id, row.ma2hVersion, row.resolution);
  if (delivery) body.delivery = delivery;
  return body;
}
