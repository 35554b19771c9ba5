"""Every error the package raises, under one root, ``Ma2hError``.

``HubError`` and its subclasses are the Hub's §8.5 error answers, one class per ``code`` (the names
follow ``@ma2h/agent``'s classes). The class is chosen by the *effective* code, after the §8.5
unknown-code fallback: a code this SDK does not know, or one that does not belong to the answer's
status, reads as the touchpoint's base code for that status. ``code`` is that effective code and
``received_code`` what the Hub actually sent. Messages never carry an API key or a message's
``state``.

``VerificationError`` is a refused push, directive or drained entry (never act on it);
``MissingDependencyError`` an optional dependency (``cryptography``) that a feature needs.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Mapping
from typing import Literal

__all__ = [
    "Ma2hError",
    "HubError",
    "ValidationError",
    "VersionNotSupportedError",
    "UnauthenticatedError",
    "AgentIdMismatchError",
    "NotAuthorizedError",
    "SessionClosedByOperatorError",
    "NotFoundError",
    "IdempotencyConflictError",
    "AlreadyTerminalError",
    "NotAcknowledgeableError",
    "GoneError",
    "DestinationGoneError",
    "InvalidFieldError",
    "UnknownDestinationError",
    "RateLimitedError",
    "InternalError",
    "HubUnavailableError",
    "NetworkError",
    "WaitTimeoutError",
    "CapabilityError",
    "JournalError",
    "MisrouteError",
    "NotAnsweredByHumanError",
    "InvalidResponseError",
    "VerificationError",
    "VerificationFailure",
    "HubKeysError",
    "StateIntegrityError",
    "MissingDependencyError",
    "ERROR_STATUS",
    "ErrorTouchpoint",
    "base_error_code",
    "effective_error_code",
    "hub_error_from",
    "local_error",
    "parse_retry_after",
]

#: The §8.5 table: every code the Hub emits and its HTTP status (``@ma2h/protocol``'s ERROR_STATUS).
ERROR_STATUS: dict[str, int] = {
    "validation_error": 400,
    "version_not_supported": 400,
    "unauthenticated": 401,
    "agent_id_mismatch": 403,
    "not_authorized": 403,
    "session_closed_by_operator": 403,
    "not_found": 404,
    "idempotency_conflict": 409,
    "already_terminal": 409,
    "not_acknowledgeable": 409,
    "gone": 410,
    "destination_gone": 410,
    "invalid_field": 422,
    "unknown_destination": 422,
    "rate_limited": 429,
    "internal_error": 500,
    "unavailable": 503,
}

#: The one code §8.5 places in two status classes (403 on registration, 410 on a presented session).
_ALSO_STATUS: dict[str, tuple[int, ...]] = {"session_closed_by_operator": (410,)}

#: Where a client met an error; the §8.5 fallback reads an unknown code by the touchpoint.
ErrorTouchpoint = Literal["submit", "pull", "cancel", "resolve", "ack", "inbox", "other"]


class Ma2hError(Exception):
    """The root of every error this package raises.

    ``code`` names what went wrong (a §8.5 code for a Hub answer, otherwise the SDK's own code named
    on each class); ``status`` is the HTTP status (0 when there was no HTTP answer).
    """

    code: str = "ma2h_error"
    status: int = 0

    def __init__(self, message: str, *, code: str | None = None, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status


class HubError(Ma2hError):
    """An HTTP error answer from the Hub (§8.5).

    ``code`` is the effective code (``http_<status>`` for an answer outside the §8.5 classes with no
    envelope), ``received_code`` the code the Hub sent (``None`` without the §8.5 envelope),
    ``message`` the envelope's message, ``body`` the parsed body, ``retry_after`` the §8.6
    ``Retry-After`` in seconds (``None`` when absent), ``local`` true when the SDK refused the request
    itself before sending it.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int,
        code: str,
        received_code: str | None = None,
        body: object = None,
        retry_after: float | None = None,
        local: bool = False,
    ) -> None:
        super().__init__(message, code=code, status=status)
        self.received_code = received_code
        self.body = body
        self.retry_after = retry_after
        self.local = local

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class ValidationError(HubError):
    """400 ``validation_error``."""


class VersionNotSupportedError(HubError):
    """400 ``version_not_supported``."""


class UnauthenticatedError(HubError):
    """401 ``unauthenticated``."""


class AgentIdMismatchError(HubError):
    """403 ``agent_id_mismatch``: the credential does not own ``agent.id``."""


