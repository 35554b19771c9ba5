/**
 * Typed errors, one class per §8.5 `code`, chosen by the code the client acts on after the §8.5
 * unknown-code fallback (`effectiveErrorCode`, the one definition in @ma2h/protocol/errors): an
 * unrecognised `code` inside a known status class reads as that touchpoint's base code. `code` is
 * that effective code; `receivedCode` is what the Hub actually sent (null when the body was not the
 * §8.5 envelope). Messages never carry the API key or a message's `state`.
 */
import { ERROR_STATUS, type ErrorCode, type ErrorTouchpoint, effectiveErrorCode } from "@ma2h/protocol/errors";
import type { HubResponse } from "@ma2h/protocol/response";

/**
 * Every `code` an SDK error carries: a §8.5 code (after the unknown-code fallback), `http_<status>`
 * for an HTTP error answer with no §8.5 envelope, or one of the SDK's own — each named on the class
 * that carries it.
 */
export type Ma2hErrorCode =
  | ErrorCode
  | `http_${number}`
  /** NetworkError: the request never got an HTTP answer. */
  | "network_error"
  /** WaitTimeoutError: `wait` gave up while the message was still open. */
  | "wait_timeout"
  /** The Hub answered something that is not the protocol's shape. */
  | "invalid_response"
  | "invalid_ack"
  | "invalid_capability"
  | "invalid_session"
  | "no_response"
  /** CapabilityError: what the Hub advertises (§8.0) rules the request out before it is sent. */
  | "inter_agent_not_offered"
  | "max_body_bytes"
  | "max_context_parts"
  | "max_part_bytes"
  /** JournalError. */
  | "no_journal"
  | "journal_miss"
  /** MisrouteError (§8.1). */
  | "misrouted"
  /** VerificationError: a push, directive or drained entry that must not be acted on (§9.2, §9.7). */
  | "verification_failed"
  /** HubKeysError: the Hub's published keys could not be fetched. */
  | "keys_unavailable"
  /** StateIntegrityError: a sealed `state` did not open. */
  | "state_integrity"
  /** SenderNotAcceptedError: a sender outside `acceptFrom` / `directivesFrom` (§13.4, §13.5). */
  | "sender_not_accepted"
  /** NotAnsweredByHumanError: a `requireHuman` ask answered or declined by a non-`human:` actor. */
  | "not_answered_by_human";

export interface Ma2hErrorInit {
  status: number;
  code: Ma2hErrorCode;
  receivedCode?: string | null;
  body?: unknown;
  retryAfterSeconds?: number | null;
  /** True when the SDK refused the request itself, before sending it. */
  local?: boolean;
  cause?: unknown;
}

export class Ma2hError extends Error {
  /** The HTTP status (the one the Hub would answer, for a locally refused request; 0 for transport). */
  readonly status: number;
  /** The effective code, after the §8.5 unknown-code fallback (Ma2hErrorCode lists them all). */
  readonly code: Ma2hErrorCode;
  /** The code the Hub sent, or null when the body carried none. */
  readonly receivedCode: string | null;
  /** The parsed error body (or, for WaitTimeoutError, the last GET body). */
  readonly body: unknown;
  /** §8.6 `Retry-After`, in seconds, when the Hub sent one. */
  readonly retryAfterSeconds: number | null;
  /** True when the SDK refused the request before sending it. */
  readonly local: boolean;

  constructor(message: string, init: Ma2hErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.receivedCode = init.receivedCode ?? null;
    this.body = init.body ?? null;
    this.retryAfterSeconds = init.retryAfterSeconds ?? null;
    this.local = init.local ?? false;
  }
}

export class ValidationError extends Ma2hError {}
export class VersionNotSupportedError extends Ma2hError {}
export class UnauthenticatedError extends Ma2hError {}
export class AgentIdMismatchError extends Ma2hError {}
export class NotAuthorizedError extends Ma2hError {}
export class SessionClosedByOperatorError extends Ma2hError {}
export class NotFoundError extends Ma2hError {}
export class IdempotencyConflictError extends Ma2hError {}
export class NotAcknowledgeableError extends Ma2hError {}
export class GoneError extends Ma2hError {}
export class DestinationGoneError extends Ma2hError {}
export class InvalidFieldError extends Ma2hError {}
export class UnknownDestinationError extends Ma2hError {}
export class RateLimitedError extends Ma2hError {}
export class InternalError extends Ma2hError {}

/** §8.4/§8.8: the message already reached a terminal; `existing` is the Hub's `{id, status, resolution}`. */
export class AlreadyTerminalError extends Ma2hError {
  readonly existing: { id: string; status: string; resolution?: string } | null;
  constructor(message: string, init: Ma2hErrorInit) {
    super(message, init);
    const b = init.body as Record<string, unknown> | null;
    this.existing =
      b && typeof b.id === "string" && typeof b.status === "string"
        ? {
            id: b.id,
            status: b.status,
            ...(typeof b.resolution === "string" ? { resolution: b.resolution } : {}),
          }
        : null;
  }
}

