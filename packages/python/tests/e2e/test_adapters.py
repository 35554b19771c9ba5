"""The framework adapters against the real Hub, each framework replaced by a minimal stand-in of
its documented interface (tests/support/standins: none is installable here). LangGraph: a node's
``ask_human`` interrupt becomes an MA2H ask, a person answers, the graph resumes with the
Response — by pull (``run``) and by a verified push to the ASGI receiver (``push_handler``); the
asks are idempotent per thread and interrupt. OpenAI Agents SDK: a tool that needs approval runs
only after a person approves, a decline rejects it with the reason, and a local timeout denies
and cancels the ask. CrewAI: the human-input tool returns the person's answer. And importing
``ma2h`` imports none of the frameworks."""

from __future__ import annotations

import asyncio
import queue
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from ma2h import Callback, Client, MemoryReplayStore, MemorySubmitJournal, asgi_push_receiver

from .hubkit import HERE, PUSH_SECRET, Hub, wait_for

STANDINS = str(HERE / "support" / "standins")


@pytest.fixture()
def frameworks(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.syspath_prepend(STANDINS)
    yield
    for name in list(sys.modules):
        if name.split(".")[0] in ("langgraph", "agents", "crewai"):
            del sys.modules[name]


class Person:
    """Answers every ask the client submits, from another thread, with ``decide(envelope)``."""

    def __init__(self, hub: Hub, client: Client, decide: Callable[[dict[str, Any]], dict[str, Any] | None]) -> None:
        self.hub, self.decide = hub, decide
        self.asked: list[dict[str, Any]] = []
        self.ids: list[str] = []
        self._queue: queue.Queue[tuple[str, dict[str, Any]] | None] = queue.Queue()
        submit = client.messages.submit

        def recording(envelope: Any) -> Any:
            handle = submit(envelope)
            self.asked.append(dict(envelope))
            self.ids.append(handle.id)
            self._queue.put((handle.id, dict(envelope)))
            return handle

        client.messages.submit = recording  # type: ignore[method-assign]
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            message_id, envelope = item
            body = self.decide(envelope)
            if body is not None:
                self.hub.resolve(message_id, body)

    def stop(self) -> None:
        self._queue.put(None)
        self._thread.join(5)


def test_importing_ma2h_imports_no_framework() -> None:
    code = "import sys, ma2h, ma2h.adapters.langgraph, ma2h.adapters.openai_agents, ma2h.adapters.crewai; print(sorted(m for m in sys.modules if m.split('.')[0] in ('langgraph','agents','crewai')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={"PYTHONPATH": ":".join(sys.path)}, timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_langgraph_interrupt_pull(hub: Hub, client: Client, frameworks: None) -> None:
    from langgraph.mini import MiniGraph

    from ma2h.adapters.langgraph import LangGraphAsks, approved, ask_human

    def plan(state: dict[str, Any]) -> dict[str, Any]:
        return {"plan": f"deploy {state['version']}"}

    def review(state: dict[str, Any]) -> dict[str, Any]:
        answer = ask_human(f"Approve: {state['plan']}?", expires_in=600, default_on_expire="deny")
        return {"approved": approved(answer), "by": answer["response"]["actor"]}

    def region(state: dict[str, Any]) -> dict[str, Any]:
        answer = ask_human("Which region first?", mode="select", options=["eu", "us"])
        return {"region": answer["response"]["value"]}

    graph = MiniGraph([("plan", plan), ("review", review), ("region", region)])
    person = Person(hub, client, lambda e: {"resolution": "answered", "value": "approve" if e["request"]["mode"] == "confirm" else "eu"})
    try:
        asks = LangGraphAsks(client)
        out = asks.run(graph, {"version": "v2"}, {"configurable": {"thread_id": "t-pull"}}, timeout=30)
    finally:
        person.stop()
    assert out == {"version": "v2", "plan": "deploy v2", "approved": True, "by": "human:alice", "region": "eu"}
    assert [a["title"] for a in person.asked] == ["Approve: deploy v2?", "Which region first?"]
    assert person.asked[0]["request"]["default_on_expire"] == "deny"
    assert person.asked[0]["idempotency_key"] == "langgraph:t-pull:review:0"
    # With a journal (a FileSubmitJournal survives a restart), submitting the same interrupt again
    # gives the same message, not a new ask.
    journaled = LangGraphAsks(Client(hub.url, hub.a.key, hub.a.id, journal=MemorySubmitJournal()))
    first = graph.invoke({"version": "v3"}, {"configurable": {"thread_id": "t-again"}})
    h1 = journaled.submit(first, {"configurable": {"thread_id": "t-again"}})
    h2 = journaled.submit(first, {"configurable": {"thread_id": "t-again"}})
    assert [h.id for h in h1.values()] == [h.id for h in h2.values()]
    assert [h.replayed for h in h2.values()] == [True]


def test_langgraph_resumed_by_a_verified_push(hub: Hub, client: Client, frameworks: None) -> None:
    from langgraph.mini import MiniGraph

    from ma2h.adapters.langgraph import LangGraphAsks, approved, ask_human

    done: list[dict[str, Any]] = []

    def review(state: dict[str, Any]) -> dict[str, Any]:
        return {"approved": approved(ask_human("Ship the release?"))}

    def finish(state: dict[str, Any]) -> dict[str, Any]:
        done.append(state)
        return {}

    graph = MiniGraph([("review", review), ("finish", finish)])
    asks = LangGraphAsks(client, state_key="k" * 32)
    url = hub.push.mount(
        "/push/langgraph",
        asgi_push_receiver(asks.push_handler(graph), callback_url=hub.push.origin + "/push/langgraph", hmac_secret=PUSH_SECRET, replay_store=MemoryReplayStore()),
    )
    config = {"configurable": {"thread_id": "t-push"}}
    paused = graph.invoke({"release": "r1"}, config)
    assert "__interrupt__" in paused
    [handle] = asks.submit(paused, config, callback=Callback(url, secret_ref="cb")).values()
    sent_state = client.messages.get(handle.id)
    assert sent_state is not None
    hub.resolve(handle.id, {"resolution": "answered", "value": "approve"})
    wait_for(lambda: done, timeout=20, what="the graph resumed by the push")
    assert done[0]["approved"] is True and done[0]["release"] == "r1"


def test_openai_agents_tool_approvals(hub: Hub, client: Client, frameworks: None) -> None:
    from agents import Agent, Runner, function_tool

    from ma2h.adapters.openai_agents import ToolApprovals

    ran: list[str] = []

    @function_tool(needs_approval=True)
    def cancel_order(order_id: int) -> str:
        ran.append(f"cancel {order_id}")
        return f"cancelled {order_id}"

    @function_tool(needs_approval=True)
    def refund(order_id: int) -> str:
        ran.append(f"refund {order_id}")
        return f"refunded {order_id}"

    @function_tool()
    def lookup(order_id: int) -> str:
        return f"order {order_id}: shipped"

    agent = Agent("Support", [cancel_order, refund, lookup], script=[("lookup", {"order_id": 42}), ("cancel_order", {"order_id": 42}), ("refund", {"order_id": 42})])

    def decide(envelope: dict[str, Any]) -> dict[str, Any]:
        if "cancel_order" in envelope["title"]:
            return {"resolution": "answered", "value": "approve"}
        return {"resolution": "declined", "comment": "refunds need finance"}

    person = Person(hub, client, decide)
    try:
        result = asyncio.run(ToolApprovals(client, expires_in=600).run(agent, "Cancel order 42 and refund it"))
    finally:
        person.stop()
    assert ran == ["cancel 42"]
    assert "cancelled 42" in result.final_output
    assert "refunds need finance" in result.final_output
    asked = {a["title"]: a for a in person.asked}
    assert set(asked) == {"Allow cancel_order?", "Allow refund?"}
    assert asked["Allow refund?"]["request"]["default_on_expire"] == "deny"
    assert asked["Allow refund?"]["request"]["x-ma2h-human-only"] is True
    assert asked["Allow refund?"]["context"][0]["data"] == {"tool": "refund", "arguments": {"order_id": 42}}

    # Nobody answers within the local timeout: the call is denied and the ask cancelled.
    ran.clear()
    slow = Agent("Slow", [cancel_order], script=[("cancel_order", {"order_id": 7})])
    quiet = Person(hub, client, lambda e: None)
    try:
        result = asyncio.run(ToolApprovals(client, timeout=1.5).run(slow, "Cancel order 7"))
    finally:
        quiet.stop()
    assert ran == [] and "local timeout" in result.final_output
    view = client.messages.get(quiet.ids[-1]) or {}
    assert view["status"] == "cancelled"


def test_crewai_human_input_tool(hub: Hub, client: Client, frameworks: None) -> None:
    from ma2h.adapters.crewai import human_input_tool

    tool = human_input_tool(client, timeout=30)
    assert tool.name == "Ask a person" and "person" in tool.description
    person = Person(hub, client, lambda e: {"resolution": "answered", "value": {"answer": "use the blue-green path"}})
    try:
        assert tool.run("How should we roll out v2?") == "use the blue-green path"
    finally:
        person.stop()
    assert person.asked[0]["request"]["mode"] == "input"
    decliner = Person(hub, client, lambda e: {"resolution": "declined", "comment": "ask the SRE"})
    try:
        assert tool.run("Which database?") == "The person declined to answer: ask the SRE"
    finally:
        decliner.stop()
