"""The typed §6 Response (Hub → agent) and its shape check, mirroring schema/v0.6/response.schema.json.

``Response`` is a ``TypedDict`` — the parsed JSON as the Hub sent it, unknown fields kept (the
schema is open). ``parse_response`` checks a value against the schema's rules (including its
conditionals: no checklist on ask resolutions, the ``res_`` namespace and stated checklist doneness
on ≥ 0.5, the expiry-default actor) and returns it typed, or raises ``ValueError`` saying where.
"""

from __future__ import annotations

from typing import Literal, TypedDict, cast

from ._shape import check_response, problem_of

__all__ = [
    "Resolution",
    "ResponseAgent",
    "ChecklistItem",
    "ResponseDetail",
    "Response",
    "RESOLUTIONS",
    "DEFAULT_ON_EXPIRE_ACTOR",
    "parse_response",
    "response_problem",
    "is_human_answer",
]

Resolution = Literal["answered", "declined", "cancelled", "expired", "completed", "dismissed"]
RESOLUTIONS: tuple[str, ...] = ("answered", "declined", "cancelled", "expired", "completed", "dismissed")
DEFAULT_ON_EXPIRE_ACTOR = "system:default_on_expire"


class ResponseAgent(TypedDict):
    """``agent``: routing identity only."""

    id: str
    run_id: str


class _ChecklistItemBase(TypedDict):
    text: str


class ChecklistItem(_ChecklistItemBase, total=False):
    done: bool


class _ResponseDetailBase(TypedDict):
    actor: str
    resolved_at: str


class ResponseDetail(_ResponseDetailBase, total=False):
    """``response``: who resolved it (Hub-attested ``actor``), when, and what they chose."""

    value: str | dict[str, object]
    edited: bool
    comment: str
    checklist: list[ChecklistItem]


class _ResponseBase(TypedDict):
    ma2h_version: str
    in_reply_to: str
    resolution_id: str
    agent: ResponseAgent
    resolution: Resolution


class Response(_ResponseBase, total=False):
    """The §6 Response envelope. Dedup on ``(in_reply_to, resolution_id)``."""

    defaulted: bool
    response: ResponseDetail
    state: dict[str, object]


def response_problem(value: object) -> str | None:
    """Why ``value`` is not a §6 Response (``"<path>: <problem>"``), or ``None`` when it is one."""
    return problem_of(check_response, value)


def parse_response(value: object) -> Response:
    """``value`` typed as a Response; ``ValueError`` when it breaks response.schema.json."""
    problem = response_problem(value)
    if problem is not None:
        raise ValueError(f"not a §6 Response: {problem}")
    return cast(Response, value)


def is_human_answer(response: Response) -> bool:
    """True exactly when the Hub-attested ``response.actor`` is a person (``human:…``)."""
    detail = response.get("response")
    return detail is not None and isinstance(detail.get("actor"), str) and detail["actor"].startswith("human:")
