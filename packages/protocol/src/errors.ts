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

/**
 * The one code §8.5 places in two status classes: `session_closed_by_operator` is `403` where a
 * principal is refused (registration while stopped, §16.4.1) and `410` where an operator-closed
 * session is presented (§16.3). A HubError may take the listed status instead of its own.
 */
export const ALSO_STATUS: Partial<Record<ErrorCode, readonly number[]>> = {
  session_closed_by_operator: [410],
};

function statusAllowed(code: ErrorCode, status: number): boolean {
  return ERROR_STATUS[code] === status || (ALSO_STATUS[code]?.includes(status) ?? false);
}

export interface HubErrorOptions {
  /** Extra top-level body fields, e.g. the existing `{id, status, resolution}` on a 409 (§8.4, §8.8). */
  extra?: Record<string, unknown>;
  /** Seconds until a retry may succeed, for a 429 (§8.6); the HTTP edge turns it into `Retry-After`. */
  retryAfterSeconds?: number;
  /** Only a status ALSO_STATUS lists for the code; anything else is a programming error. */
  status?: number;
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
    if (options.status !== undefined && !statusAllowed(code, options.status))
      throw new Error(`error code ${code} never has status ${options.status}`);
    this.status = options.status ?? ERROR_STATUS[code];
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

/** Where a client met an error: the §8.5 fallback reads an unknown code by the touchpoint. */
export type ErrorTouchpoint =
  | "submit" // POST /v1/messages (§8.1)
  | "pull" // GET /v1/messages/{id} (§8.2)
  | "cancel" // POST /v1/messages/{id}/cancel (§8.4)
  | "resolve" // POST /v1/messages/{id}/resolve (§8.8)
  | "ack" // POST /v1/messages/{id}/ack (§14.3)
  | "inbox" // GET /v1/inbox and POST /v1/inbox/ack (§8.7)
  | "other";

/**
 * §8.5 unknown-code fallback (a client MUST): the code a touchpoint returns for a status absent any
 * refinement. Where a status has several base codes the touchpoint picks one — a 409 at submit is an
 * idempotency conflict, at cancel/resolve an already-terminal message, at an ack a not-acknowledgeable
 * one; a 403 at submit is the credential ↔ `agent.id` mismatch, elsewhere an authorization refusal;
 * a 410 at submit can only be an addressed destination (§4), elsewhere the message is gone. Null for
 * a status outside the §8.5 classes (the caller keeps the status alone).
 */
export function baseErrorCode(status: number, touchpoint: ErrorTouchpoint): ErrorCode | null {
  switch (status) {
    case 400:
      return "validation_error";
    case 401:
      return "unauthenticated";
    case 403:
      return touchpoint === "submit" ? "agent_id_mismatch" : "not_authorized";
    case 404:
      return "not_found";
    case 409:
      if (touchpoint === "submit") return "idempotency_conflict";
      if (touchpoint === "ack") return "not_acknowledgeable";
      return "already_terminal";
    case 410:
      return touchpoint === "submit" ? "destination_gone" : "gone";
    case 422:
      return "invalid_field";
    case 429:
      return "rate_limited";
    case 503:
      return "unavailable";
    default:
      return status >= 500 && status <= 599 ? "internal_error" : null;
  }
}

/**
 * The code a client acts on: the received one when it is a known code of that very status, else the
 * touchpoint's base code for the status (§8.5 — additive codes refine a class, never replace it).
 */
export function effectiveErrorCode(status: number, received: unknown, touchpoint: ErrorTouchpoint): ErrorCode | null {
  if (typeof received === "string" && Object.hasOwn(ERROR_STATUS, received)) {
    const code = received as ErrorCode;
    if (statusAllowed(code, status)) return code;
  }
  return baseErrorCode(status, touchpoint);
}