/** A 5xx that outlasted the retries. */
export class HubUnavailableError extends Ma2hError {}
/** The request never got an HTTP answer (connection refused or reset, DNS, TLS…). */
export class NetworkError extends Ma2hError {}
/** `wait` gave up while the message was still open; `body` is the last GET body (or null). */
export class WaitTimeoutError extends Ma2hError {}
/** The Hub cannot take this request (version, advertised limits), found before sending it. */
export class CapabilityError extends Ma2hError {}
/** `replay(key)` found no persisted bytes for the key. */
export class JournalError extends Ma2hError {}

/**
 * §8.1 misroute detector (v0.5, R47): an addressed (`to`-carrying) submit was accepted with a `202`
 * whose ack carries no `destination` snapshot — the mark of a pre-0.5 Hub (or a mixed-version
 * endpoint behind a cached capability document) that ignored `to` and put the message in the
 * people's inbox. `ack` is what the Hub answered; for an ask or task the SDK has already tried to
 * cancel it (§8.4): `cancelled` says whether that worked, `cancelError` why not. `status` is the
 * `202` that was received, `code` is `misrouted` (not a §8.5 code: the Hub reported success).
 */
export class MisrouteError extends Ma2hError {
  readonly ack: unknown;
  readonly cancelled: boolean;
  readonly cancelError: unknown;
  constructor(message: string, init: Ma2hErrorInit & { ack: unknown; cancelled: boolean; cancelError?: unknown }) {
    super(message, init);
    this.ack = init.ack;
    this.cancelled = init.cancelled;
    this.cancelError = init.cancelError ?? null;
  }
}

/**
 * An ask made with `requireHuman` was `answered` or `declined` by an actor that is not a person
 * (§9.1: a `system:rule/…` standing rule of a Hub that ignored `x-ma2h-human-only`, an `agent:…`
 * resolver): do not act on it as a person's decision. `actor` is the Response's Hub-attested
 * `response.actor` (null when it carries none), `response` the whole §6 Response. `status` is the
 * `200` the answer came with; `code` is `not_answered_by_human` (the Hub reported success).
 * An `expired` Response — with a `default_on_expire` applied by `system:default_on_expire` or
 * not — is never this error: the default is the agent's own fallback, not someone else's answer.
 */
export class NotAnsweredByHumanError extends Ma2hError {
  readonly actor: string | null;
  readonly response: HubResponse;
  constructor(message: string, init: Ma2hErrorInit & { response: HubResponse }) {
    super(message, init);
    this.response = init.response;
    this.actor = init.response.response?.actor ?? null;
  }
}

const CLASS_BY_CODE: Record<ErrorCode, new (message: string, init: Ma2hErrorInit) => Ma2hError> = {
  validation_error: ValidationError,
  version_not_supported: VersionNotSupportedError,
  unauthenticated: UnauthenticatedError,
  agent_id_mismatch: AgentIdMismatchError,
  not_authorized: NotAuthorizedError,
  session_closed_by_operator: SessionClosedByOperatorError,
  not_found: NotFoundError,
  idempotency_conflict: IdempotencyConflictError,
  already_terminal: AlreadyTerminalError,
  not_acknowledgeable: NotAcknowledgeableError,
  gone: GoneError,
  destination_gone: DestinationGoneError,
  invalid_field: InvalidFieldError,
  unknown_destination: UnknownDestinationError,
  rate_limited: RateLimitedError,
  internal_error: InternalError,
  unavailable: HubUnavailableError,
};

/** The §8.5 envelope's `{code, message}`, or nulls when the body is something else. */
function envelopeOf(body: unknown): { code: string | null; message: string | null } {
  const error = (body as { error?: unknown } | null)?.error;
  if (typeof error !== "object" || error === null) return { code: null, message: null };
  const { code, message } = error as { code?: unknown; message?: unknown };
  return {
    code: typeof code === "string" ? code : null,
    message: typeof message === "string" ? message : null,
  };
}

/**
 * The typed error for an HTTP error answer at a touchpoint. A body that is not the §8.5 envelope
 * still becomes a typed error, by its status.
 */
export function errorFromResponse(
  status: number,
  body: unknown,
  touchpoint: ErrorTouchpoint,
  retryAfterSeconds: number | null = null,
): Ma2hError {
  const received = envelopeOf(body);
  const code = effectiveErrorCode(status, received.code, touchpoint);
  const Class = code === null ? Ma2hError : CLASS_BY_CODE[code];
  const text = received.message ?? `HTTP ${status}`;
  const effective: Ma2hErrorCode = code ?? `http_${status}`;
  return new Class(`${effective}: ${text}`, {
    status,
    code: effective,
    receivedCode: received.code,
    body,
    retryAfterSeconds,
  });
}

/** A request the SDK refuses itself (the class the Hub would answer with), without sending it. */
export function localError(code: ErrorCode, message: string): Ma2hError {
  const Class = CLASS_BY_CODE[code];
  return new Class(`${code}: ${message}`, { status: ERROR_STATUS[code], code, local: true });
}
