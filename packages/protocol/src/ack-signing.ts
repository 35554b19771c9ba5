/**
 * §14.4 pushed-ack integrity: `ack_sha256` over the fixed five-key wrapper, the
 * `ack_signed_context`, and the detached `MA2H-Signature` signer and verifier. Pure: no I/O, no
 * clock. The Hub pulls acks only today (transport-trusted, §14.4), so nothing pushes these yet; the
 * signer exists so a future ack push reproduces dp-008 exactly. The primitives (JCS, HMAC-SHA256 /
 * ed25519, the header, the window and the replay cache) are the §9.2 ones in ./signing and ./verify.
 */
import { mintId } from "./ids";
import { jcs, sha256Hex } from "./jcs";
import { formatSignatureHeader, signContext, type SigningKey, type VerificationKey } from "./signing";
import { verifyDetached, type ReplayCache, type VerifyResult } from "./verify";

/** The ack members §14.4 binds (an `Ack` from ./ack fits). */
export interface AckSigningBody {
  ma2h_version: string;
  in_reply_to: string;
  by: string;
  acked_at: string;
  note?: string | null;
  resolution_id?: string | null;
}

export type AckSignedContext = {
  ack_sha256: string;
  by: string;
  in_reply_to: string;
  jti: string;
  ma2h_version: string;
  t: string;
};

/**
 * §14.4: lowercase-hex SHA-256 of JCS of exactly `{acked_at, by, in_reply_to, note, resolution_id}`,
 * an absent optional serialized as JSON `null` (never omitted), so the digest does not depend on
 * which optionals the ack carries.
 */
export function ackSha256(ack: AckSigningBody): string {
  return sha256Hex(
    jcs({
      acked_at: ack.acked_at,
      by: ack.by,
      in_reply_to: ack.in_reply_to,
      note: ack.note ?? null,
      resolution_id: ack.resolution_id ?? null,
    }),
  );
}

/** The one builder of the §14.4 context, used by the signer and the verifier alike. */
export function ackSignedContext(input: { ack: AckSigningBody; jti: string; t: number }): AckSignedContext {
  return {
    ack_sha256: ackSha256(input.ack),
    by: input.ack.by,
    in_reply_to: input.ack.in_reply_to,
    jti: input.jti,
    ma2h_version: input.ack.ma2h_version,
    t: String(input.t), // a string in the context, bare digits in the header
  };
}

/** Signs a pushed ack: a fresh `jti` (unless given) and `t` from the caller's clock. */
export function signAckPush(input: { ack: AckSigningBody; key: SigningKey; now: Date; jti?: string }): {
  header: string;
  context: AckSignedContext;
} {
  const t = Math.floor(input.now.getTime() / 1000);
  const jti = input.jti ?? mintId("jti");
  const context = ackSignedContext({ ack: input.ack, jti, t });
  return { header: formatSignatureHeader({ t, jti, v1: signContext(context, input.key) }), context };
}

/**
 * The human client's side (§14.4): `ack_sha256` is recomputed from the ack actually received (a
 * transmitted digest is never trusted), then the §9.2 header, window, keys and replay checks.
 */
export function verifyAckPush(input: {
  ack: unknown;
  header: string | null;
  keys: readonly VerificationKey[];
  now: Date;
  windowSeconds?: number;
  replayCache: ReplayCache;
}): VerifyResult {
  const ack = ackBody(input.ack);
  return verifyDetached({ ...input, build: (jti, t) => (ack === null ? null : ackSignedContext({ ack, jti, t })) });
}

/** The bound members of a received ack, as received; null when it cannot have been signed. */
function ackBody(value: unknown): AckSigningBody | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const { ma2h_version, in_reply_to, by, acked_at, note, resolution_id } = value as Record<string, unknown>;
  for (const s of [ma2h_version, in_reply_to, by, acked_at]) if (typeof s !== "string") return null;
  for (const s of [note, resolution_id]) if (s !== undefined && s !== null && typeof s !== "string") return null;
  return {
    ma2h_version: ma2h_version as string,
    in_reply_to: in_reply_to as string,
    by: by as string,
    acked_at: acked_at as string,
    note: note as string | null | undefined,
    resolution_id: resolution_id as string | null | undefined,
  };
}
