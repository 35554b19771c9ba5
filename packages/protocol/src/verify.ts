/**
 * §9.2 Response integrity, agent side: verifies a pushed Response from the body actually received,
 * its `MA2H-Signature` header and the callback URL the agent registered. Pure; the clock is passed in.
 */
import { timingSafeEqual } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import { jcs } from "./jcs";
import {
  decodeMac,
  parseSignatureHeader,
  responseSignedContext,
  signBytes,
  type ResponseSigningBody,
  type VerificationKey,
} from "./signing";

/** §9.2: reject a `t` outside ±120 s of the verifier's own clock. */
export const DEFAULT_REPLAY_WINDOW_SECONDS = 120;

export type VerifyFailure =
  | "missing_header"
  | "malformed_header"
  | "malformed_mac"
  | "outside_window"
  | "replayed"
  | "signature_mismatch";
export type VerifyResult = { ok: true } | { ok: false; reason: VerifyFailure };

/**
 * The agent's replay cache of seen `jti`s (§9.2: TTL ≥ the replay window). In memory, time passed
 * in. Bounded: over `maxEntries` it drops expired entries, then the oldest — only validly signed
 * pushes are ever recorded, so only the Hub's own traffic can fill it.
 */
export class ReplayCache {
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #expiresAt = new Map<string, number>();

  constructor(options: { ttlSeconds?: number; maxEntries?: number } = {}) {
    const ttlSeconds = options.ttlSeconds ?? 2 * DEFAULT_REPLAY_WINDOW_SECONDS;
    if (!(ttlSeconds >= DEFAULT_REPLAY_WINDOW_SECONDS)) throw new RangeError("ttlSeconds must be ≥ the replay window");
    this.#ttlMs = ttlSeconds * 1000;
    this.#maxEntries = Math.max(1, options.maxEntries ?? 100_000);
  }

  get size(): number {
    return this.#expiresAt.size;
  }

  has(jti: string, now: Date): boolean {
    const expiresAt = this.#expiresAt.get(jti);
    if (expiresAt === undefined) return false;
    if (expiresAt > now.getTime()) return true;
    this.#expiresAt.delete(jti);
    return false;
  }

