"""``client.sessions``: the agent's sessions (§16) — register, renew by use, close — and each
session's verified drain and ack (§8.7.1), as ``@ma2h/agent``'s sessions.ts and session-inbox.ts.

Every drained item is verified before it is returned (``ma2h.directive.verify_entry``: §9.7 / §9.8
signature, the §13.4 session-qualified addressee check, the shape, the ``jti`` store), then
deduplicated by reserving its key in the dedup store before it is handed out — a directive or
message by its ``id``, a response by ``(in_reply_to, resolution_id)`` (the key the push receivers
use, so an answer that comes both ways is acted on once), a receipt by ``(in_reply_to, event)``.

``accept_from`` is REQUIRED (§13.4 v0.5): the explicit policy for which senders may ask/task this
agent — a list of ``agent:<id>`` (any of its sessions) / ``agent:<id>#sess_…`` addresses, ``[]``
for none, or ``"any-same-account"``. An ask/task from anyone else is reported to ``on_rejected``
and left un-acked. A session's lease is renewed by using it: every drain presents it (§16.2).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Optional, Union

from .directive import VerifiedEntry, verify_entry
from .directives import SenderNotAcceptedError, check_directive_senders, clamp_note
from .errors import InvalidResponseError, Ma2hError, VerificationError
from .journal import DedupStore
from .push import MemoryReplayStore, ReplayStore

if TYPE_CHECKING:
    from .client import Client

__all__ = ["AcceptFrom", "Sessions", "sender_accepted"]

AcceptFrom = Union[Sequence[str], str]
_ADDRESS = re.compile(r"^agent:[^#\s]+(#sess_[^\s]+)?$")


def _check_policy(accept_from: Any) -> AcceptFrom:
    if accept_from == "any-same-account":
        return "any-same-account"
    if isinstance(accept_from, str) or not isinstance(accept_from, Sequence):
        raise TypeError(
            'accept_from is required (§13.4): a list of agent:<id>[#sess_…] addresses, [] for none, or "any-same-account"'
        )
    for a in accept_from:
        if not isinstance(a, str) or not _ADDRESS.match(a):
            raise TypeError(f"accept_from entry {a!r} is not agent:<id> or agent:<id>#sess_…")
    return accept_from


def sender_accepted(sender: str, accept_from: AcceptFrom) -> bool:
    """True when ``sender`` (attested, maybe session-qualified) is one ``accept_from`` lets ask/task us."""
    if accept_from == "any-same-account":
        return True
    principal = sender.split("#", 1)[0]
    return any(a == sender or ("#" not in a and a == principal) for a in accept_from)


def _done_key(dedup_key: str) -> str:
    return f"entry-done:{dedup_key}"


def _session_of(body: Any) -> dict[str, Any]:
    session = body.get("session") if isinstance(body, dict) else None
    if not isinstance(session, dict) or not isinstance(session.get("id"), str):
        raise InvalidResponseError("the Hub's answer is not a session envelope (§16.1)", code="invalid_session")
    return session


class Sessions:
    """``client.sessions``: register, close, and each session's verified drain and ack."""

    def __init__(self, client: "Client") -> None:
        self._c = client
        self._replay: ReplayStore = client.replay_store if client.replay_store is not None else MemoryReplayStore()
        #: ack key → dedup key of what this client handed out, so a bare-key ack marks it done.
        self._handed_out: dict[str, str] = {}

    def register(
        self,
        *,
        ttl_seconds: Optional[int] = None,
        label: Optional[str] = None,
        run_id: Optional[str] = None,
        kind: Optional[str] = None,
        project: Optional[str] = None,
        labels: Optional[Mapping[str, str]] = None,
    ) -> dict[str, Any]:
        """§16.1 ``POST /v1/sessions``: a session of this agent, the address ``agent:<id>#sess_…``
        one run drains at. The client holds it: its submits name it as ``agent.session``."""
        body: dict[str, Any] = {}
        for name, value in (
            ("ttl_seconds", ttl_seconds),
            ("label", label),
            ("run_id", run_id),
            ("kind", kind),
            ("project", project),
            ("labels", dict(labels) if labels is not None else None),
        ):
            if value is not None:
                body[name] = value
        t = self._c._transport
        session = _session_of(t.request("POST", "/v1/sessions", touchpoint="other", body=t.json_body(body)).body)
        self._c._session = session["id"]
        return session

    def close(self, session_id: str) -> dict[str, Any]:
        """§16.3 ``DELETE /v1/sessions/{id}`` (idempotent); un-acked mail addressed to it bounces."""
        from urllib.parse import quote

        reply = self._c._transport.request("DELETE", f"/v1/sessions/{quote(session_id, safe='')}", touchpoint="other")
        session = _session_of(reply.body)
        if self._c._session == session_id:
            self._c._session = None
        return session

    def drain_raw(self, session_id: str, *, max: Optional[int] = None, wait: Optional[int] = None) -> list[Any]:
        """``GET /v1/inbox?session=``: the raw items (each now claimed for the visibility window)."""
        reply = self._c._transport.request(
            "GET",
            "/v1/inbox",
            touchpoint="inbox",
            query={"session": session_id, "max": max, "wait": wait},
            timeout=(wait or 0) + 30,
        )
        messages = reply.body.get("messages") if isinstance(reply.body, dict) else None
        return list(messages) if isinstance(messages, list) else []

    def drain(
        self,
        session_id: str,
        *,
        accept_from: AcceptFrom,
        directives_from: Optional[Sequence[str]] = None,
        max: Optional[int] = None,
        wait: Optional[int] = None,
        dedup_store: Optional[DedupStore] = None,
        replay_store: Optional[ReplayStore] = None,
        on_rejected: Optional[Callable[[Ma2hError, object], None]] = None,
        on_duplicate: Optional[Callable[[VerifiedEntry], None]] = None,
    ) -> list[VerifiedEntry]:
        """Drains, verifies every item, applies ``accept_from`` to ask/task, dedups; returns what is
        ours to use. Presenting the session renews its lease (§16.2)."""
        policy = _check_policy(accept_from)
        senders = check_directive_senders(directives_from)
        dedup = dedup_store or self._c.dedup_store
        replay = replay_store or self._replay
        out: list[VerifiedEntry] = []
        for raw in self.drain_raw(session_id, max=max, wait=wait):
            try:
                entry = verify_entry(
                    raw, agent_id=self._c.agent_id, session=session_id, hub_keys=self._c.hub_keys(), replay_store=replay
                )
            except VerificationError as err:
                if on_rejected:
                    on_rejected(err, raw)
                continue
            if entry.kind == "message" and entry.message is not None:
                msg = entry.message
                if msg.get("type") != "notify" and not sender_accepted(str(msg.get("from")), policy):
                    if on_rejected:
                        on_rejected(SenderNotAcceptedError(str(msg.get("from")), entry.ack_key), raw)
                    continue
            if entry.kind == "directive" and entry.directive is not None and senders is not None:
                if entry.directive["from"] not in senders:
                    if on_rejected:
                        on_rejected(SenderNotAcceptedError(entry.directive["from"], entry.ack_key, "directive"), raw)
                    continue
            # §13.4 step 3: reserve before handing out, so a redelivery is not acted on twice.
            if not dedup.reserve(entry.dedup_key):
                if dedup.has(_done_key(entry.dedup_key)):
                    try:
                        self.ack(session_id, [entry.ack_key])  # acked before, the ack was lost: owe the ack
                    except Ma2hError:
                        pass
                if on_duplicate:
                    on_duplicate(entry)
                continue
            self._handed_out[entry.ack_key] = entry.dedup_key
            out.append(entry)
        return out

    def ack(
        self,
        session_id: str,
        entries: Sequence[Union[str, VerifiedEntry]],
        *,
        note: Optional[str] = None,
        dedup_store: Optional[DedupStore] = None,
    ) -> dict[str, Any]:
        """``POST /v1/inbox/ack?session=`` (§8.7.1): consume entries by ack key (or the entries),
        after they were durably processed. Entries this client handed out are marked done, so a
        redelivery after a lost ack is acked again, not handed out."""
        keys = [e if isinstance(e, str) else e.ack_key for e in entries]
        body: dict[str, Any] = {"ids": keys}
        clamped = clamp_note(note)
        if clamped is not None:
            body["note"] = clamped
        t = self._c._transport
        reply = t.request("POST", "/v1/inbox/ack", touchpoint="inbox", query={"session": session_id}, body=t.json_body(body))
        dedup = dedup_store or self._c.dedup_store
        for e in entries:
            ack_key = e if isinstance(e, str) else e.ack_key
            dedup_key = self._handed_out.pop(ack_key, None) if isinstance(e, str) else e.dedup_key
            self._handed_out.pop(ack_key, None)
            if dedup_key is not None:
                dedup.reserve(_done_key(dedup_key))
        return reply.body if isinstance(reply.body, dict) else {}

    def release(self, entry: VerifiedEntry, *, dedup_store: Optional[DedupStore] = None) -> None:
        """Gives a drained entry back (its processing failed): its redelivery will be handed out."""
        (dedup_store or self._c.dedup_store).release(entry.dedup_key)
        self._handed_out.pop(entry.ack_key, None)
