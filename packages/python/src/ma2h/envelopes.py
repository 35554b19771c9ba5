"""Friendly keyword arguments → v0.6 message envelopes (§4, §5), as ``@ma2h/agent``'s envelopes.ts
builds them. The Hub validates every submit (and answers the §8.5 error if it refuses one); the
checks here are the ones that need the agent's own context: ``expires_at`` in the future, one of
``expires_at`` / ``expires_in``, ``require_human`` not with ``to``.
"""

from __future__ import annotations

import datetime as _dt
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

from .errors import CapabilityError

__all__ = [
    "HUMAN_ONLY_FIELD",
    "SDK_VERSION",
    "Callback",
    "EnvelopeContext",
    "confirm_envelope",
    "input_envelope",
    "negotiate_version",
    "notify_envelope",
    "select_envelope",
    "task_envelope",
]

#: The newest protocol version this package speaks (§10).
SDK_VERSION = "0.6"
#: The request extension field that asks a Hub to let only a person answer (no standing rule).
HUMAN_ONLY_FIELD = "x-ma2h-human-only"

Json = dict[str, Any]
When = Union[_dt.datetime, str]


@dataclass(frozen=True)
class Callback:
    """§8.3 push callback. The secret itself never leaves the agent — only its reference (§9.2):
    ``secret_ref`` for the hmac scheme, or ``token_ref`` with ``scheme`` "bearer"/"apikey"."""

    url: str
    secret_ref: str | None = None
    scheme: str | None = None
    token_ref: str | None = None

    def wire(self) -> Json:
        out: Json = {"mode": "push", "url": self.url}
        if self.secret_ref is not None:
            out["auth"] = {"scheme": "hmac", "secret_ref": self.secret_ref}
        elif self.scheme is not None and self.token_ref is not None:
            out["auth"] = {"scheme": self.scheme, "token_ref": self.token_ref}
        return out


@dataclass
class EnvelopeContext:
    """Who is asking (§4.1) and in which version."""

    version: str
    agent: Json = field(default_factory=dict)
    now: _dt.datetime | None = None


def _parse_version(text: str) -> tuple[int, int] | None:
    parts = text.split(".")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        return None
    return int(parts[0]), int(parts[1])


def negotiate_version(hub_version: str) -> str:
    """The lower of this package's version and the Hub's advertised one (same major 0, §10)."""
    hub = _parse_version(hub_version)
    ours = _parse_version(SDK_VERSION)
    assert ours is not None
    if hub is None or hub[0] != ours[0]:
        raise CapabilityError(f"the Hub speaks ma2h {hub_version!r}; this package speaks 0.x (§10)", code="version_not_supported")
    return hub_version if hub[1] < ours[1] else SDK_VERSION