  /** Records `jti` for the TTL, and at least until `keepUntil` (the end of its `t`'s window). */
  add(jti: string, now: Date, keepUntil?: Date): void {
    const expiresAt = Math.max(now.getTime() + this.#ttlMs, keepUntil?.getTime() ?? 0);
    this.#expiresAt.delete(jti);
    this.#expiresAt.set(jti, expiresAt);
    if (this.#expiresAt.size > this.#maxEntries) this.#shrink(now.getTime());
  }

  #shrink(nowMs: number): void {
    for (const [jti, expiresAt] of this.#expiresAt) if (expiresAt <= nowMs) this.#expiresAt.delete(jti);
    // Still full of live entries: drop the oldest tenth at once so pruning stays amortised.
    const target = Math.floor(this.#maxEntries * 0.9);
    for (const jti of this.#expiresAt.keys()) {
      if (this.#expiresAt.size <= target) break;
      this.#expiresAt.delete(jti);
    }
  }
}

/** Whether `mac` is a valid signature of JCS(context) under any of `keys` (no key id: verifiers try each key). */
export function verifyContext(
  context: Readonly<Record<string, string | null>>,
  mac: Uint8Array,
  keys: readonly VerificationKey[],
): boolean {
  const canonical = jcs(context);
  const message = Buffer.from(canonical, "utf8");
  return keys.some((key) => {
    if (key.alg === "hmac-sha256") {
      const expected = signBytes(canonical, key);
      return mac.length === expected.length && timingSafeEqual(mac, expected);
    }
    if (mac.length !== 64) return false;
    try {
      return ed25519.verify(mac, message, key.publicKey);
    } catch {
      return false; // a malformed public key verifies nothing
    }
  });
}

/**
 * The stateless half of a detached receipt: whether it verifies, and if so its `jti` and how long a
 * replay cache must remember it (the end of its `t`'s window). Split from the replay check so a
 * verifier with an asynchronous store (the agent SDK's file store) reuses the same rules.
 */
export type SignatureCheck =
  | { ok: true; jti: string; t: number; rememberUntil: Date }
  | { ok: false; reason: VerifyFailure };

/**
 * A detached `MA2H-Signature` (§9.2; reused by §14.4 pushed acks), in order: parse the header,
 * screen `v1` (dp-025), check the window, rebuild the context from what was received (`build`
 * returns null when the received body cannot have been signed), try each key. No replay check.
 */
export function checkDetachedSignature(input: {
  header: string | null;
  build: (jti: string, t: number) => Readonly<Record<string, string | null>> | null;
  keys: readonly VerificationKey[];
  now: Date;
  windowSeconds?: number;
}): SignatureCheck {
  if (input.header === null || input.header.trim() === "") return fail("missing_header");
  const header = parseSignatureHeader(input.header);
  if (header === null) return fail("malformed_header");
  const mac = decodeMac(header.v1);
  if (mac === null) return fail("malformed_mac");

  const windowMs = (input.windowSeconds ?? DEFAULT_REPLAY_WINDOW_SECONDS) * 1000;
  if (!(Math.abs(input.now.getTime() - header.t * 1000) <= windowMs)) return fail("outside_window");

  let context: ReturnType<typeof input.build>;
  try {
    context = input.build(header.jti, header.t);
  } catch {
    return fail("signature_mismatch"); // not canonicalizable, so not what was signed
  }
  if (context === null || !verifyContext(context, mac, input.keys)) return fail("signature_mismatch");
  return { ok: true, jti: header.jti, t: header.t, rememberUntil: new Date(header.t * 1000 + windowMs) };
}

/**
 * The replay half: refuses a `jti` the cache holds, else records it. Called only after a valid
 * signature, so a forged request cannot poison the cache.
 */
export function recordReceipt(check: SignatureCheck, replayCache: ReplayCache, now: Date): VerifyResult {
  if (!check.ok) return check;
  if (replayCache.has(check.jti, now)) return fail("replayed");
  replayCache.add(check.jti, now, check.rememberUntil);
  return { ok: true };
}

/** A detached receipt verified in full: {@link checkDetachedSignature}, then the replay cache. */
export function verifyDetached(
  input: Parameters<typeof checkDetachedSignature>[0] & { replayCache: ReplayCache },
): VerifyResult {
  return recordReceipt(checkDetachedSignature(input), input.replayCache, input.now);
}

/**
 * §9.2 receipt of a pushed Response, stateless half: the context is rebuilt with `payload_sha256`
 * recomputed from the received body (never a transmitted digest).
 */
export function checkResponsePush(input: {
  body: unknown;
  header: string | null;
  callbackUrl: string;
  keys: readonly VerificationKey[];
  now: Date;
  windowSeconds?: number;
}): SignatureCheck {
  const body = signingBody(input.body);
  return checkDetachedSignature({
    ...input,
    // A body lacking the bound fields cannot match.
    build: (jti, t) =>
      body === null ? null : responseSignedContext({ response: body, callbackUrl: input.callbackUrl, jti, t }),
  });
}

/** §9.2 receipt of a pushed Response in full: signature, window, then the replay cache. */
export function verifyResponsePush(
  input: Parameters<typeof checkResponsePush>[0] & { replayCache: ReplayCache },
): VerifyResult {
  return recordReceipt(checkResponsePush(input), input.replayCache, input.now);
}

function fail(reason: VerifyFailure): { ok: false; reason: VerifyFailure } {
  return { ok: false, reason };
}

/**
 * The bound members of a received Response body, as received; null when one cannot have been
 * signed. Shared by the §9.8 `response` entry verifier (./entry-signing), which binds the same body.
 */
export function signingBody(body: unknown): ResponseSigningBody | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return null;
  const b = body as Record<string, unknown>;
  const { ma2h_version, in_reply_to, resolution, resolution_id, response, state } = b;
  if (typeof ma2h_version !== "string" || typeof in_reply_to !== "string") return null;
  if (typeof resolution !== "string" || typeof resolution_id !== "string") return null;
  if (!isObjectOrAbsent(response) || !isObjectOrAbsent(state)) return null;
  return { ma2h_version, in_reply_to, resolution, resolution_id, response, state };
}

function isObjectOrAbsent(value: unknown): value is object | null | undefined {
  return value === undefined || value === null || (typeof value === "object" && !Array.isArray(value));
}
