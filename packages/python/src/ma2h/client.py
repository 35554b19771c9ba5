"""``Client``: the agent's side of the §8 HTTP binding, grouped by resource as ``@ma2h/agent``'s
``Ma2hClient`` — ``client.messages`` (submit, pull, long-poll, cancel, resolve, ack),
``client.sessions`` (§16 and the verified session drain, :mod:`ma2h.sessions`),
``client.directives`` (the §8.7 mailbox, :mod:`ma2h.directives`) — plus the short forms
``client.ask.confirm|select|input``, ``client.notify``, ``client.task`` and ``client.resolve``.

Every submit is serialized once; with a journal (``journal=FileSubmitJournal(dir)``) the exact bytes
are saved under the ``idempotency_key`` before the POST and the ack after it. Submitting again with
the same ``idempotency_key`` — a restart after the process died between submit and answer — sends
nothing when the ack is on record and re-sends the saved bytes otherwise (the Hub answers the
original ack, §8.1): never a second message. ``client.act_once(answer, fn)`` runs ``fn`` at most once
per ``(in_reply_to, resolution_id)`` (§6) through the dedup store, across restarts with a file store.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Optional, TypeVar, Union

from . import envelopes as _env
from .errors import (
    AlreadyTerminalError,
    CapabilityError,
    InvalidResponseError,
    JournalError,
    Ma2hError,
    MisrouteError,
    NotAnsweredByHumanError,
    WaitTimeoutError,
)
from .envelopes import Callback
from .journal import DedupStore, MemoryDedupStore, SubmitJournal, response_dedup_key
from .push import ReplayStore
from .response import Response, response_problem
from .transport import Cancelled, HubReply, RetryOptions, Transport, backoff_delay, is_transient

__all__ = [
    "Answer",
    "AskCalls",
    "Callback",
    "Client",
    "MessageHandle",
    "Messages",
]

Json = dict[str, Any]
T = TypeVar("T")

#: The Hub's long-poll ceiling (§8.2: server-max, cap 60).
MAX_WAIT_SECONDS = 60


class Answer(dict):  # type: ignore[type-arg]
    """The §6 Response of an ask or task as ``wait()`` returns it: the Response itself (a dict, the
    JSON the Hub sent) with read-only conveniences. ``by_human`` is true exactly when the
    Hub-attested ``response.actor`` is a person (``human:…``)."""

    @property
    def resolution(self) -> str:
        return str(self["resolution"])

    @property
    def value(self) -> Any:
        return (self.get("response") or {}).get("value")

    @property
    def comment(self) -> Optional[str]:
        return (self.get("response") or {}).get("comment")

    @property
    def actor(self) -> Optional[str]:
        return (self.get("response") or {}).get("actor")

    @property
    def state(self) -> Optional[Json]:
        return self.get("state")

    @property
    def by_human(self) -> bool:
        actor = self.actor
        return isinstance(actor, str) and actor.startswith("human:")

    @property
    def approved(self) -> bool:
        """A confirm answered ``approve`` (an expiry whose default is approve included)."""
        return self.value == "approve" and self.resolution in ("answered", "expired")

    def response(self) -> Response:
        """The plain §6 Response (a copy)."""
        return dict(self)  # type: ignore[return-value]


def _breaks_require_human(answer: Answer) -> bool:
    return answer.resolution in ("answered", "declined") and not answer.by_human


def _response_of(body: Mapping[str, Any]) -> Answer:
    response = body.get("response")
    if not isinstance(response, Mapping) or not isinstance(response.get("in_reply_to"), str) or not isinstance(
        response.get("resolution_id"), str
    ):
        raise InvalidResponseError(f"message {body.get('id')} is {body.get('status')} but carries no valid §6 response")
    problem = response_problem(response)
    if problem is not None:
        raise InvalidResponseError(f"message {body.get('id')}: not a §6 response ({problem})")
    return Answer(response)


class MessageHandle:
    """What every submit answers: the message's id and the Hub's ack, and the calls on it."""

    def __init__(self, messages: "Messages", ack: Json, *, require_human: bool = False, replayed: bool = False) -> None:
        self._messages = messages
        self.ack: Json = ack
        self.id: str = ack["id"]
        self.require_human = require_human
        #: True when this submit sent nothing new: the journal had it (a restart), §8.1.
        self.replayed = replayed

    @property
    def destination(self) -> Optional[Json]:
        """§8.1 the addressee's reachability at send time (addressed submits only)."""
        d = self.ack.get("destination")
        return d if isinstance(d, dict) else None

    def get(self, *, wait: Optional[int] = None) -> Optional[Json]:
        return self._messages.get(self.id, wait=wait)

    def wait(
        self,
        timeout: Optional[float] = None,
        *,
        require_human: Optional[bool] = None,
        cancel: Optional[threading.Event] = None,
        hold: int = MAX_WAIT_SECONDS,
    ) -> Answer:
        """Long-polls (§8.2 ``?wait=``) until the §6 Response; ``WaitTimeoutError`` after ``timeout``
        seconds. An ask made with ``require_human`` refuses a non-person's answer here. ``cancel``
        (an event) stops the wait at the end of the current hold of at most ``hold`` seconds."""
        rh = self.require_human if require_human is None else require_human
        return self._messages.wait(self.id, timeout=timeout, require_human=rh, cancel=cancel, hold=hold)

    def cancel(self) -> Json:
        """§8.4 cancels the message; a different terminal is ``AlreadyTerminalError``."""
        return self._messages.cancel(self.id)

    def acknowledge(self, *, note: Optional[str] = None, resolution_id: Optional[str] = None) -> Json:
        """§14.3 the response-leg ack."""
        return self._messages.ack(self.id, note=note, resolution_id=resolution_id)

    def __repr__(self) -> str:
        return f"MessageHandle(id={self.id!r}, status={self.ack.get('status')!r})"


