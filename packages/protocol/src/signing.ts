/**
 * §9.2 Response integrity, signer side: the push `signed_context`, `payload_sha256`, the HMAC-SHA256
 * and ed25519 signers, the `MA2H-Signature` header, the `v1` well-formedness rule (dp-025) and the
 * ed25519 JWKS shape published at `/.well-known/ma2h-keys`. Pure: no I/O, no clock —
 * shared with the agent-side verifier in ./verify.ts and the future agent SDK.
 */
import { createHmac, createPrivateKey, sign as nodeSign, type KeyObject } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import { mintId } from "./ids";
import { jcs, sha256Hex } from "./jcs";

export type SignatureAlg = "hmac-sha256" | "ed25519";
export type SigningKey = { alg: "hmac-sha256"; secret: string } | { alg: "ed25519"; privateKey: Uint8Array };
/** An ed25519 key carries its published `kid` when it came from a keys document (a pinned verifier filters on it). */
export type VerificationKey =
  | { alg: "hmac-sha256"; secret: string }
  | { alg: "ed25519"; publicKey: Uint8Array; kid?: string };

/** The body fields §9.2 binds (a `HubResponse` fits; `agent` and `defaulted` are never bound). */
export interface ResponseSigningBody {
  ma2h_version: string;
  in_reply_to: string;
  resolution: string;
  resolution_id: string;
  response?: { resolved_at?: unknown } | null;
  state?: object | null;
}

export type ResponseSignedContext = {
  ma2h_version: string;
  callback_url: string;
  id: string;
  in_reply_to: string;
  jti: string;
  payload_sha256: string;
  resolution: string;
  resolution_id: string;
  resolved_at: string | null;
  t: string;
};

/** §9.2: lowercase-hex SHA-256 of JCS of the fixed-key wrapper, absent members as `null`. */
export function payloadSha256(response: object | null | undefined, state: object | null | undefined): string {
  return sha256Hex(jcs({ response: response ?? null, state: state ?? null }));
}

/** The one builder of the §9.2 push context, used by the signer and the verifier alike. */
export function responseSignedContext(input: {
  response: ResponseSigningBody;
  callbackUrl: string;
  jti: string;
  t: number;
}): ResponseSignedContext {
  const body = input.response;
  const resolvedAt = body.response?.resolved_at;
  return {
    ma2h_version: body.ma2h_version, // the message's own version (§10)
    callback_url: input.callbackUrl, // exactly as submitted, never normalised
    id: body.in_reply_to,
    in_reply_to: body.in_reply_to,
    jti: input.jti,
    payload_sha256: payloadSha256(body.response, body.state),
    resolution: body.resolution,
    resolution_id: body.resolution_id,
    resolved_at: typeof resolvedAt === "string" ? resolvedAt : null, // null without a `response`
    t: String(input.t), // a string in the context, bare digits in the header
  };
}

/** The MAC or signature bytes over the UTF-8 JCS of a context. */
export function signBytes(canonical: string, key: SigningKey): Uint8Array {
  const message = Buffer.from(canonical, "utf8");
  // HMAC key: the UTF-8 bytes of the secret exactly as registered (requirements §8).
  if (key.alg === "hmac-sha256") return createHmac("sha256", Buffer.from(key.secret, "utf8")).update(message).digest();
  // RFC 8032 ed25519 is deterministic, so OpenSSL's signature is byte-identical to @noble/curves' —
  // at about a fifteenth of the CPU (0.03 ms against 0.53 ms per entry), which matters on a drain
  // that signs every entry
  // (docs/decisions/delivery-and-push.md "Native ed25519 signing"; docs/PERFORMANCE.md bench:mailbox).
  return new Uint8Array(nodeSign(null, message, ed25519KeyObject(key.privateKey)));
}

/** One OpenSSL key object per private key (the active key's bytes are cached, so this hits). */
const keyObjects = new WeakMap<Uint8Array, KeyObject>();

function ed25519KeyObject(privateKey: Uint8Array): KeyObject {
  let key = keyObjects.get(privateKey);
  if (!key) {
    const jwk = {
      kty: "OKP",
      crv: "Ed25519",
      d: base64url(privateKey),
      x: base64url(ed25519.getPublicKey(privateKey)),
    };
    key = createPrivateKey({ key: jwk, format: "jwk" });
    keyObjects.set(privateKey, key);
  }
  return key;
}

/** `v1`: unpadded base64url of the signature over JCS(context). */
export function signContext(context: Readonly<Record<string, string | null>>, key: SigningKey): string {
  return base64url(signBytes(jcs(context), key));
}

export interface SignatureHeader {
  t: number;
  jti: string;
  v1: string;
}

/** The `MA2H-Signature` value: exactly `t`, `jti`, `v1` — no key id (verifiers try each key). */
export function formatSignatureHeader({ t, jti, v1 }: SignatureHeader): string {
  if (!Number.isSafeInteger(t) || t < 0) throw new TypeError("t must be non-negative unix seconds");
  if (!isHeaderToken(jti) || !isHeaderToken(v1))
    throw new TypeError("jti and v1 must be non-empty, without ',' or whitespace");
  return `t=${t},jti=${jti},v1=${v1}`;
}

