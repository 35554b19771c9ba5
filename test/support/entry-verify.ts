/**
 * An INDEPENDENT §9.8 verifier for the three v0.5 mailbox entry kinds — `message`, `response` and
 * `receipt` — written from the spec text (§9.8, §9.2, §14.4) and its worked example
 * (examples/entry-signatures-v0.5.md), and deliberately importing nothing from lib/: the Hub's
 * signer is checked by code that is not its own, so the two cannot agree on a mistake unnoticed.
 *
 * Every kind: parse `MA2H-Signature: t=<unix>,jti=<nonce>,v1=<base64url>`, recompute the kind's
 * digest from the payload actually received (never trusted from the wire), rebuild the canonical
 * context (RFC 8785 JCS via `canonicalize`), verify HMAC-SHA256 (the conformance fixtures) or
 * ed25519 (the Hub's published key), and — when a ReplayGuard is given — check `t` against the
 * ±window and refuse a `jti` already seen. The `to` of a response or receipt context is
 * RECONSTRUCTED from the verifier's own drain identity (opts.to), never read from the wire; a
 * message entry's `to` is read from the entry (it is bound) and then confirmed against the
 * addressee's own identity (opts.expectTo, §13.4).
 *
 * No test-runner imports.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import canonicalize from "canonicalize";

/** Wire JSON, read field by field. */
type Obj = Record<string, any>;

/** A key the verifier accepts: a shared HMAC secret (fixtures) or an ed25519 public key. */
export type VerifyKey =
  | { alg: "hmac-sha256"; secret: string }
  | { alg: "ed25519"; publicKey: Uint8Array; kid?: string };

export type EntryReason =
  | "bad_header"
  | "bad_entry"
  | "stale"
  | "replay"
  | "bad_signature"
  | "not_addressee"
  | "missing_to";

export type EntryVerdict =
  | { ok: true; t: number; jti: string; canonical: string; digest: string; kid?: string }
  | { ok: false; reason: EntryReason; canonical?: string };

export interface ParsedHeader {
  t: string;
  jti: string;
  v1: Uint8Array;
}

/** The §9.7/§9.8 wire header, with or without its `MA2H-Signature: ` name; null when malformed. */
export function parseSignatureHeader(header: string): ParsedHeader | null {
  const m = /^(?:MA2H-Signature:\s*)?t=(\d+),jti=([^,\s]+),v1=([A-Za-z0-9_-]+)$/.exec(header.trim());
  if (!m) return null;
  return { t: m[1] as string, jti: m[2] as string, v1: new Uint8Array(Buffer.from(m[3] as string, "base64url")) };
}

/** A JWKS `x` (base64url) as an ed25519 VerifyKey. */
export function ed25519Key(x: string, kid?: string): VerifyKey {
  return { alg: "ed25519", publicKey: new Uint8Array(Buffer.from(x, "base64url")), kid };
}

/** The Hub's published ed25519 keys, fetched from its JWKS URL (`/.well-known/ma2h-keys`). */
export async function fetchHubKeys(jwksUrl: string): Promise<VerifyKey[]> {
  const res = await fetch(jwksUrl);
  if (!res.ok) throw new Error(`JWKS ${jwksUrl}: ${res.status}`);
  const { keys } = (await res.json()) as { keys: { kty: string; crv: string; x: string; kid: string }[] };
  return keys.filter((k) => k.kty === "OKP" && k.crv === "Ed25519").map((k) => ed25519Key(k.x, k.kid));
}

/**
 * The ±window `t` check and the `jti` cache (TTL ≥ window), §9.7 as inherited by §9.8. A jti is
 * remembered only once its signature verified; a redelivery carries a fresh jti and is no replay.
 */
export class ReplayGuard {
  private readonly seen = new Map<string, number>(); // jti → forget after (unix s)
  constructor(readonly windowSeconds = 120) {}

  /** null when (t, jti) may be accepted at `now` (unix seconds), else the reason. */
  check(t: number, jti: string, now: number): "stale" | "replay" | null {
    if (Math.abs(now - t) > this.windowSeconds) return "stale";
    for (const [j, until] of this.seen) if (until < now) this.seen.delete(j);
    return this.seen.has(jti) ? "replay" : null;
  }

  remember(t: number, jti: string): void {
    this.seen.set(jti, t + this.windowSeconds + 1);
  }
}

export interface CommonOptions {
  /** When given, `t` is checked against the window and `jti` against the cache. */
  guard?: ReplayGuard;
  /** The verifier's clock, unix seconds (default now). */
  now?: number;
}

const sha256Hex = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

function jcs(value: unknown): string {
  const text = canonicalize(value);
  if (typeof text !== "string") throw new Error("not canonicalizable");
  return text;
}

function signatureMatches(keys: VerifyKey[], message: Uint8Array, signature: Uint8Array): VerifyKey | undefined {
  return keys.find((key) => {
    if (key.alg === "hmac-sha256") {
      const mac = createHmac("sha256", Buffer.from(key.secret, "utf8")).update(message).digest();
      return mac.length === signature.length && timingSafeEqual(mac, signature);
    }
    try {
      return ed25519.verify(signature, message, key.publicKey);
    } catch {
      return false;
    }
  });
}