def _iso(at: _dt.datetime) -> str:
    if at.tzinfo is None:
        at = at.replace(tzinfo=_dt.timezone.utc)
    return at.astimezone(_dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _common(kind: str, ctx: EnvelopeContext, o: Mapping[str, Any]) -> Json:
    agent: Json = {k: v for k, v in ctx.agent.items() if k in ("id", "run_id", "runtime", "project")}
    if isinstance(o.get("session"), str):
        agent["session"] = o["session"]
    now = ctx.now or _dt.datetime.now(_dt.timezone.utc)
    e: Json = {"ma2h_version": ctx.version, "type": kind, "created_at": _iso(now), "agent": agent}
    if o.get("to") is not None:
        e["to"] = o["to"]
    e["title"] = o["title"]
    for key, wire in (
        ("body", "body"),
        ("priority", "priority"),
        ("tags", "tags"),
        ("context", "context"),
        ("state", "state"),
        ("client_ref", "client_ref"),
    ):
        if o.get(key) is not None:
            e[wire] = list(o[key]) if key in ("tags", "context") else o[key]
    e["idempotency_key"] = o.get("idempotency_key") or f"idem_{uuid.uuid4()}"
    expires_at, expires_in = o.get("expires_at"), o.get("expires_in")
    if expires_at is not None and expires_in is not None:
        raise TypeError("give expires_at or expires_in, not both")
    if expires_at is not None:
        e["expires_at"] = expires_at if isinstance(expires_at, str) else _iso(expires_at)
    if expires_in is not None:
        seconds = expires_in.total_seconds() if isinstance(expires_in, _dt.timedelta) else float(expires_in)
        if not seconds > 0:
            raise TypeError("expires_in must be above zero")
        e["expires_at"] = _iso(now + _dt.timedelta(seconds=seconds))
    if o.get("sensitive") is not None:
        e["sensitive"] = bool(o["sensitive"])
    return e


def _require_allow_edit(ctx: EnvelopeContext) -> None:
    v = _parse_version(ctx.version)
    if v is None or v[1] < 6:
        raise CapabilityError(
            f"allow_edit needs ma2h ≥ 0.6; the Hub speaks {ctx.version} and would ignore it (§5.2)",
            code="version_not_supported",
        )


def _ask(ctx: EnvelopeContext, o: Mapping[str, Any], request: Json) -> Json:
    if o.get("allow_edit") is True:
        _require_allow_edit(ctx)
        request["permissions"] = {"allow_edit": True}
    if o.get("allowed_resolvers") is not None:
        request["allowed_resolvers"] = list(o["allowed_resolvers"])
    cb = o.get("callback")
    if cb is not None:
        request["callback"] = cb.wire() if isinstance(cb, Callback) else dict(cb)
    if o.get("require_human") is True:
        if o.get("to") is not None:
            raise TypeError("require_human asks a person: not with `to` (an agent answers that)")
        request[HUMAN_ONLY_FIELD] = True
    return {**_common("ask", ctx, o), "request": request}


def notify_envelope(ctx: EnvelopeContext, o: Mapping[str, Any]) -> Json:
    return _common("notify", ctx, o)


def confirm_envelope(ctx: EnvelopeContext, o: Mapping[str, Any]) -> Json:
    request: Json = {"mode": "confirm"}
    if "default_on_expire" in o:
        request["default_on_expire"] = o["default_on_expire"]
    return _ask(ctx, o, request)


def select_envelope(ctx: EnvelopeContext, o: Mapping[str, Any]) -> Json:
    options: list[Json] = []
    for opt in o["options"]:
        item: Mapping[str, Any] = {"value": opt} if isinstance(opt, str) else opt
        out: Json = {"value": item["value"], "label": item.get("label") or item["value"]}
        if item.get("description") is not None:
            out["description"] = item["description"]
        options.append(out)
    request: Json = {"mode": "select", "options": options}
    if "default_on_expire" in o:
        request["default_on_expire"] = o["default_on_expire"]
    return _ask(ctx, o, request)


def input_envelope(ctx: EnvelopeContext, o: Mapping[str, Any]) -> Json:
    request: Json = {"mode": "input", "schema": dict(o["schema"])}
    if "default_on_expire" in o:
        request["default_on_expire"] = o["default_on_expire"]
    return _ask(ctx, o, request)


def task_envelope(ctx: EnvelopeContext, o: Mapping[str, Any]) -> Json:
    action: Json = {"instructions": o["instructions"]}
    checklist: Sequence[Any] | None = o.get("checklist")
    if checklist is not None:
        action["checklist"] = [
            {"text": c, "done": False} if isinstance(c, str) else {"text": c["text"], "done": bool(c.get("done", False))}
            for c in checklist
        ]
    if o.get("verification") is not None:
        action["verification"] = o["verification"]
    if o.get("allowed_resolvers") is not None:
        action["allowed_resolvers"] = list(o["allowed_resolvers"])
    cb = o.get("callback")
    if cb is not None:
        action["callback"] = cb.wire() if isinstance(cb, Callback) else dict(cb)
    return {**_common("task", ctx, o), "action": action}
