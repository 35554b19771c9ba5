"""Sessions, the inter-agent leg and directives against the real Hub: A and B register sessions;
A asks B (an addressed ask, the ack's ``destination``); B's verified session drain hands out the
``message`` entry under an explicit ``accept_from`` (§13.4), and refuses it under a policy that
does not list A; B resolves as its session; A's drain hands out the verified ``response`` entry;
both ack by ack key; a redelivery is not handed out twice; closing a session releases it. A
directive a person authors is drained, verified (§9.7), acted on once and acked with the handler's
note (which the person reads); one from a sender outside ``directives_from`` is left un-acked."""

from __future__ import annotations

import threading
import time

import pytest

from ma2h import Client, MemoryDedupStore, RetryOptions, SenderNotAcceptedError

from .hubkit import Hub, wait_for


def sdk(hub: Hub, which: str) -> Client:
    agent = hub.a if which == "a" else hub.b
    return Client(hub.url, agent.key, agent.id, retry=RetryOptions(base_delay=0.02), dedup_store=MemoryDedupStore())


def test_an_addressed_ask_between_two_python_agents(hub: Hub) -> None:
    a, b = sdk(hub, "a"), sdk(hub, "b")
    sa = a.sessions.register(label="coordinator run", ttl_seconds=600)
    sb = b.sessions.register(label="worker run")
    assert sa["id"].startswith("sess_") and a.session == sa["id"]

    handle = a.ask.confirm("Run the migration?", to=b.address(), state={"step": 4})
    assert handle.destination is not None and handle.destination.get("state") in ("online", "offline", "unknown")

    rejected: list[Exception] = []
    assert b.sessions.drain(sb["id"], accept_from=[], on_rejected=lambda e, raw: rejected.append(e)) == []
    assert isinstance(rejected[0], SenderNotAcceptedError)

    def drained() -> list:  # type: ignore[type-arg]
        return b.sessions.drain(sb["id"], accept_from=[a.address()])

    [entry] = wait_for(drained, timeout=15, every=0.5, what="the message entry after the visibility window")
    assert entry.kind == "message"
    assert entry.message["id"] == handle.id
    assert entry.message["from"] == f"agent:{hub.a.id}#{sa['id']}"
    assert "state" not in entry.message  # never handed to the addressee
    assert entry.ack_key == handle.id

    resolved = b.resolve(handle.id, "answered", value="approve", session=sb["id"])
    assert resolved["status"] == "answered"
    assert b.sessions.ack(sb["id"], [entry]) == {"acked": 1}

    [answer] = wait_for(lambda: a.sessions.drain(sa["id"], accept_from=[]), timeout=15, every=0.3, what="the response entry")
    assert answer.kind == "response"
    assert answer.response["in_reply_to"] == handle.id
    assert answer.response["state"] == {"step": 4}
    assert answer.response["response"]["actor"] == f"agent:{hub.b.id}#{sb['id']}"
    assert answer.ack_key == answer.response["resolution_id"]
    assert a.sessions.ack(sa["id"], [answer.ack_key]) == {"acked": 1}
    # Pulled as well: the same answer through wait(), acted on once through the shared dedup store.
    pulled = handle.wait(timeout=10)
    assert pulled.value == "approve"
    assert a.act_once(pulled, lambda r: "again") == (False, None)

    closed = a.sessions.close(sa["id"])
    assert closed["id"] == sa["id"] and a.session is None
    b.sessions.close(sb["id"])


def test_directives_drain_verify_act_ack(hub: Hub) -> None:
    a = sdk(hub, "a")
    status, body = hub.as_person("POST", "/v1/directives", {"to": f"agent:{hub.a.id}", "title": "Pause deploys", "body": "From the on-call human."})
    assert status == 201, body
    directive_id = body["id"]

    seen: list[dict] = []  # type: ignore[type-arg]
    stop = threading.Event()

    def handler(d: dict) -> str:  # type: ignore[type-arg]
        seen.append(d)
        return "on it — pausing now"

    listener = threading.Thread(target=a.directives.listen, args=(handler,), kwargs={"stop": stop, "wait": 2})
    listener.start()
    try:
        wait_for(
            lambda: hub.as_person("GET", f"/v1/directives/{directive_id}")[1].get("status") == "acknowledged",
            timeout=20,
            what="the acknowledged directive",
        )
        view = hub.as_person("GET", f"/v1/directives/{directive_id}")[1]
        assert view["delivery"]["note"] == "on it — pausing now"
        time.sleep(2.5)  # past the visibility window: an un-acked directive would have come back
    finally:
        stop.set()
        listener.join(10)
    assert not listener.is_alive()
    assert [d["id"] for d in seen] == [directive_id]
    assert seen[0]["from"] == "human:alice" and seen[0]["title"] == "Pause deploys"

    # A sender outside directives_from: reported, never handed over, never acked.
    status, body = hub.as_person("POST", "/v1/directives", {"to": f"agent:{hub.a.id}", "title": "Not from the list"})
    assert status == 201
    rejected: list[Exception] = []
    handled = a.directives.run_once(
        handler, directives_from=["human:bob"], on_rejected=lambda e, raw: rejected.append(e), wait=5
    )
    assert handled == 0 and isinstance(rejected[0], SenderNotAcceptedError)
    assert hub.as_person("GET", f"/v1/directives/{body['id']}")[1]["status"] != "acknowledged"
    with pytest.raises(TypeError):
        a.directives.drain(directives_from=["bob"])
