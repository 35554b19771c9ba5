/**
 * §9.7 / §13.4 agent side: verifies a drained (or pushed) directive before it may act on it — the
 * signature over the context rebuilt from the directive as received, the replay window, the `jti`
 * cache, and the addressee. Pure; the clock and keys are passed in. The stateless half is exported
 * apart from the replay check so a verifier with an asynchronous `jti` store (the agent SDK) reuses
 * it. Shape validation against inbound-message.schema.json is the caller's other duty (§13.4 step 1).
 */
import { directiveContent, type Directive } from "./directive";
import { inboundSignedContext, signatureHeaderValue } from "./inbound-signing";
import type { VerificationKey } from "./signing";
import {
  checkDetachedSignature,
  recordReceipt,
  type ReplayCache,
  type SignatureCheck,
  type VerifyFailure,
} from "./verify";

export type DirectiveVerifyResult = { ok: true } | { ok: false; reason: VerifyFailure | "wrong_addressee" };
export type DirectiveCheck =
  | Extract<SignatureCheck, { ok: true }>
  | { ok: false; reason: VerifyFailure | "wrong_addressee" };

/**
 * The stateless half (§13.4 steps 1–2 without the `jti` cache): header, `v1` (dp-025), window,
 * the signature over the context rebuilt from the directive as received, then the addressee.
 */
export function checkDirectiveDelivery(input: {
  directive: unknown;
  signature: string | null;
  /** The verifying agent's own address, `agent:<id>`. */
  self: string;
  keys: readonly VerificationKey[];
  now: Date;
  windowSeconds?: number;
}): DirectiveCheck {
  if (!input.signature) return { ok: false, reason: "missing_header" };
  const raw = signatureHeaderValue(input.signature);
  const directive = boundFields(input.directive);
  const check = checkDetachedSignature({
    header: raw,
    build: (jti, t) => (directive === null ? null : inboundSignedContext(directive, jti, t)),
    keys: input.keys,
    now: input.now,
    windowSeconds: input.windowSeconds,
  });
  if (!check.ok) return check;
  // §13.4 step 2: a valid signature for another agent is still not ours to act on.
  if (directive?.to !== input.self) return { ok: false, reason: "wrong_addressee" };
  return check;
}

/** §13.4 steps 1–2 in full: {@link checkDirectiveDelivery}, then the `jti` cache. */
export function verifyDirectiveDelivery(
  input: Parameters<typeof checkDirectiveDelivery>[0] & { replayCache: ReplayCache },
): DirectiveVerifyResult {
  const check = checkDirectiveDelivery(input);
  if (!check.ok) return check;
  return recordReceipt(check, input.replayCache, input.now);
}

/** The fields the context binds, as received; null when the directive cannot have been signed. */
function boundFields(value: unknown): Directive | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const d = value as Record<string, unknown>;
  for (const k of ["ma2h_version", "id", "from", "to", "title"] as const) if (typeof d[k] !== "string") return null;
  return {
    ...(directiveContent(d as unknown as Directive) as Directive),
    ma2h_version: d.ma2h_version as string,
    type: "directive",
    id: d.id as string,
    from: d.from as string,
    to: d.to as string,
    created_at: String(d.created_at ?? ""),
  };
}
