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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, TypedDict

from .push import Fetch, PublishedKeys, ReplayStore, SigningKey
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

    ``agent_id`` is the agent's own id without ``agent:``; ``session`` the ``sess_…`` it drained
    with (then ``agent:<id>#<session>`` is also its address). Raises ``VerificationError``.
    """
    raise NotImplementedError


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
    """Verifies one item of a session-presenting drain (§8.7.1, §9.7, §9.8); raises ``VerificationError``."""
    raise NotImplementedError


def receipt_dedup_key(receipt: Mapping[str, object]) -> str:
    """§8.7.1 receipt dedup key ``(in_reply_to, event)`` as one string (the TypeScript SDK's)."""
    raise NotImplementedError


def inbound_signed_context(directive: Mapping[str, object], jti: str, t: int) -> dict[str, str | None]:
    """The §9.7 ``inbound_signed_context`` of a directive."""
    raise NotImplementedError


def sign_directive_delivery(
    directive: Mapping[str, object], *, key: SigningKey, now: datetime, jti: str | None = None
) -> str:
    """Signs one delivery as a Hub would; returns the entry's ``signature`` string (with prefix)."""
    raise NotImplementedError


