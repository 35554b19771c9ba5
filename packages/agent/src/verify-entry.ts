/**
 * One item of a session-presenting drain (§8.7.1), verified before the agent may use it: a
 * `{directive|message|response|receipt, signature}` item. A directive goes through verifyDirective
 * (§9.7, with the presented session as a valid addressee); the three v0.5 kinds through the §9.8
 * check in @ma2h/protocol/entry-signing — the context rebuilt from the entry as received, digests
 * recomputed, `to` reconstructed from the agent's own id and the presented session (never read from
 * the body) — then the §13.4 addressee check (a `message` entry's `to` must be this principal or this
 * session: another principal, or another session of ours, is wrong_addressee), the shape against
 * inbound-message.schema.json (the digests bind content only, so only the shape check stops an
 * injected `state` or callback), then the `jti` store. What comes back is typed, stripped of unknown
 * (unsigned) top-level fields, and carries the entry's ack key (§8.7.1) and dedup key (§6, §13.4).
 */
import { checkEntryDelivery, drainAddress, type EntryKind, MESSAGE_CONTENT_FIELDS } from "@ma2h/protocol/entry-signing";
import {
  type DeliveredReceipt,
  inboundMessageEntrySchema,
  inboundReceiptSchema,
  inboundResponseEntrySchema,
} from "@ma2h/protocol/inbound-message";
import type { Message } from "@ma2h/protocol/message";
import type { HubResponse } from "@ma2h/protocol/response";
import type { Directive } from "@ma2h/protocol/directive";
import type { HubKeys } from "./keys";
import { type ReplayStore, responseDedupKey } from "./stores";
import { checkWithKeys, defaultReplayStore, fail, keySource, windowOption } from "./verification";
import { verifyDirective } from "./verify-directive";

/** A delivered `message` entry (§8.7.1): the addressed envelope with the Hub's `id` and attested `from`. */
export type MessageEntry = Message & { id: string; from: string; to: string };

/** A bounce receipt (§14.2, §8.7.1). */
export type ReceiptEntry = DeliveredReceipt;

interface Keys {
  /** What `POST /v1/inbox/ack?session=` takes for this entry (§8.7.1 "Ack keys"). */
  ackKey: string;
  /** The at-most-once key in the dedup store (§13.4 step 3; §6 for a response). */
  dedupKey: string;
}

/** A drained item that passed verification, by kind. */
export type VerifiedEntry =
  | (Keys & { kind: "directive"; directive: Directive })
  | (Keys & { kind: "message"; message: MessageEntry })
  | (Keys & { kind: "response"; response: HubResponse })
  | (Keys & { kind: "receipt"; receipt: ReceiptEntry });

export interface VerifyEntryOptions {
  /** The agent's own id (without `agent:`). */
  agentId: string;
  /** The session the drain presented (`sess_…`): `response`/`receipt` contexts bind it (§9.8). */
  session: string;
  hubUrl?: string;
  hubKeys?: HubKeys;
  /** For a Hub signing with hmac-sha256 (`inbound.signature_algs`): the shared secret(s). Never both. */
  hmacSecret?: string | string[];
  replayStore?: ReplayStore;
  /** ±seconds around the agent's clock (default 120, §9.7/§9.8). */
  windowSeconds?: number;
  now?: () => Date;
  fetch?: typeof fetch;
}

const KINDS = ["directive", "message", "response", "receipt"] as const;

/** §4 envelope fields a delivered message may carry (plus the Hub's `id`/`from`); the rest is dropped. */
const MESSAGE_FIELDS = [
  ...MESSAGE_CONTENT_FIELDS,
  "ma2h_version",
  "id",
  "from",
  "to",
  "created_at",
  "agent", // advisory, unbound (§8.7.1): the attested identity is `from`
  "idempotency_key", // inert to the addressee (§8.7.1)
  "expires_at",
] as const;
/** §6 Response fields. */
const RESPONSE_FIELDS = [
  "ma2h_version",
  "in_reply_to",
  "resolution_id",
  "agent",
  "resolution",
  "defaulted",
  "response",
  "state",
] as const;
const RECEIPT_FIELDS = ["ma2h_version", "type", "id", "in_reply_to", "event", "prior", "at", "session", "to"] as const;

