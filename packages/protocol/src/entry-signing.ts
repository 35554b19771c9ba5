/**
 * §9.8 inter-agent entry integrity: the signed contexts of the three v0.5 mailbox entry kinds
 * (§8.7.1) — `message`, `response`, `receipt` — their payload digests, the per-delivery signer and
 * the consumer-side verifier. Everything structural is inherited (§9.8 ¶1): JCS and the
 * hmac-sha256/ed25519 signers and header of §9.2 (./signing), the §9.7 per-delivery signing and
 * drained `signature` string (./inbound-signing), the window, `jti` cache and detached check of
 * ./verify. Pure: the caller supplies the key, the clock and (in tests) the jti.
 */
import { signatureHeaderValue, signDelivery, type InboundSignedContext } from "./inbound-signing";
import { jcs, sha256Hex } from "./jcs";
import { payloadSha256, type ResponseSigningBody, type SigningKey, type VerificationKey } from "./signing";
import {
  checkDetachedSignature,
  recordReceipt,
  type ReplayCache,
  type SignatureCheck,
  signingBody,
  type VerifyFailure,
} from "./verify";

/** The three v0.5 entry kinds §9.8 signs (`inter_agent.entry_kinds`, §8.0). */
export type EntryKind = "message" | "response" | "receipt";

/**
 * The verifying consumer's own drain identity: its `agent.id` and the session it presented
 * (`?session=`, §8.7.1). `response`/`receipt` contexts bind `to` reconstructed from it (§9.8).
 */
export interface DrainIdentity {
  agentId: string;
  session: string;
}

/** The session-qualified address `agent:<id>#<sess>` a drain identity receives at (§9.8 `to`). */
export function drainAddress(self: DrainIdentity): string {
  return `agent:${self.agentId}#${self.session}`;
}

// ─── message entry ──────────────────────────────────────────────────────────────────────────────

/** §9.8: the delivered envelope's fields the `message` digest binds, when present. */
export const MESSAGE_CONTENT_FIELDS = [
  "type",
  "title",
  "body",
  "priority",
  "tags",
  "context",
  "request",
  "action",
  "sensitive",
] as const;

type MessageContentField = (typeof MESSAGE_CONTENT_FIELDS)[number];
export type MessageContent = Partial<Record<MessageContentField, unknown>>;

/** The members of a delivered `message` entry (§8.7.1) that §9.8 binds, top-level or in the digest. */
export interface MessageEntry extends MessageContent {
  ma2h_version: string;
  id: string;
  /** Hub-attested, session-qualified when the submit carried `agent.session`. */
  from: string;
  to: string;
}

/** §9.8: the inter-agent mirror of §9.7 — the same key set as `inbound_signed_context`. */
export type MessageSignedContext = InboundSignedContext;

/**
 * Exactly the present fields among {@link MESSAGE_CONTENT_FIELDS} (§9.8). `sensitive` is bound here,
 * unlike §9.7; `created_at`, `expires_at`, the advisory `agent` and the inert `idempotency_key` are not.
 */
export function messageContent(entry: MessageContent): MessageContent {
  const out: MessageContent = {};
  for (const field of MESSAGE_CONTENT_FIELDS) if (entry[field] !== undefined) out[field] = entry[field];
  return out;
}

/** §9.8: lowercase-hex SHA-256 of JCS of the fixed-key `{message: <content>}`. */
export function messagePayloadSha256(entry: MessageContent): string {
  return sha256Hex(jcs({ message: messageContent(entry) }));
}

/** The one builder of the §9.8 `message_signed_context`, shared by the Hub's signer and any verifier. */
export function messageSignedContext(entry: MessageEntry, jti: string, t: number): MessageSignedContext {
  return {
    from: entry.from,
    id: entry.id,
    jti,
    ma2h_version: entry.ma2h_version,
    payload_sha256: messagePayloadSha256(entry),
    t: String(t), // a string in the context, bare digits in the header
    to: entry.to,
  };
}

// ─── response entry ─────────────────────────────────────────────────────────────────────────────

