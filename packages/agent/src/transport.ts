/**
 * HTTP to the Hub: bearer auth, JSON, and the retry rules of §8.3/§8.6 applied to our own calls —
 * `5xx` and network errors retried with exponential backoff and full jitter (bounded attempts),
 * `429` retried only after its `Retry-After` (never immediately, §8.6), every other `4xx` final.
 * Retrying a submit is safe because the body is the same string every time (§8.1 dedup on the
 * identical payload). Nothing here logs; errors name the path, never the API key or a body's `state`.
 */
import type { ErrorTouchpoint } from "@ma2h/protocol/errors";
import { errorFromResponse, HubUnavailableError, type Ma2hError, NetworkError, RateLimitedError } from "./errors";

export interface RetryOptions {
  /** Attempts in all, the first included (default 4). */
  maxAttempts?: number;
  /** The backoff base (default 250 ms): attempt n waits a random time in [0, min(max, base·2ⁿ)]. */
  baseDelayMs?: number;
  /** The backoff ceiling (default 10 s). */
  maxDelayMs?: number;
  /** The longest `Retry-After` worth waiting for (default 120 s); a longer one is thrown at once. */
  maxRetryAfterMs?: number;
}

export interface TransportOptions {
  url: string;
  apiKey: string;
  fetch?: typeof fetch;
  retry?: RetryOptions;
}

export interface RequestOptions {
  /** A JSON body, already serialized: the exact bytes sent on every attempt. */
  body?: string;
  query?: Record<string, string | number | undefined>;
  signal?: AbortSignal;
  touchpoint: ErrorTouchpoint;
  /** Retry 5xx and network errors (default true); a 429 is always retried after Retry-After. */
  retry5xx?: boolean;
  /** Send no credential (the public discovery documents). */
  anonymous?: boolean;
}

export interface HubReply {
  status: number;
  headers: Headers;
  /** Parsed JSON, or null for an empty (or non-JSON) body. */
  body: unknown;
}

/** The abort reason as an error (a DOMException "AbortError" unless the caller gave its own). */
export function abortReason(signal: AbortSignal | undefined): Error {
  const reason = signal?.reason;
  return reason instanceof Error ? reason : new DOMException("This operation was aborted", "AbortError");
}

/** Sleeps `ms`, or rejects with the abort reason as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Full jitter: a uniform delay in [0, min(max, base·2^attempt)]. */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number): number {
  return Math.random() * Math.min(maxMs, baseMs * 2 ** attempt);
}

/** §8.6 `Retry-After`: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, (at - now) / 1000);
}

export class Transport {
  readonly baseUrl: string;
  readonly #apiKey: string; // private field: never enumerated, printed or serialized
  readonly #fetch: typeof fetch;
  readonly retry: Required<RetryOptions>;

  constructor(options: TransportOptions) {
    this.baseUrl = options.url.replace(/\/+$/, "");
    this.#apiKey = options.apiKey;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.retry = {
      maxAttempts: Math.max(1, options.retry?.maxAttempts ?? 4),
      baseDelayMs: options.retry?.baseDelayMs ?? 250,
      maxDelayMs: options.retry?.maxDelayMs ?? 10_000,
      maxRetryAfterMs: options.retry?.maxRetryAfterMs ?? 120_000,
    };
  }

  url(path: string, query?: RequestOptions["query"]): string {
    const u = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, String(v));
    return u.toString();
  }

  /** One attempt: the reply, or a NetworkError (or the abort reason when `signal` aborted). */
  async once(method: string, path: string, options: RequestOptions): Promise<HubReply> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (!options.anonymous) headers.authorization = `Bearer ${this.#apiKey}`;
    if (options.body !== undefined) headers["content-type"] = "application/json";
    let res: globalThis.Response;
    let text: string;
    try {
      res = await this.#fetch(this.url(path, options.query), {
        method,
        headers,
        body: options.body,
        signal: options.signal,
        redirect: "error", // a redirect would re-send the credential elsewhere
      });
      text = await res.text();
    } catch (err) {
      if (options.signal?.aborted) throw abortReason(options.signal);
      throw new NetworkError(`network error on ${method} ${path}: ${(err as Error)?.message ?? err}`, {
        status: 0,
        code: "network_error",
        cause: err,
      });
    }
    let body: unknown = null;
    if (text !== "") {
      try {
        body = JSON.parse(text);
      } catch {
        body = null; // not JSON (a proxy's HTML page): typed by status alone
      }
    }
    return { status: res.status, headers: res.headers, body };
  }

  /**
   * The request with the retry rules; resolves with a 2xx/304 reply and throws the typed error
   * otherwise (HubUnavailableError once the 5xx retries are spent).
   */
  async request(method: string, path: string, options: RequestOptions): Promise<HubReply> {
    const { maxAttempts, baseDelayMs, maxDelayMs, maxRetryAfterMs } = this.retry;
    const retry5xx = options.retry5xx ?? true;
    for (let attempt = 0; ; attempt++) {
      const last = attempt + 1 >= maxAttempts;
      let reply: HubReply;
      try {
        reply = await this.once(method, path, options);
      } catch (err) {
        if (!(err instanceof NetworkError) || !retry5xx || last) throw err;
        await sleep(backoffDelay(attempt, baseDelayMs, maxDelayMs), options.signal);
        continue;
      }
      const { status } = reply;
      if ((status >= 200 && status < 300) || status === 304) return reply;
      const retryAfter = parseRetryAfter(reply.headers.get("retry-after"));
      const error = errorFromResponse(status, reply.body, options.touchpoint, retryAfter);
      if (status === 429) {
        // §8.6: never immediately; without a Retry-After, at least a second plus the backoff.
        const waitMs = retryAfter !== null ? retryAfter * 1000 : 1000 + backoffDelay(attempt, baseDelayMs, maxDelayMs);
        if (last || waitMs > maxRetryAfterMs) throw error;
        await sleep(Math.max(waitMs, 1), options.signal);
        continue;
      }
      if (status >= 500) {
        if (!retry5xx || last) throw asUnavailable(error);
        await sleep(backoffDelay(attempt, baseDelayMs, maxDelayMs), options.signal);
        continue;
      }
      throw error;
    }
  }
}

/** A spent 5xx is HubUnavailableError whatever its code, keeping what the Hub said. */
function asUnavailable(error: Ma2hError): Ma2hError {
  if (error instanceof HubUnavailableError) return error;
  return new HubUnavailableError(error.message, {
    status: error.status,
    code: error.code,
    receivedCode: error.receivedCode,
    body: error.body,
    retryAfterSeconds: error.retryAfterSeconds,
  });
}

/** True for the errors a polling loop waits out (network, spent 5xx, a long 429). */
export function isTransient(err: unknown): boolean {
  return err instanceof NetworkError || err instanceof HubUnavailableError || err instanceof RateLimitedError;
}
