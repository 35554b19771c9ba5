/** Delivery configuration from lib/env: the retry policy, timeouts and the dev callback allowlist. */
import { env } from "../env";
import type { RetryPolicy } from "./schedule";

/** `scheme://host:port` with the port always explicit, the form the allowlist is compared in. */
export function originKey(url: URL): string {
  const port = url.port || (url.protocol === "https:" ? "443" : url.protocol === "http:" ? "80" : "");
  return `${url.protocol}//${url.hostname}:${port}`;
}

export function deliveryPolicy(): { retry: RetryPolicy; timeoutMs: number } {
  const e = env();
  return {
    retry: {
      baseDelayMs: e.MA2H_PUSH_BASE_DELAY_MS,
      factor: e.MA2H_PUSH_BACKOFF_FACTOR,
      maxGapMs: e.MA2H_PUSH_MAX_GAP_MS,
      maxAttempts: e.MA2H_PUSH_MAX_ATTEMPTS,
      maxDurationMs: e.MA2H_PUSH_MAX_DURATION_SECONDS * 1000,
      jitter: 0.1,
    },
    timeoutMs: e.MA2H_PUSH_TIMEOUT_MS,
  };
}

/**
 * MA2H_DEV_CALLBACK_ALLOWLIST: comma list of `scheme://host:port` that may receive plaintext or
 * loopback callbacks — in dev mode only; production ignores it (and says so at start).
 */
export function devCallbackAllowlist(): Set<string> {
  const out = new Set<string>();
  for (const entry of env()
    .MA2H_DEV_CALLBACK_ALLOWLIST.split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    try {
      out.add(originKey(new URL(entry)));
    } catch {
      /* a malformed entry allows nothing */
    }
  }
  return out;
}