/** §9.8: §9.2's context with the mailbox destination `to` in place of `callback_url`. */
export type ResponseEntrySignedContext = {
  id: string;
  in_reply_to: string;
  jti: string;
  ma2h_version: string;
  payload_sha256: string;
  resolution: string;
  resolution_id: string;
  resolved_at: string | null;
  t: string;
  to: string;
};

/**
 * The one builder of the §9.8 `response_signed_context`. `payload_sha256` is the §9.2 digest, same
 * code path; `id` is the Response's `in_reply_to` (pinned equal); `resolved_at` is
 * `response.resolved_at`, JSON `null` when the Response carries no `response` (pinned, dp-015); `to`
 * is the submitting session's address — the body carries none, the verifier supplies its own.
 */
export function responseEntrySignedContext(input: {
  response: ResponseSigningBody;
  to: string;
  jti: string;
  t: number;
}): ResponseEntrySignedContext {
  const body = input.response;
  const resolvedAt = body.response?.resolved_at;
  return {
    id: body.in_reply_to,
    in_reply_to: body.in_reply_to,
    jti: input.jti,
    ma2h_version: body.ma2h_version,
    payload_sha256: payloadSha256(body.response, body.state),
    resolution: body.resolution,
    resolution_id: body.resolution_id,
    resolved_at: typeof resolvedAt === "string" ? resolvedAt : null,
    t: String(input.t),
    to: input.to,
  };
}

// ─── receipt entry ──────────────────────────────────────────────────────────────────────────────

/** The members of a delivered `receipt` entry (§8.7.1) that §9.8 binds. All six are present in a v0.5 bounce. */
export interface ReceiptEntry {
  ma2h_version: string;
  in_reply_to: string;
  id?: string | null;
  event?: string | null;
  prior?: string | null;
  at?: string | null;
  session?: string | null;
}

export type ReceiptSignedContext = {
  in_reply_to: string;
  jti: string;
  ma2h_version: string;
  receipt_sha256: string;
  t: string;
  to: string;
};

/**
 * §9.8: lowercase-hex SHA-256 of JCS of exactly `{at, event, id, in_reply_to, prior, session}`, an
 * absent member as JSON `null` (the §14.4 wrapper convention). The body's `to` is not in it.
 */
export function receiptSha256(receipt: ReceiptEntry): string {
  return sha256Hex(
    jcs({
      at: receipt.at ?? null,
      event: receipt.event ?? null,
      id: receipt.id ?? null,
      in_reply_to: receipt.in_reply_to,
      prior: receipt.prior ?? null,
      session: receipt.session ?? null,
    }),
  );
}

/** The one builder of the §9.8 `receipt_signed_context`; `to` is the sender session delivered to. */
export function receiptSignedContext(input: {
  receipt: ReceiptEntry;
  to: string;
  jti: string;
  t: number;
}): ReceiptSignedContext {
  return {
    in_reply_to: input.receipt.in_reply_to,
    jti: input.jti,
    ma2h_version: input.receipt.ma2h_version,
    receipt_sha256: receiptSha256(input.receipt),
    t: String(input.t),
    to: input.to,
  };
}

// ─── signing (Hub side) ─────────────────────────────────────────────────────────────────────────

type Signed<C> = { signature: string; context: C };
type SignInput = { key: SigningKey; now: Date; jti?: string };

/**
 * Signs one delivery of an entry (§9.8, per-delivery as §9.7): every drain or stream push calls this
 * again, so each delivery carries a fresh `t`/`jti` while the rest of the context stays fixed.
 * `to` for `response`/`receipt` is the session address the entry is delivered to ({@link drainAddress}).
 */
export function signMessageEntry(input: SignInput & { entry: MessageEntry }): Signed<MessageSignedContext> {
  return signDelivery((jti, t) => messageSignedContext(input.entry, jti, t), input);
}

export function signResponseEntry(
  input: SignInput & { response: ResponseSigningBody; to: string },
): Signed<ResponseEntrySignedContext> {
  return signDelivery(
    (jti, t) => responseEntrySignedContext({ response: input.response, to: input.to, jti, t }),
    input,
  );
}