class NotAuthorizedError(HubError):
    """403 ``not_authorized``."""


class SessionClosedByOperatorError(HubError):
    """403 or 410 ``session_closed_by_operator``."""


class NotFoundError(HubError):
    """404 ``not_found``."""


class IdempotencyConflictError(HubError):
    """409 ``idempotency_conflict``: same key, different payload (§8.1)."""


class AlreadyTerminalError(HubError):
    """409 ``already_terminal`` (§8.4, §8.8); ``existing`` is the Hub's ``{id, status, resolution}``."""

    def __init__(
        self,
        message: str,
        *,
        status: int,
        code: str,
        received_code: str | None = None,
        body: object = None,
        retry_after: float | None = None,
        local: bool = False,
    ) -> None:
        super().__init__(
            message,
            status=status,
            code=code,
            received_code=received_code,
            body=body,
            retry_after=retry_after,
            local=local,
        )
        self.existing: dict[str, str] | None = None
        if isinstance(body, Mapping):
            ident, st, res = body.get("id"), body.get("status"), body.get("resolution")
            if isinstance(ident, str) and isinstance(st, str):
                self.existing = {"id": ident, "status": st}
                if isinstance(res, str):
                    self.existing["resolution"] = res


class NotAcknowledgeableError(HubError):
    """409 ``not_acknowledgeable``."""


class GoneError(HubError):
    """410 ``gone``."""


class DestinationGoneError(HubError):
    """410 ``destination_gone``."""


class InvalidFieldError(HubError):
    """422 ``invalid_field``."""


class UnknownDestinationError(HubError):
    """422 ``unknown_destination``."""


class RateLimitedError(HubError):
    """429 ``rate_limited``; ``retry_after`` says when to try again (§8.6)."""


class InternalError(HubError):
    """5xx ``internal_error``."""


class HubUnavailableError(HubError):
    """503 ``unavailable`` (or a 5xx that outlasted the retries)."""


_CLASS_BY_CODE: dict[str, type[HubError]] = {
    "validation_error": ValidationError,
    "version_not_supported": VersionNotSupportedError,
    "unauthenticated": UnauthenticatedError,
    "agent_id_mismatch": AgentIdMismatchError,
    "not_authorized": NotAuthorizedError,
    "session_closed_by_operator": SessionClosedByOperatorError,
    "not_found": NotFoundError,
    "idempotency_conflict": IdempotencyConflictError,
    "already_terminal": AlreadyTerminalError,
    "not_acknowledgeable": NotAcknowledgeableError,
    "gone": GoneError,
    "destination_gone": DestinationGoneError,
    "invalid_field": InvalidFieldError,
    "unknown_destination": UnknownDestinationError,
    "rate_limited": RateLimitedError,
    "internal_error": InternalError,
    "unavailable": HubUnavailableError,
}


class NetworkError(Ma2hError):
    """The request never got an HTTP answer (refused, reset, DNS, TLS…). Code ``network_error``."""

    code = "network_error"


class WaitTimeoutError(Ma2hError):
    """``wait`` gave up while the message was still open. Code ``wait_timeout``."""

    code = "wait_timeout"


class CapabilityError(Ma2hError):
    """What the Hub advertises (§8.0) rules the request out before it is sent."""

    code = "capability"


class JournalError(Ma2hError):
    """The submit journal has no saved bytes for a key (``no_journal`` / ``journal_miss``)."""

    code = "journal_miss"


class MisrouteError(Ma2hError):
    """§8.1: an addressed submit was acked without a ``destination`` (a pre-0.5 Hub). Code ``misrouted``."""

    code = "misrouted"


class InvalidResponseError(Ma2hError):
    """The Hub answered something that is not the protocol's shape. Code ``invalid_response``."""

    code = "invalid_response"


class NotAnsweredByHumanError(Ma2hError):
    """A ``require_human`` ask answered or declined by an actor that is not ``human:``."""

    code = "not_answered_by_human"


#: Why a push, directive or drained entry was refused (the TypeScript SDK's reasons).
VerificationFailure = Literal[
    "missing_header",
    "malformed_header",
    "malformed_mac",
    "outside_window",
    "replayed",
    "signature_mismatch",
    "wrong_addressee",
    "invalid_shape",
    "invalid_body",
    "unexpected_key",
    "not_sent",
]