class AskCalls:
    """``client.ask``: one call per §5 ask kind. Each answers a :class:`MessageHandle`."""

    def __init__(self, messages: "Messages") -> None:
        self._m = messages

    def confirm(self, title: str, **options: Any) -> MessageHandle:
        """A yes/no ask (``approve``/``deny``). Options: ``body``, ``priority``, ``tags``, ``context``,
        ``state``, ``client_ref``, ``idempotency_key``, ``expires_at``/``expires_in``,
        ``default_on_expire`` ("approve"/"deny"/None), ``allow_edit``, ``callback``,
        ``allowed_resolvers``, ``require_human``, ``to``, ``session``, ``sensitive``."""
        return self._m._ask(_env.confirm_envelope, {"title": title, **options})

    def select(self, title: str, options: Sequence[Union[str, Mapping[str, Any]]], **more: Any) -> MessageHandle:
        """Pick one of ``options`` (strings or ``{"value", "label", "description"}``)."""
        return self._m._ask(_env.select_envelope, {"title": title, "options": options, **more})

    def input(self, title: str, schema: Mapping[str, Any], **options: Any) -> MessageHandle:
        """A form: the answer is an object of the flat JSON Schema ``schema`` (§5.2)."""
        return self._m._ask(_env.input_envelope, {"title": title, "schema": schema, **options})


