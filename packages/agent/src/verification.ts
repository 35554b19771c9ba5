/**
 * What verifyPush (§9.2) and verifyDirective (§9.7) share: the refusal type, the process-wide
 * default `jti` store, option checks, and running lib/protocol's stateless check against the Hub's
 * keys with one refetch when no cached key verifies (a rotation since the keys were fetched).
 */
import type { VerificationKey } from "../../../lib/protocol/signing";
import type { SignatureCheck } from "../../../lib/protocol/verify";
import { HubKeys } from "./keys";
import { MemoryReplayStore, type ReplayStore } from "./stores";

export type VerificationFailure =
  | "missing_header"
  | "malformed_header"
  | "malformed_mac"
  | "outside_window"
  | "replayed"
  | "signature_mismatch"
  | "wrong_addressee"
  | "invalid_shape"
  | "invalid_body";

/** A refused push or directive: never act on it. `reason` says which check refused it. */
export class VerificationError extends Error {
  override name = "VerificationError";
  readonly reason: VerificationFailure;

  constructor(reason: VerificationFailure, message?: string) {
    super(message ?? `verification failed: ${reason}`);
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

/**
 * Runs `check` with fixed keys, or with the Hub's: on a signature mismatch under cached keys they
 * are fetched once more and the check repeated. Fetch failures propagate as HubKeysError (the
 * caller's problem to retry, never a refusal).
 */
export async function checkWithKeys<R extends SignatureCheck | { ok: false; reason: VerificationFailure }>(
  source: { fixed: VerificationKey[] } | { hub: HubKeys },
  check: (keys: readonly VerificationKey[]) => R,
): Promise<R> {
  if ("fixed" in source) return check(source.fixed);
  const wasCached = source.hub.peek() !== null;
  const first = check(await source.hub.current());
  if (first.ok || first.reason !== "signature_mismatch" || !wasCached) return first;
  return check(await source.hub.refresh());
}

/**
 * hmac secret(s) or the Hub's keys, never both: a verifier that accepts either lets whoever learns
 * the weaker credential forge for both schemes.
 */
export function keySource(
  options: { hmacSecret?: string | string[]; hubUrl?: string; hubKeys?: HubKeys; fetch?: typeof fetch },
  hubUse: string,
): { fixed: VerificationKey[] } | { hub: HubKeys } {
  const hub = hubKeysFor(options);
  if (options.hmacSecret !== undefined) {
    if (hub) throw new TypeError("give hmacSecret or hubUrl/hubKeys, not both: one delivery has one signing scheme");
    const secrets = Array.isArray(options.hmacSecret) ? options.hmacSecret : [options.hmacSecret];
    if (secrets.length === 0 || secrets.some((s) => typeof s !== "string" || s === ""))
      throw new TypeError("hmacSecret must be one or more non-empty secrets");
    return { fixed: secrets.map((secret) => ({ alg: "hmac-sha256", secret })) };
  }
  if (!hub) throw new TypeError(`give hmacSecret (hmac-sha256) or hubUrl/hubKeys (${hubUse})`);
  return { hub };
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