class VerificationError(Ma2hError):
    """A refused push, directive or drained entry: never act on it.

    ``reason`` says which check refused it; ``code`` is always ``verification_failed``.
    """

    code = "verification_failed"

    def __init__(self, reason: VerificationFailure, message: str | None = None) -> None:
        super().__init__(message or f"verification failed: {reason}")
        self.reason: VerificationFailure = reason


class HubKeysError(Ma2hError):
    """The Hub's published keys could not be fetched (the agent's problem to retry, not a forgery).
    Code ``keys_unavailable``."""

    code = "keys_unavailable"


class StateIntegrityError(Ma2hError):
    """A sealed ``state`` did not open: tampered, another key, or not sealed. Code ``state_integrity``."""

    code = "state_integrity"

    def __init__(
        self, message: str = "the sealed state does not open with this key (tampered, wrong key or not sealed)"
    ) -> None:
        super().__init__(message)


class MissingDependencyError(Ma2hError):
    """A feature needs an optional dependency that is not installed. Code ``missing_dependency``."""

    code = "missing_dependency"


def _status_allowed(code: str, status: int) -> bool:
    return ERROR_STATUS.get(code) == status or status in _ALSO_STATUS.get(code, ())


def base_error_code(status: int, touchpoint: ErrorTouchpoint = "other") -> str | None:
    """The §8.5 fallback: the code a touchpoint means by a bare status; ``None`` outside the classes."""
    if status == 400:
        return "validation_error"
    if status == 401:
        return "unauthenticated"
    if status == 403:
        return "agent_id_mismatch" if touchpoint == "submit" else "not_authorized"
    if status == 404:
        return "not_found"
    if status == 409:
        if touchpoint == "submit":
            return "idempotency_conflict"
        if touchpoint == "ack":
            return "not_acknowledgeable"
        return "already_terminal"
    if status == 410:
        return "destination_gone" if touchpoint == "submit" else "gone"
    if status == 422:
        return "invalid_field"
    if status == 429:
        return "rate_limited"
    if status == 503:
        return "unavailable"
    if 500 <= status <= 599:
        return "internal_error"
    return None


def effective_error_code(status: int, received: object, touchpoint: ErrorTouchpoint = "other") -> str | None:
    """The received code when it is a known code of that very status, else the touchpoint's base code."""
    if isinstance(received, str) and received in ERROR_STATUS and _status_allowed(received, status):
        return received
    return base_error_code(status, touchpoint)


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """§8.6 ``Retry-After``: delta-seconds or an HTTP date, in seconds; ``None`` when absent or unreadable."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit() and text.isascii():
        return float(int(text))
    try:
        at = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if at is None:
        return None
    current = time.time() if now is None else now
    return max(0.0, at.timestamp() - current)


def _header(headers: Mapping[str, str], name: str) -> str | None:
    for key, value in headers.items():
        if key.lower() == name:
            return value
    return None


def hub_error_from(
    status: int,
    body: object,
    headers: Mapping[str, str] | None = None,
    touchpoint: ErrorTouchpoint = "other",
) -> HubError:
    """The typed error for an HTTP error answer: the class of the effective §8.5 code.

    ``body`` is the parsed JSON body (anything else, e.g. ``None``, still gives an error typed by its
    status). ``headers`` supplies ``Retry-After`` (looked up case-insensitively).
    """
    received_code: str | None = None
    received_message: str | None = None
    envelope = body.get("error") if isinstance(body, Mapping) else None
    if isinstance(envelope, Mapping):
        c, m = envelope.get("code"), envelope.get("message")
        received_code = c if isinstance(c, str) else None
        received_message = m if isinstance(m, str) else None
    code = effective_error_code(status, received_code, touchpoint)
    cls: type[HubError] = HubError
    if code is not None:
        cls = _CLASS_BY_CODE[code]
    retry_after = parse_retry_after(_header(headers, "retry-after")) if headers else None
    return cls(
        received_message if received_message is not None else f"HTTP {status}",
        status=status,
        code=code if code is not None else f"http_{status}",
        received_code=received_code,
        body=body,
        retry_after=retry_after,
    )


def local_error(code: str, message: str) -> HubError:
    """The error the Hub would answer with, raised by the SDK itself before sending (``local=True``)."""
    if code not in ERROR_STATUS:
        raise ValueError(f"not a §8.5 code: {code}")
    return _CLASS_BY_CODE[code](message, status=ERROR_STATUS[code], code=code, local=True)
