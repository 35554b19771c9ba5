/**
 * The one §8.5 error table. Every error the Hub emits is a `HubError` whose HTTP status is derived
 * from its code here; nothing else maps codes to statuses.
 */
export const ERROR_STATUS = {
  validation_error: 400,
  version_not_supported: 400,
  unauthenticated: 401,
  agent_id_mismatch: 403,
  not_authorized: 403,
  session_closed_by_operator: 403,
  not_found: 404,
  idempotency_conflict: 409,
  already_terminal: 409,
  not_acknowledgeable: 409,
  gone: 410,
  destination_gone: 410,
  invalid_field: 422,
  unknown_destination: 422,
  rate_limited: 429,
  // Not in §8.5: a Hub fault. Kept here so even the fallback has one definition.
  internal_error: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface HubErrorOptions {
  /** Extra top-level body fields, e.g. the existing `{id, status, resolution}` on a 409 (§8.4, §8.8). */
  extra?: Record<string, unknown>;
  /** Seconds until a retry may succeed, for a 429 (§8.6); the HTTP edge turns it into `Retry-After`. */
  retryAfterSeconds?: number;
}

export class HubError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly extra: Record<string, unknown>;
  readonly retryAfterSeconds: number | null;

  constructor(code: ErrorCode, message: string, options: HubErrorOptions = {}) {
    super(message);
    this.name = "HubError";
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.extra = options.extra ?? {};
    this.retryAfterSeconds = options.retryAfterSeconds ?? null;
  }

  /** The §8.5 envelope, plus any documented top-level extras. */
  toBody(): Record<string, unknown> {
    return { error: { code: this.code, message: this.message }, ...this.extra };
  }
}

export function isHubError(err: unknown): err is HubError {
  return err instanceof HubError || (err instanceof Error && err.name === "HubError" && "code" in err);
}
