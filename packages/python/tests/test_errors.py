"""The §8.5 error classes: one root, one class per code of @ma2h/protocol's table, the unknown-code
fallback by touchpoint, Retry-After, and VerificationError's reason."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import REPO_ROOT

from ma2h import errors
from ma2h.errors import (
    ERROR_STATUS,
    AgentIdMismatchError,
    AlreadyTerminalError,
    HubError,
    HubUnavailableError,
    IdempotencyConflictError,
    Ma2hError,
    NotAcknowledgeableError,
    RateLimitedError,
    SessionClosedByOperatorError,
    ValidationError,
    VerificationError,
    hub_error_from,
    local_error,
    parse_retry_after,
)


def test_the_table_is_packages_protocols() -> None:
    source = (REPO_ROOT / "packages" / "protocol" / "src" / "errors.ts").read_text(encoding="utf-8")
    table = source.split("export const ERROR_STATUS = {", 1)[1].split("} as const", 1)[0]
    ts = {code: int(status) for code, status in re.findall(r"^\s*(\w+): (\d{3}),", table, re.M)}
    assert ts == ERROR_STATUS


def test_every_code_has_its_own_hub_error_class_under_one_root() -> None:
    classes = set()
    for code, status in ERROR_STATUS.items():
        err = hub_error_from(status, {"error": {"code": code, "message": "m"}}, {})
        assert isinstance(err, HubError) and isinstance(err, Ma2hError)
        assert type(err) is not HubError and err.code == code and err.status == status and err.message == "m"
        classes.add(type(err))
    assert len(classes) == len(ERROR_STATUS)
    for name in errors.__all__:
        value = getattr(errors, name)
        if isinstance(value, type) and issubclass(value, BaseException):
            assert issubclass(value, Ma2hError), name


@pytest.mark.parametrize(
    "status,received,touchpoint,cls,code",
    [
        (409, "shiny_new_conflict", "submit", IdempotencyConflictError, "idempotency_conflict"),
        (409, None, "cancel", AlreadyTerminalError, "already_terminal"),
        (409, "already_terminal", "ack", AlreadyTerminalError, "already_terminal"),
        (409, None, "ack", NotAcknowledgeableError, "not_acknowledgeable"),
        (403, None, "submit", AgentIdMismatchError, "agent_id_mismatch"),
        (410, "session_closed_by_operator", "other", SessionClosedByOperatorError, "session_closed_by_operator"),
        (400, "rate_limited", "other", ValidationError, "validation_error"),  # a code of another status
        (502, None, "pull", errors.InternalError, "internal_error"),
        (503, None, "pull", HubUnavailableError, "unavailable"),
    ],
)
def test_unknown_code_fallback(status: int, received: str | None, touchpoint: errors.ErrorTouchpoint, cls: type, code: str) -> None:
    body = {"error": {"code": received, "message": "x"}} if received else {"error": {"message": "x"}}
    err = hub_error_from(status, body, {}, touchpoint)
    assert type(err) is cls and err.code == code and err.received_code == received


def test_non_envelope_bodies_retry_after_and_extras() -> None:
    err = hub_error_from(418, "teapot", {})
    assert type(err) is HubError and err.code == "http_418" and err.message == "HTTP 418" and err.received_code is None
    limited = hub_error_from(429, None, {"Retry-After": "7"})
    assert isinstance(limited, RateLimitedError) and limited.retry_after == 7.0
    terminal = hub_error_from(409, {"error": {"code": "already_terminal", "message": "done"}, "id": "msg_1", "status": "resolved", "resolution": "answered"}, {}, "cancel")
    assert isinstance(terminal, AlreadyTerminalError)
    assert terminal.existing == {"id": "msg_1", "status": "resolved", "resolution": "answered"}
    assert str(terminal) == "already_terminal: done"
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None
    local = local_error("validation_error", "title is required")
    assert isinstance(local, ValidationError) and local.local and local.status == 400


def test_verification_error_carries_its_reason() -> None:
    err = VerificationError("replayed")
    assert err.reason == "replayed" and err.code == "verification_failed" and isinstance(err, Ma2hError)
    assert "replayed" in str(err)