function pick<T>(value: Record<string, unknown>, fields: readonly string[]): T {
  const out: Record<string, unknown> = {};
  for (const key of fields) if (value[key] !== undefined) out[key] = value[key];
  return out as T;
}

/** §8.7.1 receipt dedup key `(in_reply_to, event)`. */
export function receiptDedupKey(r: { in_reply_to: string; event: string }): string {
  return `receipt:${JSON.stringify([r.in_reply_to, r.event])}`;
}

/** Which kind an item is: exactly one of the four keys, and a signature string. */
function kindOf(item: unknown): (typeof KINDS)[number] {
  if (typeof item !== "object" || item === null || Array.isArray(item)) fail("invalid_shape", "not a drained item");
  const present = KINDS.filter((k) => (item as Record<string, unknown>)[k] !== undefined);
  if (present.length !== 1) fail("invalid_shape", `a drained item carries exactly one of ${KINDS.join(", ")}`);
  return present[0] as (typeof KINDS)[number];
}

/** Verifies one drained item; throws VerificationError when it must not be used. */
export async function verifyEntry(item: unknown, options: VerifyEntryOptions): Promise<VerifiedEntry> {
  if (typeof options?.agentId !== "string" || options.agentId === "" || options.agentId.startsWith("agent:"))
    throw new TypeError("agentId is required: the agent's own id, without the agent: prefix");
  if (typeof options.session !== "string" || !/^sess_./u.test(options.session))
    throw new TypeError("session is required: the sess_… the drain presented");
  const kind = kindOf(item);
  const raw = item as Record<string, unknown>;
  const signature = typeof raw.signature === "string" ? raw.signature : null;

  if (kind === "directive") {
    const directive = await verifyDirective({ directive: raw.directive, signature: signature ?? "" }, options);
    return { kind, directive, ackKey: directive.id, dedupKey: directive.id };
  }

  const source = keySource(options, "the Hub's ed25519 keys, §9.8");
  const windowSeconds = windowOption(options.windowSeconds);
  const now = options.now?.() ?? new Date();
  const self = { agentId: options.agentId, session: options.session };
  const entry = raw[kind];
  const result = await checkWithKeys(source, (keys) =>
    checkEntryDelivery({ kind: kind as EntryKind, entry, signature, self, keys, now, windowSeconds }),
  );
  if (!result.ok) fail(result.reason);

  let verified: VerifiedEntry;
  if (kind === "message") {
    const parsed = inboundMessageEntrySchema.safeParse(entry);
    if (!parsed.success) fail("invalid_shape", `not a message entry (§8.7.1): ${parsed.error.message}`);
    const message = pick<MessageEntry>(parsed.data as Record<string, unknown>, MESSAGE_FIELDS);
    verified = { kind, message, ackKey: message.id, dedupKey: message.id };
  } else if (kind === "response") {
    const parsed = inboundResponseEntrySchema.safeParse(entry);
    if (!parsed.success) fail("invalid_shape", `not a response entry (§6, §8.7.1): ${parsed.error.message}`);
    const response = pick<HubResponse>(parsed.data as Record<string, unknown>, RESPONSE_FIELDS);
    verified = { kind, response, ackKey: response.resolution_id, dedupKey: responseDedupKey(response) };
  } else {
    const parsed = inboundReceiptSchema.safeParse(entry);
    if (!parsed.success) fail("invalid_shape", `not a receipt (§14.2, §8.7.1): ${parsed.error.message}`);
    const receipt = pick<ReceiptEntry>(parsed.data as Record<string, unknown>, RECEIPT_FIELDS);
    // The body's `to` is unsigned (§9.8 binds ours); one naming another session is not ours.
    if (receipt.to !== drainAddress(self)) fail("wrong_addressee", "the receipt names another session");
    verified = { kind, receipt, ackKey: receipt.id, dedupKey: receiptDedupKey(receipt) };
  }

  const store = options.replayStore ?? defaultReplayStore();
  if (!(await store.checkAndRecord(result.jti, result.rememberUntil, now))) fail("replayed");
  return verified;
}