const MAX_HEADER_LENGTH = 1024;

/**
 * Parses an `MA2H-Signature` value. Tolerates whitespace around commas and ignores unknown
 * parameters (§10 robustness); refuses a missing, empty or repeated `t`/`jti`/`v1` and a `t` that is
 * not bare digits. `v1` is returned raw — its well-formedness is `isWellFormedMac`'s job.
 */
export function parseSignatureHeader(value: string): SignatureHeader | null {
  if (value.length > MAX_HEADER_LENGTH) return null;
  const seen = new Map<string, string>();
  for (const raw of value.split(",")) {
    const part = raw.trim();
    const eq = part.indexOf("=");
    if (eq <= 0) return null;
    const name = part.slice(0, eq);
    const val = part.slice(eq + 1);
    if (name !== "t" && name !== "jti" && name !== "v1") continue;
    if (seen.has(name) || !isHeaderToken(val)) return null;
    seen.set(name, val);
  }
  const t = seen.get("t");
  const jti = seen.get("jti");
  const v1 = seen.get("v1");
  if (t === undefined || jti === undefined || v1 === undefined || !/^[0-9]+$/.test(t)) return null;
  const seconds = Number(t);
  if (!Number.isSafeInteger(seconds)) return null;
  return { t: seconds, jti, v1 };
}

function isHeaderToken(s: string): boolean {
  return s.length > 0 && !/[,\s]/u.test(s);
}

const MAC_BODY = /^[A-Za-z0-9_-]*$/;
const MIN_MAC_BYTES = 32;

/**
 * §9.2 / dp-025, exactly: base64url alphabet; no padding or exactly (4 − len mod 4) mod 4 `=`;
 * decodes to ≥ 32 bytes; nothing more (no canonical round-trip check). A body of length ≡ 1 mod 4
 * encodes no whole byte under RFC 4648, so it is not base64url at all.
 */
export function decodeMac(v1: string): Uint8Array | null {
  const body = v1.replace(/=+$/, "");
  const pads = v1.length - body.length;
  if (!MAC_BODY.test(body) || body.length % 4 === 1) return null;
  if (pads !== 0 && pads !== (4 - (body.length % 4)) % 4) return null;
  const bytes = new Uint8Array(Buffer.from(body, "base64url"));
  return bytes.length >= MIN_MAC_BYTES ? bytes : null;
}

export function isWellFormedMac(v1: string): boolean {
  return decodeMac(v1) !== null;
}

/**
 * Signs a pushed Response: a fresh `jti` (unless given) and `t` from the caller's clock. Every
 * delivery attempt calls this again, so each carries its own `t` and `jti` (§9.2).
 */
export function signResponsePush(input: {
  response: ResponseSigningBody;
  callbackUrl: string;
  key: SigningKey;
  now: Date;
  jti?: string;
}): { header: string; context: ResponseSignedContext } {
  const t = Math.floor(input.now.getTime() / 1000);
  const jti = input.jti ?? mintId("jti");
  const context = responseSignedContext({ response: input.response, callbackUrl: input.callbackUrl, jti, t });
  return { header: formatSignatureHeader({ t, jti, v1: signContext(context, input.key) }), context };
}

export interface Ed25519Jwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  kid: string;
  use: "sig";
  alg: "EdDSA";
}

export function ed25519KeyPair(): { privateKey: Uint8Array; publicKey: Uint8Array } {
  const privateKey = ed25519.utils.randomSecretKey();
  return { privateKey, publicKey: ed25519.getPublicKey(privateKey) };
}

/** The RFC 7638 JWK thumbprint (RFC 8037 §2 members `crv`, `kty`, `x`): stable and recomputable. */
export function kidFor(publicKey: Uint8Array): string {
  const canonical = jcs({ crv: "Ed25519", kty: "OKP", x: base64url(publicKey) });
  return Buffer.from(sha256Hex(canonical), "hex").toString("base64url");
}

/** One entry of `/.well-known/ma2h-keys`: public members only. */
export function jwkFromEd25519(publicKey: Uint8Array, kid: string): Ed25519Jwk {
  return { kty: "OKP", crv: "Ed25519", x: base64url(publicKey), kid, use: "sig", alg: "EdDSA" };
}

/** The raw public key of a published Ed25519 JWK, or null when it is not one. */
export function publicKeyFromJwk(jwk: unknown): Uint8Array | null {
  if (typeof jwk !== "object" || jwk === null) return null;
  const { kty, crv, x } = jwk as Record<string, unknown>;
  if (kty !== "OKP" || crv !== "Ed25519" || typeof x !== "string" || !/^[A-Za-z0-9_-]{43}$/.test(x)) return null;
  return new Uint8Array(Buffer.from(x, "base64url"));
}

function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url");
}
