"""``ma2h.Client`` against the real Hub: an ask of each kind (confirm, select with an off-menu
edit, input) and a task are submitted, a person resolves each with a personal access token, and
``wait()`` long-polls back the typed §6 Response (``by_human``, ``value``, ``state`` verbatim); a
notify has nothing to wait for; cancel; ``require_human`` refuses an agent's answer; the errors
map to the §8.5 classes under ``Ma2hError`` (a bad key, a message that does not exist, an
idempotency conflict, a resolve of a terminal message, a refused envelope, a wait timeout);
``Client.from_env`` reads MA2H_URL, MA2H_API_KEY and MA2H_AGENT_ID."""

from __future__ import annotations

import threading

import pytest

import ma2h
from ma2h import (
    AlreadyTerminalError,
    Client,
    HubError,
    IdempotencyConflictError,
    InvalidFieldError,
    Ma2hError,
    NotAnsweredByHumanError,
    NotFoundError,
    RetryOptions,
    UnauthenticatedError,
    ValidationError,
    WaitTimeoutError,
)

from .hubkit import Hub


def later(seconds: float, fn, *args) -> threading.Thread:  # type: ignore[no-untyped-def]
    t = threading.Timer(seconds, fn, args)
    t.start()
    return t


def test_confirm_resolved_by_a_person_comes_back_from_wait(hub: Hub, client: Client) -> None:
    handle = client.ask.confirm("Deploy v2 to production?", body="From the Python SDK", state={"step": 3, "é": [1.5, None]})
    assert handle.ack["status"] == "open"
    assert handle.id.startswith("msg_") or handle.id
    # Resolved while the long-poll holds.
    later(0.5, hub.resolve, handle.id, {"resolution": "answered", "value": "approve", "comment": "go"})
    answer = handle.wait(timeout=30)
    assert answer.resolution == "answered"
    assert answer.value == "approve"
    assert answer.approved is True
    assert answer.comment == "go"
    assert answer.by_human is True
    assert answer.actor == "human:alice"
    assert answer["in_reply_to"] == handle.id
    assert answer["resolution_id"]
    assert answer.state == {"step": 3, "é": [1.5, None]}
    # The Response is the JSON the Hub sent: a dict, typed by ma2h.response.
    assert ma2h.parse_response(dict(answer))["resolution"] == "answered"


def test_select_off_menu_and_input_and_task(hub: Hub, client: Client) -> None:
    sel = client.ask.select("Which region?", ["eu", {"value": "us", "label": "United States"}], allow_edit=True)
    hub.resolve(sel.id, {"resolution": "answered", "value": "both, eu first"})
    got = sel.wait(timeout=20)
    assert got.value == "both, eu first"
    assert got["response"]["edited"] is True

    form = client.ask.input(
        "Why did the build fail?",
        {"type": "object", "properties": {"reason": {"type": "string"}}, "required": ["reason"]},
    )
    hub.resolve(form.id, {"resolution": "answered", "value": {"reason": "flaky test"}})
    assert form.wait(timeout=20).value == {"reason": "flaky test"}

    task = client.task("Rotate the staging key", "Rotate it in the vault", checklist=["rotate", "verify"])
    hub.resolve(task.id, {"resolution": "completed", "comment": "done", "checklist": [{"text": "rotate", "done": True}, {"text": "verify", "done": True}]})
    done = task.wait(timeout=20)
    assert done.resolution == "completed"
    assert done.comment == "done"


def test_notify_has_nothing_to_wait_for_and_cancel_ends_an_ask(hub: Hub, client: Client) -> None:
    note = client.notify("Nightly build is green", priority="low")
    assert note.ack["status"] in ("delivered", "open", "accepted")
    with pytest.raises(Ma2hError) as info:
        note.wait(timeout=5)
    assert info.value.code == "no_response"

    ask = client.ask.confirm("Cancel me")
    assert ask.cancel()["status"] == "cancelled"
    answer = ask.wait(timeout=10)
    assert answer.resolution == "cancelled"
    assert answer.by_human is False


def test_require_human_refuses_an_agents_answer(hub: Hub, client: Client) -> None:
    # An ask addressed to a person, answered by agent B acting as resolver on A's account.
    handle = client.ask.confirm("Only a person may answer", require_human=True, allowed_resolvers=[f"agent:{hub.b.id}"])
    b = Client(hub.url, hub.b.key, hub.b.id)
    status = b.resolve(handle.id, "answered", value="approve")
    assert status["status"] == "answered"
    with pytest.raises(NotAnsweredByHumanError) as info:
        handle.wait(timeout=10)
    assert info.value.actor == f"agent:{hub.b.id}"  # type: ignore[attr-defined]
    # Without require_human the same answer is returned, and says who answered.
    answer = client.handle(handle.id).wait(timeout=10)
    assert answer.by_human is False and answer.value == "approve"


def test_errors_map_to_the_section_8_5_classes(hub: Hub, client: Client) -> None:
    bad = Client(hub.url, "ma2h_key_not-a-real-key", hub.a.id, retry=RetryOptions(max_attempts=1))
    with pytest.raises(UnauthenticatedError) as e401:
        bad.ask.confirm("who am I?")
    assert e401.value.status == 401 and e401.value.code == "unauthenticated"
    assert isinstance(e401.value, HubError) and isinstance(e401.value, Ma2hError)
    assert "ma2h_key_not-a-real-key" not in str(e401.value)

    with pytest.raises(NotFoundError):
        client.messages.get("msg_does_not_exist")

    first = client.ask.confirm("Idempotent", idempotency_key="py-idem-conflict")
    with pytest.raises(IdempotencyConflictError) as e409:
        client.messages.submit({**_envelope(client, "Idempotent, but different"), "idempotency_key": "py-idem-conflict"})
    assert e409.value.status == 409

    hub.resolve(first.id, {"resolution": "answered", "value": "deny"})
    with pytest.raises(AlreadyTerminalError) as terminal:
        first.cancel()
    assert terminal.value.existing is not None and terminal.value.existing["status"] == "answered"

    with pytest.raises((ValidationError, InvalidFieldError)) as invalid:
        client.ask.select("No options", [])
    assert invalid.value.status in (400, 422)

    slow = client.ask.confirm("Nobody answers this in time")
    with pytest.raises(WaitTimeoutError) as timeout:
        slow.wait(timeout=1.5)
    assert timeout.value.code == "wait_timeout"


def _envelope(client: Client, title: str) -> dict:  # type: ignore[type-arg]
    from ma2h.envelopes import confirm_envelope

    return confirm_envelope(client._context(), {"title": title})


def test_from_env(hub: Hub, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MA2H_URL", hub.url)
    monkeypatch.setenv("MA2H_API_KEY", hub.a.key)
    monkeypatch.setenv("MA2H_AGENT_ID", hub.a.id)
    c = Client.from_env()
    assert c.url == hub.url and c.agent_id == hub.a.id
    assert hub.a.key not in repr(c)
    handle = c.notify("from the environment")
    assert handle.id
    monkeypatch.delenv("MA2H_API_KEY")
    with pytest.raises(TypeError):
        Client.from_env()
