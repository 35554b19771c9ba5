/**
 * The Hub's ed25519 verification keys (§9.2 pushes without hmac, §9.7 directives), found through the
 * capability document's `signing_keys_url` (this Hub's extension field, docs/decisions/agent-sdk.md "Signing
 * keys URL"; `/.well-known/ma2h-keys` when a Hub does not publish it), cached, and fetched again when
 * no cached key verifies — a rotation since the last fetch (the old key stays published for the
 * overlap, so in-flight signatures keep verifying).
 *
 * Only a keys URL on the Hub's own origin is followed: the keys are the root of trust for every
 * answer, and the agent chose to trust that origin, not wherever a document served there points.
 */
import { publicKeyFromJwk, type VerificationKey } from "@ma2h/protocol/signing";
import { Ma2hError } from "./errors";

export interface HubKeysOptions {
  fetch?: typeof fetch;
}

/** The keys could not be fetched (network, status, body): the agent's problem, not a forgery. */
export class HubKeysError extends Ma2hError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { status: 0, code: "keys_unavailable", cause: options.cause });
  }
}

export class HubKeys {
  readonly #origin: string;
  readonly #fetch: typeof fetch;
  #keys: VerificationKey[] | null = null;
  #keysUrl: string | null = null;
  #inflight: Promise<VerificationKey[]> | null = null;

  constructor(hubUrl: string, options: HubKeysOptions = {}) {
    let url: URL;
    try {
      url = new URL(hubUrl);
    } catch {
      throw new TypeError(`hubUrl is not an absolute URL: ${hubUrl}`);
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") throw new TypeError("hubUrl must be http(s)");
    this.#origin = url.origin;
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  /** The cached keys, fetched on first use. */
  async current(): Promise<VerificationKey[]> {
    return this.#keys ?? this.refresh();
  }

  /** The cached keys without fetching; null before the first fetch. */
  peek(): VerificationKey[] | null {
    return this.#keys;
  }

  /** Fetches the keys again; concurrent callers share one fetch. */
  refresh(): Promise<VerificationKey[]> {
    this.#inflight ??= this.#load().finally(() => {
      this.#inflight = null;
    });
    return this.#inflight;
  }

  async #load(): Promise<VerificationKey[]> {
    this.#keysUrl ??= await this.#discover();
    const jwks = await this.#json(this.#keysUrl);
    const entries = (jwks as { keys?: unknown }).keys;
    if (!Array.isArray(entries)) throw new HubKeysError(`${this.#keysUrl} is not a JWKS (no "keys" array)`);
    const keys: VerificationKey[] = [];
    for (const jwk of entries) {
      const publicKey = publicKeyFromJwk(jwk); // anything but an Ed25519 public key is skipped
      if (!publicKey) continue;
      const kid = (jwk as { kid?: unknown }).kid;
      // The kid travels with the key: a receiver that pins its account's key id filters on it.
      keys.push(typeof kid === "string" ? { alg: "ed25519", publicKey, kid } : { alg: "ed25519", publicKey });
    }
    this.#keys = keys;
    return keys;
  }

  /** `signing_keys_url` from `/.well-known/ma2h` (§8.0), else the well-known default. */
  async #discover(): Promise<string> {
    const fallback = `${this.#origin}/.well-known/ma2h-keys`;
    const doc = await this.#json(`${this.#origin}/.well-known/ma2h`);
    const advertised = (doc as { signing_keys_url?: unknown }).signing_keys_url;
    if (advertised === undefined) return fallback;
    let url: URL;
    try {
      url = new URL(String(advertised));
    } catch {
      throw new HubKeysError(`signing_keys_url is not an absolute URL: ${String(advertised)}`);
    }
    if (url.origin !== this.#origin)
      throw new HubKeysError(`signing_keys_url ${url.href} is not on the Hub's origin ${this.#origin}: not followed`);
    return url.href;
  }

  async #json(url: string): Promise<unknown> {
    let res: globalThis.Response;
    try {
      res = await this.#fetch(url, { headers: { accept: "application/json" }, redirect: "error" });
    } catch (e) {
      throw new HubKeysError(`fetching ${url} failed: ${(e as Error).message}`, { cause: e });
    }
    if (!res.ok) throw new HubKeysError(`fetching ${url} answered ${res.status}`);
    try {
      const body: unknown = await res.json();
      if (typeof body !== "object" || body === null) throw new Error("not a JSON object");
      return body;
    } catch (e) {
      throw new HubKeysError(`${url} did not answer a JSON object`, { cause: e });
    }
  }
}
