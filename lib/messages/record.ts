/** Reading stored rows back into protocol shapes. Rows were validated at submit (submit.ts). */
import type { Message as MessageRow, Resolution } from "../generated/prisma/client";
import type { Message } from "@ma2h/protocol/message";

import type { MailboxTrackRow } from "./mailbox-track";

/**
 * A message with its Resolution and, for an addressed message, its `message` entry's track (§14.2;
 * absent when the reader did not join it, null when the entry is gone).
 */
export type MessageWithResolution = MessageRow & { resolution: Resolution | null; mailbox?: MailboxTrackRow | null };

export function envelopeOf(row: Pick<MessageRow, "envelope">): Message {
  return JSON.parse(row.envelope) as Message;
}

/** `state` is opaque text; it is parsed only to be placed back into a JSON body, never inspected. */
export function stateOf(row: Pick<MessageRow, "state">): unknown {
  return row.state === null ? undefined : JSON.parse(row.state);
}

export function allowedResolversOf(envelope: Message): string[] | undefined {
  if (envelope.type === "ask") return envelope.request.allowed_resolvers;
  if (envelope.type === "task") return envelope.action.allowed_resolvers;
  return undefined;
}
