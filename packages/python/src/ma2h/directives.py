"""``client.directives``: the agent's §8.7 directive mailbox and the §13.4 loop — drain → verify
(§9.7 signature, window, ``jti``, addressee, shape) → reserve the id → act → ack with the handler's
note (§14.3), as ``@ma2h/agent``'s directives.ts. At-least-once delivery becomes at-most-once
action: an id is reserved in the dedup store before the handler runs, so a redelivery is never
handed over twice; a handler that raises releases its reservation and leaves the directive
un-acked, so it comes back. ``directives_from`` is the agent's own §13.5 policy for who may
instruct it; a directive from anyone else, and an entry that does not verify, are reported to
``on_rejected`` and NOT acked (the signature is what makes a directive ours to consume).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Optional

from .directive import Directive, verify_directive
from .errors import Ma2hError, VerificationError
from .journal import DedupStore, MemoryDedupStore
from .push import MemoryReplayStore, ReplayStore
from .transport import Cancelled, backoff_delay, is_transient

if TYPE_CHECKING:
    from .client import Client

__all__ = ["Directives", "SenderNotAcceptedError", "check_directive_senders"]

#: The Hub's ack note bound (§14.1 "a short note").
NOTE_MAX_CHARS = 2000
#: §8.7 long-poll ceiling.
DRAIN_WAIT_SECONDS = 60
_DIRECTIVE_FROM = re.compile(r"^(human|system):.+$")

Handler = Callable[[Directive], Optional[str]]
OnRejected = Callable[[Ma2hError, object], None]


class SenderNotAcceptedError(Ma2hError):
    """A verified entry from a sender the policy does not list: an addressed ask/task outside
    ``accept_from`` (§13.4), or a directive outside ``directives_from`` (§13.5). ``ack_key`` drops it."""

    code = "sender_not_accepted"

    def __init__(self, sender: str, ack_key: str, what: str = "ask/task") -> None:
        policy = "directives_from" if what == "directive" else "accept_from"
        super().__init__(f"{sender} is not in {policy}: its {what} {ack_key} is not handed out")
        self.sender = sender
        self.ack_key = ack_key


def check_directive_senders(senders: Optional[Sequence[str]]) -> Optional[Sequence[str]]:
    """The §13.5 policy, checked once: ``human:<id>`` / ``system:<…>`` principals ([] for none)."""
    if senders is None:
        return None
    if isinstance(senders, str) or not isinstance(senders, Sequence):
        raise TypeError("directives_from is a list of human:<id> / system:<…> principals ([] for none)")
    for s in senders:
        if not isinstance(s, str) or not _DIRECTIVE_FROM.match(s):
            raise TypeError(f"directives_from entry {s!r} is not human:<id> or system:<…>")
    return senders


def clamp_note(note: object) -> Optional[str]:
    if not isinstance(note, str) or note == "":
        return None
    return note[:NOTE_MAX_CHARS]


def _done_key(directive_id: str) -> str:
    return f"directive-done:{directive_id}"


class Directives:
    """``client.directives``: ``drain`` (verified), ``ack``, and the ``listen`` loop."""

    def __init__(self, client: "Client") -> None:
        self._c = client
        self._replay: ReplayStore = client.replay_store if client.replay_store is not None else MemoryReplayStore()
        self._dedup: DedupStore = MemoryDedupStore()

    def drain_raw(self, *, max: Optional[int] = None, wait: Optional[int] = None, cancel: Optional[threading.Event] = None) -> list[Any]:
        """``GET /v1/inbox``: the raw entries (each now in flight for the visibility timeout)."""
        reply = self._c._transport.request(
            "GET",
            "/v1/inbox",
            touchpoint="inbox",
            query={"max": max, "wait": wait},
            timeout=(wait or 0) + 30,
            cancel=cancel,
        )
        messages = reply.body.get("messages") if isinstance(reply.body, dict) else None
        return list(messages) if isinstance(messages, list) else []

    def _verify(self, entry: Any, replay_store: ReplayStore) -> Directive:
        if not isinstance(entry, dict):
            raise VerificationError("invalid_shape", "not a directive entry")
        return verify_directive(entry, agent_id=self._c.agent_id, hub_keys=self._c.hub_keys(), replay_store=replay_store)

    def drain(
        self,
        *,
        max: Optional[int] = None,
        wait: Optional[int] = None,
        directives_from: Optional[Sequence[str]] = None,
        replay_store: Optional[ReplayStore] = None,
        on_rejected: Optional[OnRejected] = None,
    ) -> list[Directive]:
        """One verified drain (§8.7, §9.7); each directive stays un-acked until ``ack``."""
        senders = check_directive_senders(directives_from)
        out: list[Directive] = []
        for entry in self.drain_raw(max=max, wait=wait):
            try:
                directive = self._verify(entry, replay_store or self._replay)
            except VerificationError as err:
                if on_rejected:
                    on_rejected(err, entry)
                continue
            if senders is None or directive["from"] in senders:
                out.append(directive)
            elif on_rejected:
                on_rejected(SenderNotAcceptedError(directive["from"], directive["id"], "directive"), entry)
        return out

    def ack(self, ids: Sequence[str], *, note: Optional[str] = None) -> dict[str, Any]:
        """``POST /v1/inbox/ack`` (§8.7, §14.3): consume directives by id, with a note the person reads."""
        body: dict[str, Any] = {"ids": list(ids)}
        clamped = clamp_note(note)
        if clamped is not None:
            body["note"] = clamped
        reply = self._c._transport.request("POST", "/v1/inbox/ack", touchpoint="inbox", body=self._c._transport.json_body(body))
        return reply.body if isinstance(reply.body, dict) else {}

    def listen(
        self,
        handler: Handler,
        *,
        stop: Optional[threading.Event] = None,
        directives_from: Optional[Sequence[str]] = None,
        replay_store: Optional[ReplayStore] = None,
        dedup_store: Optional[DedupStore] = None,
        on_rejected: Optional[OnRejected] = None,
        on_error: Optional[Callable[[BaseException, Optional[Directive]], None]] = None,
        wait: int = DRAIN_WAIT_SECONDS,
    ) -> None:
        """The §13.4 loop until ``stop`` is set: drain (``?wait=``), verify, hand each directive to
        ``handler`` at most once, ack it with the string ``handler`` returns as the note. ``stop``
        takes effect when the current drain returns (within ``wait`` seconds)."""
        senders = check_directive_senders(directives_from)
        replay = replay_store or self._replay
        dedup = dedup_store or self._dedup
        owed: dict[str, Optional[str]] = {}
        r = self._c._transport.retry
        failures = 0
        while stop is None or not stop.is_set():
            try:
                for did, note in list(owed.items()):
                    self.ack([did], note=note)
                    owed.pop(did, None)
                entries = self.drain_raw(wait=wait, cancel=stop)
                failures = 0
                for entry in entries:
                    if stop is not None and stop.is_set():
                        break  # left unhandled: redelivered after the visibility timeout
                    self._handle(entry, handler, senders, replay, dedup, owed, on_rejected, on_error)
            except Cancelled:
                return
            except Ma2hError as err:
                if stop is not None and stop.is_set():
                    return
                if not is_transient(err):
                    raise
                pause = backoff_delay(failures, max(r.base_delay, 0.5), r.max_delay)
                failures += 1
                if stop is not None:
                    if stop.wait(pause):
                        return
                else:
                    threading.Event().wait(pause)

    def run_once(
        self,
        handler: Handler,
        *,
        directives_from: Optional[Sequence[str]] = None,
        dedup_store: Optional[DedupStore] = None,
        on_rejected: Optional[OnRejected] = None,
        on_error: Optional[Callable[[BaseException, Optional[Directive]], None]] = None,
        wait: Optional[int] = None,
    ) -> int:
        """One pass of the loop (drain, verify, act, ack); returns how many directives were handled."""
        senders = check_directive_senders(directives_from)
        owed: dict[str, Optional[str]] = {}
        handled = 0
        for entry in self.drain_raw(wait=wait):
            if self._handle(entry, handler, senders, self._replay, dedup_store or self._dedup, owed, on_rejected, on_error):
                handled += 1
        for did, note in owed.items():
            self.ack([did], note=note)
        return handled

    def _handle(
        self,
        entry: Any,
        handler: Handler,
        senders: Optional[Sequence[str]],
        replay: ReplayStore,
        dedup: DedupStore,
        owed: dict[str, Optional[str]],
        on_rejected: Optional[OnRejected],
        on_error: Optional[Callable[[BaseException, Optional[Directive]], None]],
    ) -> bool:
        try:
            directive = self._verify(entry, replay)
        except VerificationError as err:
            if on_rejected:
                on_rejected(err, entry)
            return False
        except Ma2hError as err:  # e.g. the keys could not be fetched: redelivered later
            if on_error:
                on_error(err, None)
            return False
        if senders is not None and directive["from"] not in senders:
            if on_rejected:
                on_rejected(SenderNotAcceptedError(directive["from"], directive["id"], "directive"), entry)
            return False
        did = directive["id"]
        # §13.4 step 3: reserve before the work, so an overlapping delivery is not acted on twice.
        if not dedup.reserve(did):
            if dedup.has(_done_key(did)):
                try:
                    self.ack([did])  # finished before but never acked: the ack is owed, not the work
                except Ma2hError:
                    pass
            return False
        try:
            note = clamp_note(handler(directive))
        except Exception as err:  # noqa: BLE001 - the handler's failure leaves it un-acked
            dedup.release(did)
            if on_error:
                on_error(err, directive)
            return False
        dedup.reserve(_done_key(did))
        try:
            self.ack([did], note=note)
        except Ma2hError as err:
            owed[did] = note
            if not is_transient(err):
                raise
        return True
