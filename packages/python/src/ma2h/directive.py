"""§9.7 / §13.4 steps 1–2 for a drained (or pushed) directive, and §9.8 for the other drained entry
kinds of a session-presenting drain (§8.7.1): verify before the agent may act.

``verify_directive`` checks the signature over the context rebuilt from the directive as received,
the window, the shape (inbound-message.schema.json, so an injected unsigned ``request``/``action``/
``state`` is refused), the addressee, then the ``jti`` store, and returns only the known fields.
``verify_entry`` does the same for one item of a session drain — ``directive``, ``message``,
``response`` or ``receipt`` — and gives back its ack key and dedup key. Dedup itself is the caller's
(``DedupStore`` in ``ma2h.journal``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, TypedDict, cast

from . import _keys
from ._shape import check_directive, check_message_entry, check_receipt, check_response_entry, problem_of
from .errors import VerificationError
from .jcs import canonicalize, json_string, sha256_hex
from .journal import response_dedup_key
from .push import (
    Ed25519Key,
    Fetch,
    HmacKey,
    PublishedKeys,
    ReplayStore,
    SigningKey,
    default_replay_store,
    format_signature_header,
    mint_jti,
    payload_sha256,
    sign_context,
    signing_body,
)
from .response import Response

__all__ = [
    "Directive",
    "EntryKind",
    "VerifiedEntry",
    "verify_directive",
    "verify_entry",
    "receipt_dedup_key",
    "inbound_signed_context",
    "sign_directive_delivery",
    "SIGNATURE_PREFIX",
    "directive_payload_sha256",
    "message_signed_context",
    "response_entry_signed_context",
    "receipt_signed_context",
    "sign_entry_delivery",
]

SIGNATURE_PREFIX = "MA2H-Signature: "


class _DirectiveBase(TypedDict):
    ma2h_version: str
    type: Literal["directive"]
    id: str
    to: str
    created_at: str
    title: str


# "from" is a keyword, so the functional form.
_DirectiveFrom = TypedDict("_DirectiveFrom", {"from": str})


class Directive(_DirectiveBase, _DirectiveFrom, total=False):
    """A delivered §13.1 directive, with only its known (signed or schema-checked) fields."""

    body: str
    priority: str
    tags: list[str]
    context: list[object]
    expires_at: str
    sensitive: bool


EntryKind = Literal["directive", "message", "response", "receipt"]


@dataclass(frozen=True)
class VerifiedEntry:
    """A drained item that passed verification.

    ``kind`` says which of ``directive`` / ``message`` / ``response`` / ``receipt`` is set (a dict of
    its known fields; ``response`` is a §6 ``Response``). ``ack_key`` is what ``POST
    /v1/inbox/ack?session=`` takes; ``dedup_key`` the at-most-once key (§13.4 step 3, §6).
    """

    kind: EntryKind
    ack_key: str
    dedup_key: str
    directive: Directive | None = None
    message: dict[str, object] | None = None
    response: Response | None = None
    receipt: dict[str, object] | None = None


#: The §13.1 delivered-directive fields; anything else is dropped (unsigned, never reaches the agent).
_DIRECTIVE_FIELDS = (
    "ma2h_version",
    "type",
    "id",
    "from",
    "to",
    "created_at",
    "title",
    "body",
    "priority",
    "tags",
    "context",
    "expires_at",
    "sensitive",
)
#: §9.7: the human-authored content the directive digest binds, when present.
_DIRECTIVE_CONTENT = ("title", "body", "priority", "tags", "context")
#: §9.8: the delivered envelope's fields the `message` digest binds, when present.
_MESSAGE_CONTENT = ("type", "title", "body", "priority", "tags", "context", "request", "action", "sensitive")
_MESSAGE_FIELDS = _MESSAGE_CONTENT + (
    "ma2h_version",
    "id",
    "from",
    "to",
    "created_at",
    "agent",
    "idempotency_key",
    "expires_at",
)
_RESPONSE_FIELDS = ("ma2h_version", "in_reply_to", "resolution_id", "agent", "resolution", "defaulted", "response", "state")
_RECEIPT_FIELDS = ("ma2h_version", "type", "id", "in_reply_to", "event", "prior", "at", "session", "to")
_KINDS: tuple[EntryKind, ...] = ("directive", "message", "response", "receipt")


def _known(value: Mapping[str, object], fields: Sequence[str]) -> dict[str, object]:
    # JSON has no `undefined`: a present member is kept, `null` included, as the TS SDK keeps it.
    return {k: value[k] for k in fields if k in value}


def _check_agent_id(agent_id: object) -> str:
    if not isinstance(agent_id, str) or agent_id == "" or agent_id.startswith("agent:"):
        raise TypeError("agent_id is required: the agent's own id, without the agent: prefix")
    return agent_id


def _header_value(signature: str) -> str:
    return signature[len(SIGNATURE_PREFIX) :] if signature.startswith(SIGNATURE_PREFIX) else signature


def directive_payload_sha256(directive: Mapping[str, object]) -> str:
    """§9.7: hex SHA-256 of JCS ``{"directive": <present content fields>}``."""
    content = {k: directive[k] for k in _DIRECTIVE_CONTENT if k in directive}
    return sha256_hex(canonicalize({"directive": content}))


def inbound_signed_context(directive: Mapping[str, object], jti: str, t: int) -> dict[str, str | None]:
    """The §9.7 ``inbound_signed_context`` of a directive."""
    return {
        "from": cast(str, directive["from"]),
        "id": cast(str, directive["id"]),
        "jti": jti,
        "ma2h_version": cast(str, directive["ma2h_version"]),
        "payload_sha256": directive_payload_sha256(directive),
        "t": str(t),
        "to": cast(str, directive["to"]),
    }


def _directive_bound(value: object) -> Mapping[str, object] | None:
    if not isinstance(value, Mapping):
        return None
    for k in ("ma2h_version", "id", "from", "to", "title"):
        if not isinstance(value.get(k), str):
            return None
    return value


def verify_directive(
    entry: Mapping[str, object],
    *,
    agent_id: str,
    session: str | None = None,
    hub_url: str | None = None,
    hub_keys: PublishedKeys | None = None,
    hmac_secret: str | Sequence[str] | None = None,
    replay_store: ReplayStore | None = None,
    window_seconds: float | None = None,
    now: Callable[[], datetime] | None = None,
    fetch: Fetch | None = None,
) -> Directive:
    """Verifies one mailbox entry ``{"directive": …, "signature": "MA2H-Signature: …"}``.

    In order: the signature over the context rebuilt from the directive as received (digest
    recomputed), the window, the addressee (``to`` must be ``agent:<agent_id>``, or
    ``agent:<agent_id>#<session>`` when ``session`` names the session drained with — a
    session-qualified ``to`` is refused without it), the shape (inbound-message.schema.json: an
    injected ``request``/``action``/``state`` is refused), then the ``jti`` store. Returns only the
    known fields. Raises ``VerificationError``; dedup on the directive ``id`` is the caller's.
    """
    principal = "agent:" + _check_agent_id(agent_id)
    source = _keys.key_source(
        hmac_secret=hmac_secret,
        hub_url=hub_url,
        hub_keys=hub_keys,
        fetch=fetch,
        key_id=None,
        hub_use="the Hub's ed25519 keys, §9.7",
    )
    window = _keys.window_option(window_seconds)
    at = _keys.now_of(now)
    raw = entry.get("directive") if isinstance(entry, Mapping) else None
    own = None if session is None else f"{principal}#{session}"
    to = raw.get("to") if isinstance(raw, Mapping) else None
    self_address = own if own is not None and to == own else principal
    sig = entry.get("signature") if isinstance(entry, Mapping) else None
    signature = sig if isinstance(sig, str) and sig != "" else None
    bound = _directive_bound(raw)

    def build(jti: str, t: int) -> Mapping[str, str | None] | None:
        return None if bound is None else inbound_signed_context(bound, jti, t)

    def check(keys: Sequence[HmacKey | Ed25519Key]) -> _keys.Check:
        if signature is None:
            return _keys.Check("missing_header")
        result = _keys.check_detached(_header_value(signature), build, keys, at, window)
        if result.reason is None and (bound is None or bound.get("to") != self_address):
            return _keys.Check("wrong_addressee")  # a valid signature for another agent is not ours
        return result

    result = _keys.check_with_keys(source, check)
    if result.reason is not None:
        raise VerificationError(result.reason)
    problem = problem_of(check_directive, raw)
    if problem is not None:
        raise VerificationError("invalid_shape", f"not a directive (inbound-message.schema.json): {problem}")
    store = replay_store if replay_store is not None else default_replay_store()
    assert result.remember_until is not None
    if not store.check_and_record(result.jti, result.remember_until, at):
        raise VerificationError("replayed")
    return cast(Directive, _known(cast(Mapping[str, object], raw), _DIRECTIVE_FIELDS))


def message_signed_context(entry: Mapping[str, object], jti: str, t: int) -> dict[str, str | None]:
    """The §9.8 ``message_signed_context`` (the key set of §9.7's)."""
    content = {k: entry[k] for k in _MESSAGE_CONTENT if k in entry}
    return {
        "from": cast(str, entry["from"]),
        "id": cast(str, entry["id"]),
        "jti": jti,
        "ma2h_version": cast(str, entry["ma2h_version"]),
        "payload_sha256": sha256_hex(canonicalize({"message": content})),
        "t": str(t),
        "to": cast(str, entry["to"]),
    }


def response_entry_signed_context(body: Mapping[str, object], to: str, jti: str, t: int) -> dict[str, str | None]:
    """The §9.8 ``response_signed_context``: §9.2's with the session address ``to`` for ``callback_url``."""
    detail = body.get("response")
    resolved_at = detail.get("resolved_at") if isinstance(detail, Mapping) else None
    return {
        "id": cast(str, body["in_reply_to"]),
        "in_reply_to": cast(str, body["in_reply_to"]),
        "jti": jti,
        "ma2h_version": cast(str, body["ma2h_version"]),
        "payload_sha256": payload_sha256(body.get("response"), body.get("state")),
        "resolution": cast(str, body["resolution"]),
        "resolution_id": cast(str, body["resolution_id"]),
        "resolved_at": resolved_at if isinstance(resolved_at, str) else None,
        "t": str(t),
        "to": to,
    }


def receipt_signed_context(receipt: Mapping[str, object], to: str, jti: str, t: int) -> dict[str, str | None]:
    """The §9.8 ``receipt_signed_context``; the digest covers exactly six members (absent as null)."""
    digest = sha256_hex(
        canonicalize(
            {
                "at": receipt.get("at"),
                "event": receipt.get("event"),
                "id": receipt.get("id"),
                "in_reply_to": receipt["in_reply_to"],
                "prior": receipt.get("prior"),
                "session": receipt.get("session"),
            }
        )
    )
    return {
        "in_reply_to": cast(str, receipt["in_reply_to"]),
        "jti": jti,
        "ma2h_version": cast(str, receipt["ma2h_version"]),
        "receipt_sha256": digest,
        "t": str(t),
        "to": to,
    }


def _message_bound(value: object) -> Mapping[str, object] | None:
    if not isinstance(value, Mapping):
        return None
    for k in ("ma2h_version", "id", "from", "to"):
        if not isinstance(value.get(k), str):
            return None
    return value


def _receipt_bound(value: object) -> Mapping[str, object] | None:
    if not isinstance(value, Mapping):
        return None
    if not isinstance(value.get("ma2h_version"), str) or not isinstance(value.get("in_reply_to"), str):
        return None
    for k in ("id", "event", "prior", "at", "session"):
        v = value.get(k)
        if v is not None and not isinstance(v, str):
            return None
    return value


def receipt_dedup_key(receipt: Mapping[str, object]) -> str:
    """§8.7.1 receipt dedup key ``(in_reply_to, event)``: ``receipt:["<in_reply_to>","<event>"]``."""
    return f"receipt:[{json_string(str(receipt['in_reply_to']))},{json_string(str(receipt['event']))}]"


def _kind_of(item: object) -> EntryKind:
    if not isinstance(item, Mapping):
        raise VerificationError("invalid_shape", "not a drained item")
    present = [k for k in _KINDS if k in item]
    if len(present) != 1:
        raise VerificationError("invalid_shape", f"a drained item carries exactly one of {', '.join(_KINDS)}")
    return present[0]


def verify_entry(
    item: object,
    *,
    agent_id: str,
    session: str,
    hub_url: str | None = None,
    hub_keys: PublishedKeys | None = None,
    hmac_secret: str | Sequence[str] | None = None,
    replay_store: ReplayStore | None = None,
    window_seconds: float | None = None,
    now: Callable[[], datetime] | None = None,
    fetch: Fetch | None = None,
) -> VerifiedEntry:
    """Verifies one item of a session-presenting drain (§8.7.1, §9.7, §9.8); raises ``VerificationError``.

    A directive goes through ``verify_directive`` (the presented session a valid addressee); a
    ``message``/``response``/``receipt`` through the §9.8 check — digests recomputed, ``to``
    rebuilt from ``agent_id`` and ``session`` (never read from the body) — then the addressee, the
    shape, and the ``jti`` store. Returns the known fields with the ack key and dedup key.
    """
    me = _check_agent_id(agent_id)
    if not isinstance(session, str) or re.match(r"sess_.", session, re.S) is None:
        raise TypeError("session is required: the sess_… the drain presented")
    kind = _kind_of(item)
    raw = cast(Mapping[str, object], item)
    sig = raw.get("signature")
    signature = sig if isinstance(sig, str) and sig != "" else None
    if kind == "directive":
        directive = verify_directive(
            {"directive": raw["directive"], "signature": signature or ""},
            agent_id=me,
            session=session,
            hub_url=hub_url,
            hub_keys=hub_keys,
            hmac_secret=hmac_secret,
            replay_store=replay_store,
            window_seconds=window_seconds,
            now=now,
            fetch=fetch,
        )
        return VerifiedEntry("directive", directive["id"], directive["id"], directive=directive)

    source = _keys.key_source(
        hmac_secret=hmac_secret,
        hub_url=hub_url,
        hub_keys=hub_keys,
        fetch=fetch,
        key_id=None,
        hub_use="the Hub's ed25519 keys, §9.8",
    )
    window = _keys.window_option(window_seconds)
    at = _keys.now_of(now)
    to = f"agent:{me}#{session}"
    entry = raw[kind]
    build: _keys.Builder
    message = _message_bound(entry) if kind == "message" else None
    if kind == "message":

        def build(jti: str, t: int) -> Mapping[str, str | None] | None:
            return None if message is None else message_signed_context(message, jti, t)

    elif kind == "response":
        response = signing_body(entry)

        def build(jti: str, t: int) -> Mapping[str, str | None] | None:
            return None if response is None else response_entry_signed_context(response, to, jti, t)

    else:
        receipt = _receipt_bound(entry)

        def build(jti: str, t: int) -> Mapping[str, str | None] | None:
            return None if receipt is None else receipt_signed_context(receipt, to, jti, t)

    def check(keys: Sequence[HmacKey | Ed25519Key]) -> _keys.Check:
        if signature is None:
            return _keys.Check("missing_header")
        result = _keys.check_detached(_header_value(signature), build, keys, at, window)
        if result.reason is None and message is not None and message.get("to") not in (f"agent:{me}", to):
            return _keys.Check("wrong_addressee")
        return result

    result = _keys.check_with_keys(source, check)
    if result.reason is not None:
        raise VerificationError(result.reason)

    verified: VerifiedEntry
    if kind == "message":
        problem = problem_of(check_message_entry, entry)
        if problem is not None:
            raise VerificationError("invalid_shape", f"not a message entry (§8.7.1): {problem}")
        picked = _known(cast(Mapping[str, object], entry), _MESSAGE_FIELDS)
        verified = VerifiedEntry("message", cast(str, picked["id"]), cast(str, picked["id"]), message=picked)
    elif kind == "response":
        problem = problem_of(check_response_entry, entry)
        if problem is not None:
            raise VerificationError("invalid_shape", f"not a response entry (§6, §8.7.1): {problem}")
        picked_response = cast(Response, _known(cast(Mapping[str, object], entry), _RESPONSE_FIELDS))
        verified = VerifiedEntry(
            "response",
            picked_response["resolution_id"],
            response_dedup_key(cast(Mapping[str, object], picked_response)),
            response=picked_response,
        )
    else:
        problem = problem_of(check_receipt, entry)
        if problem is not None:
            raise VerificationError("invalid_shape", f"not a receipt (§14.2, §8.7.1): {problem}")
        picked = _known(cast(Mapping[str, object], entry), _RECEIPT_FIELDS)
        if picked.get("to") != to:
            raise VerificationError("wrong_addressee", "the receipt names another session")
        verified = VerifiedEntry("receipt", cast(str, picked["id"]), receipt_dedup_key(picked), receipt=picked)

    store = replay_store if replay_store is not None else default_replay_store()
    assert result.remember_until is not None
    if not store.check_and_record(result.jti, result.remember_until, at):
        raise VerificationError("replayed")
    return verified


def _delivery(context_for: Callable[[str, int], Mapping[str, str | None]], key: SigningKey, now: datetime, jti: str | None) -> str:
    t = int(now.timestamp() // 1)
    nonce = jti if jti is not None else mint_jti()
    context = context_for(nonce, t)
    return SIGNATURE_PREFIX + format_signature_header(t, nonce, sign_context(context, key))


def sign_directive_delivery(
    directive: Mapping[str, object], *, key: SigningKey, now: datetime, jti: str | None = None
) -> str:
    """Signs one delivery as a Hub would; returns the entry's ``signature`` string (with prefix)."""
    return _delivery(lambda j, t: inbound_signed_context(directive, j, t), key, now, jti)


def sign_entry_delivery(
    kind: Literal["message", "response", "receipt"],
    entry: Mapping[str, object],
    *,
    to: str,
    key: SigningKey,
    now: datetime,
    jti: str | None = None,
) -> str:
    """Signs one §9.8 delivery as a Hub would (``to``: the session address delivered to, ignored for
    a message, which binds its own ``to``); returns the ``signature`` string (with prefix)."""
    if kind == "message":
        return _delivery(lambda j, t: message_signed_context(entry, j, t), key, now, jti)
    if kind == "response":
        return _delivery(lambda j, t: response_entry_signed_context(entry, to, j, t), key, now, jti)
    return _delivery(lambda j, t: receipt_signed_context(entry, to, j, t), key, now, jti)
