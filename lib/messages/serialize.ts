/** Wire shapes of the agent→human leg: the §8.1 ack, the §6 Response and the §8.2 GET body. */
import type { Message as MessageRow, Resolution } from "../generated/prisma/client";
import { env } from "../env";
import type { SubmitAck } from "@ma2h/protocol/submit-ack";
import type { ResponseSigningBody } from "@ma2h/protocol/signing";
import { deliveryTrack } from "./delivery-track";
import { envelopeOf, stateOf, type MessageWithResolution } from "./record";
import { mailboxTrack, type MailboxTrackRow } from "./mailbox-track";
import type { Tx } from "../db";
import type { Destination } from "@ma2h/protocol/submit-ack";

/** A `message` entry purged before its message (never while the message exists; a fallback only). */
const GONE_ENTRY: MailboxTrackRow = { state: "queued", deliveredAt: null, acknowledgedAt: null, prior: null };

/**
 * §8.1: `{id, status, poll_url, review_url}`, plus — on every addressed ack — the `destination`
 * snapshot taken at the original submit (a replay returns the stored original).
 */
export function submitAck(row: Pick<MessageRow, "id" | "status"> & { destination?: string | null }): SubmitAck {
  const base = env().publicUrl;
  const ack: SubmitAck = {
    id: row.id,
    // The status is a §7 state or a §14.2 mailbox state, each of which the ack schema's enum lists.
    status: row.status as SubmitAck["status"],
    poll_url: `${base}/v1/messages/${row.id}`,
    review_url: `${base}/inbox/${row.id}`,
  };
  if (row.destination) ack.destination = JSON.parse(row.destination) as Destination;
  return ack;
}

/**
 * §8.1 / §5.1 the status of a message's owning track: the §7 status, except for an addressed
 * notify, whose lifecycle is its entry's mailbox track (the stored `queued` is only its start).
 */
export function owningStatusOf(
  row: Pick<MessageRow, "type" | "status" | "toAddress">,
  entry: MailboxTrackRow | null | undefined,
): string {
  if (row.type === "notify" && row.toAddress !== null && entry) return entry.state;
  return row.status;
}

/** {@link owningStatusOf}, reading the entry in `tx` (an idempotent replay, §8.1). */
export async function owningStatus(
  tx: Tx,
  row: Pick<MessageRow, "id" | "type" | "status" | "destination">,
): Promise<string> {
  if (row.type !== "notify" || row.destination === null) return row.status;
  const entry = await tx.mailboxEntry.findUnique({
    where: { id: row.id },
    select: { state: true, deliveredAt: true, acknowledgedAt: true, prior: true },
  });
  return owningStatusOf({ ...row, toAddress: row.destination }, entry);
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
export const HUB_OWNED_KEYS = ["id", "status", "response", "delivery", "mailbox"] as const;

/**
 * §8.2 GET body: the message as submitted, its Hub id and status, the Response once terminal, and
 * the §14.2 `delivery` object once the answer reached the agent. The embedded `response` is built
 * from the immutable Resolution only, so it is byte-stable across GETs while `delivery` advances.
 * An addressed message adds its `mailbox` track (§8.2); for an addressed notify `status` mirrors it.
 */
export function messageBody(row: MessageWithResolution): Record<string, unknown> {
  const body: Record<string, unknown> = { ...envelopeOf(row) };
  for (const key of HUB_OWNED_KEYS) delete body[key];
  const state = stateOf(row);
  if (state !== undefined) body.state = state;
  body.id = row.id;
  body.status = owningStatusOf(row, row.mailbox);
  if (row.resolution) body.response = hubResponse(row, row.resolution);
  // Only asks and tasks have a response track; a notify never carries `delivery` (§5.1).
  const delivery = row.type === "notify" ? undefined : deliveryTrack(row.id, row.ma2hVersion, row.resolution);
  if (delivery) body.delivery = delivery;
  // §8.2: an addressed message carries the sender's view of the outbound mailbox track.
  if (row.toAddress !== null) body.mailbox = mailboxTrack(row.mailbox ?? GONE_ENTRY);
  return body;
}