export function signReceiptEntry(
  input: SignInput & { receipt: ReceiptEntry; to: string },
): Signed<ReceiptSignedContext> {
  return signDelivery((jti, t) => receiptSignedContext({ receipt: input.receipt, to: input.to, jti, t }), input);
}

// ─── verification (consumer side) ───────────────────────────────────────────────────────────────

export type EntryFailure = VerifyFailure | "wrong_addressee";
export type EntryCheck = Extract<SignatureCheck, { ok: true }> | { ok: false; reason: EntryFailure };
export type EntryVerifyResult = { ok: true } | { ok: false; reason: EntryFailure };

export interface EntryCheckInput {
  kind: EntryKind;
  /** The entry's payload as received (the value under its kind's key in the drained item). */
  entry: unknown;
  /** The drained item's `signature` string, with or without the `MA2H-Signature: ` prefix. */
  signature: string | null;
  self: DrainIdentity;
  keys: readonly VerificationKey[];
  now: Date;
  windowSeconds?: number;
}

/**
 * The stateless half of verifying a drained entry: header, `v1` (dp-025), window, then the signature
 * over the context rebuilt from the entry as received — digests recomputed, never read from the wire;
 * for `response`/`receipt`, `to` from `self` (never the body, dp-014/dp-017). A `message` entry is
 * then addressee-checked (§13.4 step 2 with the v0.5 session amendment).
 */
export function checkEntryDelivery(input: EntryCheckInput): EntryCheck {
  if (!input.signature) return { ok: false, reason: "missing_header" };
  const to = drainAddress(input.self);
  let build: (jti: string, t: number) => Readonly<Record<string, string | null>> | null;
  const message = input.kind === "message" ? messageBound(input.entry) : null;
  if (input.kind === "message") {
    build = (jti, t) => (message === null ? null : messageSignedContext(message, jti, t));
  } else if (input.kind === "response") {
    const response = signingBody(input.entry); // the §9.2 body rule, shared
    build = (jti, t) => (response === null ? null : responseEntrySignedContext({ response, to, jti, t }));
  } else {
    const receipt = receiptBound(input.entry);
    build = (jti, t) => (receipt === null ? null : receiptSignedContext({ receipt, to, jti, t }));
  }
  const check = checkDetachedSignature({
    header: signatureHeaderValue(input.signature),
    build,
    keys: input.keys,
    now: input.now,
    windowSeconds: input.windowSeconds,
  });
  if (!check.ok) return check;
  // §13.4 step 2 + v0.5 amendment: `to`'s principal is us and, when session-qualified, our current session.
  if (message !== null && message.to !== `agent:${input.self.agentId}` && message.to !== to)
    return { ok: false, reason: "wrong_addressee" };
  return check;
}

/** {@link checkEntryDelivery}, then the `jti` cache (only a validly signed entry is recorded). */
export function verifyEntryDelivery(input: EntryCheckInput & { replayCache: ReplayCache }): EntryVerifyResult {
  const check = checkEntryDelivery(input);
  if (!check.ok) return check;
  return recordReceipt(check, input.replayCache, input.now);
}

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/** The bound members of a received entry, as received; null when it cannot have been signed. */
function messageBound(value: unknown): MessageEntry | null {
  const m = record(value);
  if (m === null) return null;
  const { ma2h_version, id, from, to } = m;
  if (typeof ma2h_version !== "string" || typeof id !== "string" || typeof from !== "string" || typeof to !== "string")
    return null;
  return { ...messageContent(m), ma2h_version, id, from, to };
}

function receiptBound(value: unknown): ReceiptEntry | null {
  const r = record(value);
  if (r === null) return null;
  const { ma2h_version, in_reply_to, id, event, prior, at, session } = r;
  if (typeof ma2h_version !== "string" || typeof in_reply_to !== "string") return null;
  for (const s of [id, event, prior, at, session])
    if (s !== undefined && s !== null && typeof s !== "string") return null;
  return {
    ma2h_version,
    in_reply_to,
    id: id as ReceiptEntry["id"],
    event: event as ReceiptEntry["event"],
    prior: prior as ReceiptEntry["prior"],
    at: at as ReceiptEntry["at"],
    session: session as ReceiptEntry["session"],
  };
}
