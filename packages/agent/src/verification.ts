/**
 * What verifyPush (§9.2) and verifyDirective (§9.7) share: the refusal type, the process-wide
 * default `jti` store, option checks, and running @ma2h/protocol's stateless check against the Hub's
 * keys with one refetch when no cached key verifies (a rotation since the keys were fetched).
 */
import type { VerificationKey } from "@ma2h/protocol/signing";
import type { SignatureCheck } from "@ma2h/protocol/verify";
import { HubKeys } from "./keys";
import { MemoryReplayStore, type ReplayStore } from "./stores";
import { Ma2hError } from "./errors";

export type VerificationFailure =
  | "missing_header"
  | "malformed_header"
  | "malformed_mac"
  | "outside_window"
  | "replayed"
  | "signature_mismatch"
  | "wrong_addressee"
  | "invalid_shape"
  | "invalid_body"
  | "unexpected_key"
  | "not_sent";

/**
 * A refused push, directive or drained entry: never act on it. `reason` says which check refused it;
 * `code` is always `verification_failed`.
 */
export class VerificationError extends Ma2hError {
  readonly reason: VerificationFailure;

  constructor(reason: VerificationFailure, message?: string) {
    super(message ?? `verification failed: ${reason}`, { status: 0, code: "verification_failed" });
    this.reason = reason;
  }
}

let processReplayStore: ReplayStore | undefined;

/** §9.2: one `jti` cache for the whole process unless the caller brings its own. */
export function defaultReplayStore(): ReplayStore {
  processReplayStore ??= new MemoryReplayStore();
  return processReplayStore;
}

/** HubKeys per (fetch, Hub origin), so calls naming only `hubUrl` share one cache. */
const hubKeysCache = new WeakMap<typeof fetch, Map<string, HubKeys>>();

export function hubKeysFor(options: { hubUrl?: string; hubKeys?: HubKeys; fetch?: typeof fetch }): HubKeys | null {
  if (options.hubKeys) return options.hubKeys;
  if (options.hubUrl === undefined) return null;
  const fetchFn = options.fetch ?? globalThis.fetch;
  const byOrigin = hubKeysCache.get(fetchFn) ?? new Map<string, HubKeys>();
  hubKeysCache.set(fetchFn, byOrigin);
  const origin = originOf(options.hubUrl);
  const keys = byOrigin.get(origin) ?? new HubKeys(origin, { fetch: fetchFn });
  byOrigin.set(origin, keys);
  return keys;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    throw new TypeError(`hubUrl is not an absolute URL: ${url}`);
  }
}

export type KeySource = { fixed: VerificationKey[] } | { hub: HubKeys; keyIds?: readonly string[] };

/**
 * Runs `check` with fixed keys, or with the Hub's: on a signature mismatch under cached keys they
 * are fetched once more and the check repeated. With `keyIds` only the Hub's keys of those kids
 * verify; a signature that one of the Hub's OTHER keys makes (another account's push key) is
 * refused as `unexpected_key`. Fetch failures propagate as HubKeysError (the caller's problem to
 * retry, never a refusal).
 */
export async function checkWithKeys<R extends SignatureCheck | { ok: false; reason: VerificationFailure }>(
  source: KeySource,
  check: (keys: readonly VerificationKey[]) => R,
): Promise<R | { ok: false; reason: "unexpected_key" }> {
  if ("fixed" in source) return check(source.fixed);
  const pinned = source.keyIds;
  const usable = (keys: readonly VerificationKey[]) =>
    pinned === undefined
      ? keys
      : keys.filter((k) => k.alg === "ed25519" && k.kid !== undefined && pinned.includes(k.kid));
  const wasCached = source.hub.peek() !== null;
  let keys = await source.hub.current();
  let result = check(usable(keys));
  if (!result.ok && result.reason === "signature_mismatch" && wasCached) {
    keys = await source.hub.refresh();
    result = check(usable(keys));
  }
  if (pinned !== undefined && !result.ok && result.reason === "signature_mismatch" && check(keys).ok)
    return { ok: false, reason: "unexpected_key" };
  return result;
}

/** `keyId` as given: one kid or several (a rotation's overlap); undefined when not pinned. */
export function keyIdsOption(keyId: string | readonly string[] | undefined): string[] | undefined {
  if (keyId === undefined) return undefined;
  const ids = typeof keyId === "string" ? [keyId] : [...keyId];
  if (ids.length === 0 || ids.some((k) => typeof k !== "string" || k === ""))
    throw new TypeError("keyId must be one or more non-empty key ids (GET /v1/agents/me: push_signing.key_id)");
  return ids;
}

/**
 * hmac secret(s) or the Hub's keys, never both: a verifier that accepts either lets whoever learns
 * the weaker credential forge for both schemes.
 */
export function keySource(
  options: {
    hmacSecret?: string | string[];
    hubUrl?: string;
    hubKeys?: HubKeys;
    fetch?: typeof fetch;
    keyId?: string | readonly string[];
  },
  hubUse: string,
): KeySource {
  const hub = hubKeysFor(options);
  const keyIds = keyIdsOption(options.keyId);
  if (options.hmacSecret !== undefined) {
    if (hub) throw new TypeError("give hmacSecret or hubUrl/hubKeys, not both: one delivery has one signing scheme");
    if (keyIds) throw new TypeError("keyId pins one of the Hub's ed25519 keys: it does not apply to hmacSecret");
    const secrets = Array.isArray(options.hmacSecret) ? options.hmacSecret : [options.hmacSecret];
    if (secrets.length === 0 || secrets.some((s) => typeof s !== "string" || s === ""))
      throw new TypeError("hmacSecret must be one or more non-empty secrets");
    return { fixed: secrets.map((secret) => ({ alg: "hmac-sha256", secret })) };
  }
  if (!hub) throw new TypeError(`give hmacSecret (hmac-sha256) or hubUrl/hubKeys (${hubUse})`);
  return keyIds ? { hub, keyIds } : { hub };
}

export function windowOption(windowSeconds: number | undefined): number | undefined {
  if (windowSeconds === undefined) return undefined;
  if (!Number.isFinite(windowSeconds) || windowSeconds <= 0)
    throw new TypeError("windowSeconds must be a positive number of seconds");
  return windowSeconds;
}

export function fail(reason: VerificationFailure, message?: string): never {
  throw new VerificationError(reason, message);
}
