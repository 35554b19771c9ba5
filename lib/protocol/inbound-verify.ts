/**
 * §9.7 / §13.4 agent side: verifies a drained (or pushed) directive before it may act on it — the
 * signature over the context rebuilt from the directive as received, the replay window, the `jti`
 * cache, and the addressee. Pure; the clock and keys are passed in. Shape validation against
 * inbound-message.schema.json is the caller's other duty (§13.4 step 1).
 */
import { directiveContent, type Directive } from "./directive";
import { inboundSignedContext, SIGNATURE_PREFIX } from "./inbound-signing";
import { decodeMac, parseSignatureHeader, type VerificationKey } from "./signing";
import { DEFAULT_REPLAY_WINDOW_SECONDS, verifyContext, type ReplayCache, type VerifyFailure } from "./verify";

export type DirectiveVerifyResult = { ok: true } | { ok: false; reason: VerifyFailure | "wrong_addressee" };

export function verifyDirectiveDelivery(input: {
  directive: unknown;
  signature: string | null;
  /** The verifying agent's own address, `agent:<id>`. */
  self: string;
  keys: readonly VerificationKey[];
  now: Date;
  windowSeconds?: number;
  replayCache: ReplayCache;
}): DirectiveVerifyResult {
  if (!input.signature) return { ok: false, reason: "missing_header" };
  const raw = input.signature.startsWith(SIGNATURE_PREFIX)
    ? input.signature.slice(SIGNATURE_PREFIX.length)
    : input.signature;
  const header = parseSignatureHeader(raw);
  if (header === null) return { ok: false, reason: "malformed_header" };
  const mac = decodeMac(header.v1);
  if (mac === null) return { ok: false, reason: "malformed_mac" };
  const windowMs = (input.windowSeconds ?? DEFAULT_REPLAY_WINDOW_SECONDS) * 1000;
  if (!(Math.abs(input.now.getTime() - header.t * 1000) <= windowMs)) return { ok: false, reason: "outside_window" };

  const directive = boundFields(input.directive);
  if (directive === null) return { ok: false, reason: "signature_mismatch" };
  let context: ReturnType<typeof inboundSignedContext>;
  try {
    context = inboundSignedContext(directive, header.jti, header.t);
  } catch {
    return { ok: false, reason: "signature_mismatch" };
  }
  if (!verifyContext(context, mac, input.keys)) return { ok: false, reason: "signature_mismatch" };
  // §13.4 step 2: a valid signature for another agent is still not ours to act on.
  if (directive.to !== input.self) return { ok: false, reason: "wrong_addressee" };
  if (input.replayCache.has(header.jti, input.now)) return { ok: false, reason: "replayed" };
  input.replayCache.add(header.jti, input.now, new Date(header.t * 1000 + windowMs));
  return { ok: true };
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
