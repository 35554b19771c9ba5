/**
 * §9.7 directive integrity: the `inbound_signed_context`, its `payload_sha256`, and the per-delivery
 * signer. Mirrors §9.2 (./signing.ts) and reuses its JCS, MAC/signature and header helpers. Pure:
 * the caller supplies the key, the clock and (in tests) the jti.
 */
import { mintId } from "./ids";
import { jcs, sha256Hex } from "./jcs";
import { directiveContent, type Directive, type DirectiveContent } from "./directive";
import { formatSignatureHeader, signContext, type SigningKey } from "./signing";

export type InboundSignedContext = {
  from: string;
  id: string;
  jti: string;
  ma2h_version: string;
  payload_sha256: string;
  t: string;
  to: string;
};

/** The wire prefix of a drained entry's `signature` string (§8.7: `"MA2H-Signature: t=..,jti=..,v1=.."`). */
export const SIGNATURE_PREFIX = "MA2H-Signature: ";

/** §9.7: lowercase-hex SHA-256 of JCS of `{directive: <present content fields>}`; nothing else is bound. */
export function directivePayloadSha256(directive: DirectiveContent): string {
  return sha256Hex(jcs({ directive: directiveContent(directive) }));
}

/** The one builder of the §9.7 context, shared by the Hub's signer and any verifier. */
export function inboundSignedContext(directive: Directive, jti: string, t: number): InboundSignedContext {
  return {
    from: directive.from,
    id: directive.id,
    jti,
    ma2h_version: directive.ma2h_version,
    payload_sha256: directivePayloadSha256(directive),
    t: String(t), // a string in the context, bare digits in the header
    to: directive.to,
  };
}

/**
 * Signs one delivery of a directive. Every drain calls this again, so each delivery carries a fresh
 * `t` and `jti` while `from`/`id`/`to`/`payload_sha256` stay fixed (§9.7 per-delivery signing).
 */
export function signDirectiveDelivery(input: { directive: Directive; key: SigningKey; now: Date; jti?: string }): {
  signature: string;
  context: InboundSignedContext;
} {
  return signDelivery((jti, t) => inboundSignedContext(input.directive, jti, t), input);
}

/**
 * One delivery's signature over the context `build` makes for a fresh `t` (the caller's clock) and
 * `jti` (unless given): the §9.7 per-delivery discipline, inherited by every §9.8 entry kind. Returns
 * the drained entry's `signature` string (with {@link SIGNATURE_PREFIX}) and the context signed.
 */
export function signDelivery<C extends Readonly<Record<string, string | null>>>(
  build: (jti: string, t: number) => C,
  input: { key: SigningKey; now: Date; jti?: string },
): { signature: string; context: C } {
  const t = Math.floor(input.now.getTime() / 1000);
  const jti = input.jti ?? mintId("jti");
  const context = build(jti, t);
  const header = formatSignatureHeader({ t, jti, v1: signContext(context, input.key) });
  return { signature: SIGNATURE_PREFIX + header, context };
}

/** The header value of a drained entry's `signature` string: {@link SIGNATURE_PREFIX} removed when present. */
export function signatureHeaderValue(signature: string): string {
  return signature.startsWith(SIGNATURE_PREFIX) ? signature.slice(SIGNATURE_PREFIX.length) : signature;
}
