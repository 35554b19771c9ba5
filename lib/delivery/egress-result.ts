/**
 * What one outbound request (§9.4 egress) came to. Any HTTP answer — 2xx, 3xx, 4xx, 5xx — is
 * `ok: true` with its status: the caller decides retry (§8.3); redirects are never followed.
 * `detail` is for operators: error codes and addresses only, never bodies, headers or the URL's
 * path/query (they may carry credentials).
 */
export type EgressErrorClass =
  | "refused_address"
  | "refused_url"
  | "dns_error"
  | "timeout"
  | "connect_error"
  | "tls_error"
  | "response_too_large"
  | "network_error";

export type EgressResult =
  | { ok: true; status: number; latencyMs: number; body?: Buffer }
  | { ok: false; errorClass: EgressErrorClass; detail: string; latencyMs: number };

/** A result before its latency is stamped by `postJson`. */
export type EgressFailure = { ok: false; errorClass: EgressErrorClass; detail: string };
export type EgressOutcome = { ok: true; status: number; body?: Buffer } | EgressFailure;

export const failure = (errorClass: EgressErrorClass, detail: string): EgressFailure => ({
  ok: false,
  errorClass,
  detail: detail.slice(0, 300),
});

/** `CODE: message` of a thrown value, without stack or attached properties. */
export function describeError(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    return typeof code === "string" ? `${code}: ${e.message}` : e.message;
  }
  return String(e);
}