class Messages:
    """``client.messages``: submit (§8.1), pull and long-poll (§8.2), cancel (§8.4), resolve as an
    agent resolver (§8.8) and the response-leg ack (§14.3)."""

    def __init__(self, client: "Client") -> None:
        self._c = client
        self._t = client._transport
        self.ask = AskCalls(self)

    def _sessioned(self, o: Json) -> Json:
        held = self._c.session
        if "session" in o or held is None:
            return o
        return {**o, "session": held}

    def _ask(self, build: Callable[[_env.EnvelopeContext, Mapping[str, Any]], Json], o: Json) -> MessageHandle:
        key = o.get("idempotency_key")
        if key and self._c.journal is not None:
            early = self._from_journal(key)
            if early is not None:
                return early
        envelope = build(self._c._context(), self._sessioned(o))
        return self.submit(envelope)

    def notify(self, title: str, **options: Any) -> MessageHandle:
        """§5.1 a notify: no answer is expected."""
        o = {"title": title, **options}
        key = o.get("idempotency_key")
        if key and self._c.journal is not None:
            early = self._from_journal(key)
            if early is not None:
                return early
        return self.submit(_env.notify_envelope(self._c._context(), self._sessioned(o)))

    def task(self, title: str, instructions: str, **options: Any) -> MessageHandle:
        """§5.3 a task a person does and resolves (``completed``/``dismissed``). Options as an ask,
        plus ``checklist`` and ``verification``."""
        o = {"title": title, "instructions": instructions, **options}
        key = o.get("idempotency_key")
        if key and self._c.journal is not None:
            early = self._from_journal(key)
            if early is not None:
                return early
        return self.submit(_env.task_envelope(self._c._context(), self._sessioned(o)))

    def _from_journal(self, key: str) -> Optional[MessageHandle]:
        """The submit this key already made (a restart): its recorded ack, or its saved bytes re-sent."""
        journal = self._c.journal
        assert journal is not None
        ack = journal.ack(key)
        if ack is not None:
            data = journal.load(key)
            return MessageHandle(self, dict(ack), require_human=_human_only(data), replayed=True)
        if journal.load(key) is not None:
            return self.replay(key)
        return None

    def submit(self, envelope: Mapping[str, Any]) -> MessageHandle:
        """Submits any envelope: serialized ONCE, the bytes journaled before the POST and the ack after."""
        cap = self._c.capability()
        to = envelope.get("to")
        if to is not None:
            _require_inter_agent(cap)
        data = json.dumps(envelope, ensure_ascii=False, separators=(",", ":"))
        _check_limits(cap, envelope.get("context"), data)
        key = envelope.get("idempotency_key")
        journal = self._c.journal
        if journal is not None and isinstance(key, str):
            journal.save(key, data)
        ack = self._post(data)
        if journal is not None and isinstance(key, str):
            journal.complete(key, ack)
        if to is not None:
            self._assert_routed(str(envelope.get("type")), ack)
        return MessageHandle(self, ack, require_human=_human_only(data))

    def replay(self, idempotency_key: str) -> MessageHandle:
        """Re-POSTs the journaled bytes of ``idempotency_key``: the Hub answers the original ack (§8.1)."""
        journal = self._c.journal
        if journal is None:
            raise JournalError("replay needs a journal", code="no_journal")
        data = journal.load(idempotency_key)
        if data is None:
            raise JournalError("no journaled submit for this idempotency key", code="journal_miss")
        sent = json.loads(data)
        if sent.get("to") is not None:
            _require_inter_agent(self._c.capability())
        ack = self._post(data)
        journal.complete(idempotency_key, ack)
        if sent.get("to") is not None:
            self._assert_routed(str(sent.get("type")), ack)
        return MessageHandle(self, ack, require_human=_human_only(data), replayed=True)

    def _post(self, data: str) -> Json:
        reply = self._t.request("POST", "/v1/messages", body=data.encode("utf-8"), touchpoint="submit")
        ack = reply.body
        if not isinstance(ack, dict) or not isinstance(ack.get("id"), str) or not isinstance(ack.get("status"), str):
            raise InvalidResponseError("the Hub's submit ack carries no id/status (§8.1)", code="invalid_ack", status=reply.status)
        return ack

    def _assert_routed(self, kind: str, ack: Json) -> None:
        """§8.1 misroute detector: an addressed submit's ack must carry ``destination``."""
        if isinstance(ack.get("destination"), dict):
            return
        cancelled = False
        if kind in ("ask", "task"):
            try:
                self.cancel(ack["id"])
                cancelled = True
            except AlreadyTerminalError as err:
                cancelled = (err.existing or {}).get("status") == "cancelled"
            except Ma2hError:
                cancelled = False
        misroute = MisrouteError(
            f"misrouted: the Hub accepted addressed {kind} {ack['id']} without a destination snapshot (§8.1)"
            + ("; it was cancelled (§8.4)" if cancelled else "")
        )
        setattr(misroute, "ack", ack)
        setattr(misroute, "cancelled", cancelled)
        raise misroute

    def handle(self, message_id: str, ack: Optional[Mapping[str, Any]] = None) -> MessageHandle:
        """A handle on a message id (the ack is synthesized when none is known)."""
        base = ack or {"id": message_id, "status": "open", "poll_url": f"{self._t.base_url}/v1/messages/{message_id}"}
        return MessageHandle(self, dict(base))

    def _get(self, message_id: str, *, wait: Optional[int] = None, since: Optional[str] = None, timeout: Optional[float] = None, cancel: Optional[threading.Event] = None) -> HubReply:
        return self._t.request(
            "GET",
            f"/v1/messages/{_quote(message_id)}",
            touchpoint="pull",
            query={"wait": wait, "since": since},
            timeout=timeout,
            cancel=cancel,
        )

    def get(self, message_id: str, *, wait: Optional[int] = None, since: Optional[str] = None) -> Optional[Json]:
        """§8.2 one GET (``wait`` long-polls; ``since`` → None on 304)."""
        reply = self._get(message_id, wait=wait, since=since, timeout=(wait or 0) + 30)
        return None if reply.status == 304 else reply.body

    def wait(
        self,
        message_id: str,
        *,
        timeout: Optional[float] = None,
        require_human: bool = False,
        cancel: Optional[threading.Event] = None,
        hold: int = MAX_WAIT_SECONDS,
    ) -> Answer:
        """Long-polls until the message is terminal and returns its §6 Response as an :class:`Answer`.

        ``GET ?wait=`` (``hold`` seconds, at most 60, less near the deadline) with ``since``; network errors, spent 5xx and
        long 429s are waited out with jittered backoff. ``WaitTimeoutError`` after ``timeout``
        seconds (default: never); ``NotAnsweredByHumanError`` with ``require_human`` when the ask was
        answered or declined by anything but a person (an expiry is returned as usual)."""
        deadline = float("inf") if timeout is None else time.monotonic() + timeout
        r = self._t.retry
        last: Optional[Json] = None
        since: Optional[str] = None
        failures = 0

        def timed_out() -> WaitTimeoutError:
            gave_up = WaitTimeoutError(f"message {message_id} still {(last or {}).get('status', 'unread')} when the wait gave up")
            setattr(gave_up, "body", last)
            return gave_up

        while True:
            if cancel is not None and cancel.is_set():
                raise Cancelled("the wait was cancelled")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise timed_out()
            hold_now = int(max(0, min(hold, MAX_WAIT_SECONDS, remaining)))
            started = time.monotonic()
            try:
                reply = self._get(message_id, wait=hold_now, since=since, timeout=min(remaining + 1, hold_now + 30), cancel=cancel)
            except Ma2hError as err:
                if not is_transient(err):
                    raise
                if time.monotonic() >= deadline:
                    raise timed_out() from err
                retry_after = getattr(err, "retry_after", None)
                pause = max(retry_after or 0.0, backoff_delay(failures, r.base_delay, r.max_delay))
                failures += 1
                if time.monotonic() + pause >= deadline:
                    raise timed_out() from err
                _pause(pause, cancel)
                continue
            failures = 0
            held = time.monotonic() - started
            if reply.status == 304:
                # Early means terminal-and-unchanged (the Hub does not hold a terminal message).
                if held < hold_now - 1:
                    since = None
                continue
            body = reply.body
            if not isinstance(body, dict):
                raise InvalidResponseError(f"message {message_id}: the Hub's answer is not a message body", status=reply.status)
            last = body
            if body.get("type") == "notify":
                raise InvalidResponseError(f"message {message_id} is a notify: there is no response to wait for (§5.1)", code="no_response")
            if body.get("status") != "open":
                answer = _response_of(body)
                if require_human and _breaks_require_human(answer):
                    refused = NotAnsweredByHumanError(
                        f"message {message_id} was {answer.resolution} by {answer.actor or 'no attested actor'}, not by a person (require_human)"
                    )
                    setattr(refused, "response", answer)
                    setattr(refused, "actor", answer.actor)
                    raise refused
                return answer
            date = reply.headers.get("date")
            if date is not None:
                since = _since_from(date)
            if held < 1:
                _pause(min(1.0, max(0.0, deadline - time.monotonic())), cancel)

    def cancel(self, message_id: str) -> Json:
        """§8.4; a different terminal is ``AlreadyTerminalError`` with ``existing``."""
        reply = self._t.request("POST", f"/v1/messages/{_quote(message_id)}/cancel", touchpoint="cancel")
        return reply.body if isinstance(reply.body, dict) else {}

    def resolve(
        self,
        message_id: str,
        resolution: str,
        *,
        value: Any = None,
        comment: Optional[str] = None,
        checklist: Optional[Sequence[Any]] = None,
        session: Optional[str] = None,
    ) -> Json:
        """§8.8 as an agent resolver. Not retried on 5xx/network errors: a lost 200 would come back as
        a 409 for our own resolution, so the caller decides (a GET tells the real outcome)."""
        body: Json = {"resolution": resolution}
        if value is not None:
            body["value"] = value
        if comment is not None:
            body["comment"] = comment
        if checklist is not None:
            body["checklist"] = list(checklist)
        reply = self._t.request(
            "POST",
            f"/v1/messages/{_quote(message_id)}/resolve",
            touchpoint="resolve",
            query={"session": session},
            body=self._t.json_body(body),
            retry_5xx=False,
        )
        return reply.body if isinstance(reply.body, dict) else {}

    def ack(self, message_id: str, *, note: Optional[str] = None, resolution_id: Optional[str] = None) -> Json:
        """§14.3 the response-leg ack (idempotent: the first ack wins, a repeat returns it)."""
        body: Json = {}
        if note is not None:
            body["note"] = note
        if resolution_id is not None:
            body["resolution_id"] = resolution_id
        reply = self._t.request("POST", f"/v1/messages/{_quote(message_id)}/ack", touchpoint="ack", body=self._t.json_body(body))
        return reply.body if isinstance(reply.body, dict) else {}