/** Shared tail: header → guard → context (built by `build`) → signature → remember the jti. */
function verifyContext(
  header: string,
  keyOrKeys: VerifyKey | VerifyKey[],
  options: CommonOptions,
  build: (t: string, jti: string) => { context: Obj; digest: string } | null,
): EntryVerdict {
  const parsed = parseSignatureHeader(header);
  if (!parsed) return { ok: false, reason: "bad_header" };
  const t = Number(parsed.t);
  const now = options.now ?? Date.now() / 1000;
  const refused = options.guard?.check(t, parsed.jti, now);
  if (refused) return { ok: false, reason: refused };
  const built = build(parsed.t, parsed.jti);
  if (!built) return { ok: false, reason: "bad_entry" };
  const canonical = jcs(built.context);
  const keys = Array.isArray(keyOrKeys) ? keyOrKeys : [keyOrKeys];
  const key = signatureMatches(keys, new Uint8Array(Buffer.from(canonical, "utf8")), parsed.v1);
  if (!key) return { ok: false, reason: "bad_signature", canonical };
  options.guard?.remember(t, parsed.jti);
  return {
    ok: true,
    t,
    jti: parsed.jti,
    canonical,
    digest: built.digest,
    kid: key.alg === "ed25519" ? key.kid : undefined,
  };
}

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** §9.8: the content fields of a message entry bound by payload_sha256 (present ones only). */
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

/** payload_sha256 of a message entry: SHA-256 of JCS({"message": <present content fields>}). */
export function messagePayloadDigest(entry: Obj): { jcs: string; sha256: string } {
  const content: Obj = {};
  for (const k of MESSAGE_CONTENT_FIELDS) if (entry[k] !== undefined) content[k] = entry[k];
  const text = jcs({ message: content });
  return { jcs: text, sha256: sha256Hex(text) };
}

/** payload_sha256 of a response entry — the §9.2 digest: JCS({"response": …|null, "state": …|null}). */
export function responsePayloadDigest(response: Obj): { jcs: string; sha256: string } {
  const text = jcs({ response: response.response ?? null, state: response.state ?? null });
  return { jcs: text, sha256: sha256Hex(text) };
}

/** receipt_sha256: JCS of exactly {at, event, id, in_reply_to, prior, session}, absent → null. */
export function receiptDigest(receipt: Obj): { jcs: string; sha256: string } {
  const wrapper: Obj = {};
  for (const k of ["at", "event", "id", "in_reply_to", "prior", "session"]) wrapper[k] = receipt[k] ?? null;
  const text = jcs(wrapper);
  return { jcs: text, sha256: sha256Hex(text) };
}

/**
 * A `message` entry (§9.8): context {from, id, jti, ma2h_version, payload_sha256, t, to} with
 * from/id/to read from the entry (all bound) and the digest recomputed. Then the §13.4 addressee
 * check: the bound `to` must be one of `expectTo` (the principal address and/or this drain's
 * session-qualified address) — a validly signed entry re-routed unmodified still verifies, so this
 * check is separate and comes after the signature.
 */
export function verifyMessageEntry(
  entry: Obj,
  signatureHeader: string,
  key: VerifyKey | VerifyKey[],
  options: CommonOptions & { expectTo?: string | string[] } = {},
): EntryVerdict {
  const verdict = verifyContext(signatureHeader, key, options, (t, jti) => {
    if (!isObj(entry) || typeof entry.from !== "string" || typeof entry.id !== "string" || typeof entry.to !== "string")
      return null;
    const digest = messagePayloadDigest(entry).sha256;
    return {
      digest,
      context: {
        from: entry.from,
        id: entry.id,
        jti,
        ma2h_version: entry.ma2h_version,
        payload_sha256: digest,
        t,
        to: entry.to,
      },
    };
  });
  if (!verdict.ok || options.expectTo === undefined) return verdict;
  const mine = Array.isArray(options.expectTo) ? options.expectTo : [options.expectTo];
  return mine.includes(entry.to) ? verdict : { ok: false, reason: "not_addressee", canonical: verdict.canonical };
}

/**
 * A `response` entry (§9.8): the §9.2 key set with `to` — reconstructed from the verifier's own
 * drain identity (`agent:<id>#<sess>`, opts.to) — in place of callback_url; `id` reconstructed from
 * `in_reply_to`; `resolved_at` is response.resolved_at, or JSON null when the response detail is
 * absent.
 */
export function verifyResponseEntry(
  response: Obj,
  signatureHeader: string,
  key: VerifyKey | VerifyKey[],
  options: CommonOptions & { to: string },
): EntryVerdict {
  if (!options.to) return { ok: false, reason: "missing_to" };
  return verifyContext(signatureHeader, key, options, (t, jti) => {
    if (!isObj(response) || typeof response.in_reply_to !== "string") return null;
    const digest = responsePayloadDigest(response).sha256;
    const detail = isObj(response.response) ? response.response : null;
    return {
      digest,
      context: {
        id: response.in_reply_to,
        in_reply_to: response.in_reply_to,
        jti,
        ma2h_version: response.ma2h_version,
        payload_sha256: digest,
        resolution: response.resolution,
        resolution_id: response.resolution_id,
        resolved_at: detail ? (detail.resolved_at ?? null) : null,
        t,
        to: options.to,
      },
    };
  });
}

/**
 * A `receipt` entry (§9.8): context {in_reply_to, jti, ma2h_version, receipt_sha256, t, to} with
 * `to` reconstructed from the verifier's own drain identity (the body's `to` is routing
 * convenience, never verification input) and receipt_sha256 over the six-key fixed wrapper.
 */
export function verifyReceiptEntry(
  receipt: Obj,
  signatureHeader: string,
  key: VerifyKey | VerifyKey[],
  options: CommonOptions & { to: string },
): EntryVerdict {
  if (!options.to) return { ok: false, reason: "missing_to" };
  return verifyContext(signatureHeader, key, options, (t, jti) => {
    if (!isObj(receipt) || typeof receipt.in_reply_to !== "string") return null;
    const digest = receiptDigest(receipt).sha256;
    return {
      digest,
      context: {
        in_reply_to: receipt.in_reply_to,
        jti,
        ma2h_version: receipt.ma2h_version,
        receipt_sha256: digest,
        t,
        to: options.to,
      },
    };
  });
}