def _quote(part: str) -> str:
    from urllib.parse import quote

    return quote(part, safe="")


def _pause(seconds: float, cancel: Optional[threading.Event]) -> None:
    if seconds <= 0:
        return
    if cancel is None:
        time.sleep(seconds)
    elif cancel.wait(seconds):
        raise Cancelled("the wait was cancelled")


def _since_from(date_header: str) -> Optional[str]:
    """The Hub's ``Date`` minus one second, ISO 8601 (never later than a change we have not seen)."""
    import email.utils

    try:
        at = email.utils.parsedate_to_datetime(date_header)
    except (TypeError, ValueError, IndexError):
        return None
    if at is None:
        return None
    at = at - _dt.timedelta(seconds=1)
    return at.astimezone(_dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _human_only(data: Optional[str]) -> bool:
    if data is None:
        return False
    try:
        sent = json.loads(data)
    except ValueError:
        return False
    request = sent.get("request") if isinstance(sent, dict) else None
    return isinstance(request, dict) and request.get(_env.HUMAN_ONLY_FIELD) is True


def _require_inter_agent(cap: Mapping[str, Any]) -> None:
    inter = cap.get("inter_agent")
    if isinstance(inter, Mapping) and inter.get("enabled") is True:
        return
    raise CapabilityError("this Hub does not offer messages between agents (`inter_agent.enabled`, §8.0)", code="inter_agent_not_offered")


def _check_limits(cap: Mapping[str, Any], context: Any, data: str) -> None:
    size = len(data.encode("utf-8"))
    max_body = cap.get("max_body_bytes")
    if isinstance(max_body, int) and size > max_body:
        raise CapabilityError(f"the envelope is {size} bytes; the Hub's max_body_bytes is {max_body}", code="max_body_bytes")
    parts = context if isinstance(context, list) else []
    max_parts = cap.get("max_context_parts")
    if isinstance(max_parts, int) and len(parts) > max_parts:
        raise CapabilityError(f"context has {len(parts)} parts; the Hub's max_context_parts is {max_parts}", code="max_context_parts")
    max_part = cap.get("max_part_bytes")
    for i, part in enumerate(parts):
        part_size = len(json.dumps(part, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
        if isinstance(max_part, int) and part_size > max_part:
            raise CapabilityError(f"context[{i}] is {part_size} bytes; the Hub's max_part_bytes is {max_part}", code="max_part_bytes")


class Client:
    """The agent's client of one Hub. ``Client.from_env()`` reads ``MA2H_URL``, ``MA2H_API_KEY`` and
    ``MA2H_AGENT_ID``. Thread-safe: handles may be waited on from several threads."""

    def __init__(
        self,
        url: str,
        api_key: str,
        agent_id: str,
        *,
        run_id: Optional[str] = None,
        runtime: str = "other",
        project: Optional[str] = None,
        journal: Optional[SubmitJournal] = None,
        dedup_store: Optional[DedupStore] = None,
        replay_store: Optional[ReplayStore] = None,
        retry: Optional[RetryOptions] = None,
        timeout: float = 30.0,
    ) -> None:
        if not url or not api_key or not agent_id:
            raise TypeError("Client needs url, api_key and agent_id (or MA2H_URL, MA2H_API_KEY, MA2H_AGENT_ID)")
        self._transport = Transport(url, api_key, retry=retry, timeout=timeout)
        self.url = self._transport.base_url
        self.agent_id = agent_id
        self._agent: Json = {"id": agent_id, "run_id": run_id or f"run_{uuid.uuid4()}", "runtime": runtime}
        if project is not None:
            self._agent["project"] = project
        self.journal = journal
        self.dedup_store: DedupStore = dedup_store if dedup_store is not None else MemoryDedupStore()
        self.replay_store = replay_store
        self._capability: Optional[Json] = None
        self._lock = threading.Lock()
        self._session: Optional[str] = None
        self._hub_keys: Any = None
        self.messages = Messages(self)
        self.ask = self.messages.ask
        from .directives import Directives
        from .sessions import Sessions

        self.sessions = Sessions(self)
        self.directives = Directives(self)

    @classmethod
    def from_env(cls, **overrides: Any) -> "Client":
        """From ``MA2H_URL``, ``MA2H_API_KEY`` and ``MA2H_AGENT_ID`` (keyword overrides win)."""
        env = os.environ
        url = overrides.pop("url", None) or env.get("MA2H_URL", "")
        api_key = overrides.pop("api_key", None) or env.get("MA2H_API_KEY", "")
        agent_id = overrides.pop("agent_id", None) or env.get("MA2H_AGENT_ID", "")
        return cls(url, api_key, agent_id, **overrides)

    def __repr__(self) -> str:
        return f"Client(url={self.url!r}, agent_id={self.agent_id!r})"

    # ── discovery ──────────────────────────────────────────────────────────────────────────────

    def capability(self) -> Json:
        """The §8.0 capability document, fetched once and cached (a failed fetch is retried next call)."""
        with self._lock:
            if self._capability is not None:
                return self._capability
        reply = self._transport.request("GET", "/.well-known/ma2h", touchpoint="other", anonymous=True)
        body = reply.body
        if not isinstance(body, dict) or not isinstance(body.get("ma2h_version"), str):
            raise CapabilityError("the Hub's /.well-known/ma2h is not a valid capability document (§8.0)", code="invalid_capability")
        _env.negotiate_version(body["ma2h_version"])
        with self._lock:
            self._capability = body
        return body

    def _context(self) -> _env.EnvelopeContext:
        cap = self.capability()
        return _env.EnvelopeContext(version=_env.negotiate_version(cap["ma2h_version"]), agent=dict(self._agent))

    def hub_keys(self) -> Any:
        """The Hub's published ed25519 keys (``ma2h.push.PublishedKeys``), one cache per client."""
        with self._lock:
            if self._hub_keys is None:
                from .push import PublishedKeys

                self._hub_keys = PublishedKeys(self.url)
            return self._hub_keys

    # ── sessions held ──────────────────────────────────────────────────────────────────────────

    @property
    def session(self) -> Optional[str]:
        """The session this client holds (the last ``sessions.register`` not closed), or None. Its
        submits name it as ``agent.session`` (§4.1)."""
        return self._session

    def address(self, session: Optional[str] = None) -> str:
        """This agent's address, or one of its sessions' (§4): what another agent puts in ``to``."""
        return f"agent:{self.agent_id}" if session is None else f"agent:{self.agent_id}#{session}"

    # ── the short forms ────────────────────────────────────────────────────────────────────────

    def notify(self, title: str, **options: Any) -> MessageHandle:
        """§5.1 (``client.messages.notify``)."""
        return self.messages.notify(title, **options)

    def task(self, title: str, instructions: str, **options: Any) -> MessageHandle:
        """§5.3 (``client.messages.task``)."""
        return self.messages.task(title, instructions, **options)

    def resolve(self, message_id: str, resolution: str, **options: Any) -> Json:
        """§8.8 as an agent resolver (``client.messages.resolve``)."""
        return self.messages.resolve(message_id, resolution, **options)

    def handle(self, message_id: str) -> MessageHandle:
        """A handle on a message id (e.g. one kept from an earlier run)."""
        return self.messages.handle(message_id)

    def act_once(self, response: Mapping[str, Any], action: Callable[[Mapping[str, Any]], T]) -> tuple[bool, Optional[T]]:
        """Runs ``action(response)`` at most once per ``(in_reply_to, resolution_id)`` (§6): the key is
        reserved in the dedup store first and released when ``action`` raises (so a retry acts).
        Returns ``(True, result)`` when it ran, ``(False, None)`` when it was done before — by this
        process, another sharing the store, or an earlier run with a file store."""
        key = response_dedup_key(response)
        if not self.dedup_store.reserve(key):
            return False, None
        try:
            return True, action(response)
        except BaseException:
            self.dedup_store.release(key)
            raise
