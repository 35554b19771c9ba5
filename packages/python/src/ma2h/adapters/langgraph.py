"""LangGraph: a human step as an MA2H ask.

Inside a node, :func:`ask_human` calls LangGraph's ``interrupt()`` with an MA2H ask description;
the graph pauses (its checkpointer keeps the thread). :class:`LangGraphAsks` turns each pending
MA2H interrupt into an ask — idempotent per ``(thread_id, interrupt id)``, so a restarted process
does not ask twice — and resumes the graph with ``Command(resume=…)`` carrying the §6 Response:

- pull: ``LangGraphAsks(client).run(graph, input, config)`` invokes, asks, waits, resumes, until
  the graph finishes;
- push: ``asks.submit(result, config, callback=…)``, and ``asks.push_handler(graph)`` as the
  ``on_response`` of ``ma2h.asgi_push_receiver``: the verified push resumes the right thread.

The node receives the Response as a plain dict (JSON, so any checkpointer can store it):
``ask_human(...)["resolution"]``, ``["response"]["value"]``; :func:`approved` reads a confirm.

Written for LangGraph 1.0 (``langgraph.types.interrupt``, ``Command(resume=…)``, the
``__interrupt__`` key of ``invoke``'s output, ``Interrupt.id``); LangGraph is imported only when
one of these functions runs.
"""

from __future__ import annotations

import importlib

from collections.abc import Mapping
from typing import Any, Optional, Union

from ..aio import AsyncClient
from ..client import Answer, Client, MessageHandle
from ..state import open_state, seal_state
from ._common import submit_ask, sync_client

__all__ = ["ASK_KEY", "LangGraphAsks", "approved", "ask_human", "ask_request"]

#: The key of an interrupt payload that is an MA2H ask.
ASK_KEY = "ma2h_ask"


def ask_request(title: str, *, mode: str = "confirm", **options: Any) -> dict[str, Any]:
    """The interrupt payload describing an MA2H ask (JSON): ``mode`` confirm/select/input, the
    title, and ask options (``options`` for select, ``schema`` for input, ``body``,
    ``expires_in`` (seconds), ``default_on_expire``, ``require_human``, ``priority``…)."""
    return {ASK_KEY: {"mode": mode, "title": title, **options}}


def ask_human(title: str, *, mode: str = "confirm", **options: Any) -> dict[str, Any]:
    """Call inside a LangGraph node: pauses the graph with an MA2H ask and returns the §6 Response
    (a dict) it is resumed with."""
    value = importlib.import_module("langgraph.types").interrupt(ask_request(title, mode=mode, **options))
    return dict(value) if isinstance(value, Mapping) else value  # type: ignore[no-any-return]


def approved(response: Mapping[str, Any]) -> bool:
    """A confirm answered ``approve`` — by a person, or as the expiry default the agent chose."""
    detail = response.get("response") or {}
    return response.get("resolution") in ("answered", "expired") and detail.get("value") == "approve"


def _interrupts(result: Any) -> list[Any]:
    if isinstance(result, Mapping):
        return list(result.get("__interrupt__") or [])
    return list(getattr(result, "interrupts", None) or [])


def _interrupt_id(item: Any, index: int) -> str:
    for name in ("id", "interrupt_id"):
        value = getattr(item, name, None)
        if isinstance(value, str) and value:
            return value
    return str(index)


def _thread_id(config: Mapping[str, Any]) -> str:
    configurable = config.get("configurable") or {}
    thread = configurable.get("thread_id")
    if thread is None:
        raise ValueError('LangGraph interrupts need a thread: config={"configurable": {"thread_id": ...}}')
    return str(thread)


class LangGraphAsks:
    """Asks for a graph's MA2H interrupts and resumes it with the answers.

    ``state_key`` (≥ 32 bytes) seals the thread/interrupt routing in the ask's ``state`` (§9.3), so
    a push is routed only to a thread this agent itself named."""

    def __init__(self, client: Union[Client, AsyncClient], *, state_key: Optional[Union[str, bytes]] = None, **ask_options: Any) -> None:
        self.client = sync_client(client)
        self.state_key = state_key
        self.ask_options = ask_options

    def pending(self, result: Any) -> list[tuple[str, dict[str, Any]]]:
        """The graph's pending MA2H interrupts: ``(interrupt id, ask spec)`` pairs."""
        out = []
        for index, item in enumerate(_interrupts(result)):
            value = getattr(item, "value", None)
            if isinstance(value, Mapping) and isinstance(value.get(ASK_KEY), Mapping):
                out.append((_interrupt_id(item, index), dict(value[ASK_KEY])))
        return out

    def _route(self, thread_id: str, interrupt_id: str) -> dict[str, Any]:
        route = {"thread_id": thread_id, "interrupt_id": interrupt_id}
        return {"langgraph": seal_state(route, self.state_key) if self.state_key is not None else route}

    def route_of(self, response: Mapping[str, Any]) -> Optional[dict[str, str]]:
        """The ``{thread_id, interrupt_id}`` an answer belongs to (None when it is not ours)."""
        state = response.get("state") or {}
        route = state.get("langgraph") if isinstance(state, Mapping) else None
        if route is None:
            return None
        if self.state_key is not None:
            route = open_state(route, self.state_key)
        if not isinstance(route, Mapping) or not isinstance(route.get("thread_id"), str):
            return None
        return {"thread_id": route["thread_id"], "interrupt_id": str(route.get("interrupt_id"))}

    def submit(self, result: Any, config: Mapping[str, Any], **ask_options: Any) -> dict[str, MessageHandle]:
        """Submits one ask per pending MA2H interrupt (idempotency key ``langgraph:<thread>:<interrupt>``:
        submitting again after a restart gives the same message). Returns interrupt id → handle."""
        thread_id = _thread_id(config)
        handles: dict[str, MessageHandle] = {}
        for interrupt_id, spec in self.pending(result):
            options = {**self.ask_options, **spec, **ask_options}
            options.setdefault("idempotency_key", f"langgraph:{thread_id}:{interrupt_id}")
            options["state"] = {**(options.get("state") or {}), **self._route(thread_id, interrupt_id)}
            handles[interrupt_id] = submit_ask(self.client, options)
        return handles

    @staticmethod
    def command(answers: Mapping[str, Mapping[str, Any]]) -> Any:
        """``Command(resume=…)`` carrying each answer as a plain dict (keyed by interrupt id when there
        are several)."""
        command = importlib.import_module("langgraph.types").Command
        plain = {k: dict(v) for k, v in answers.items()}
        if len(plain) == 1:
            return command(resume=next(iter(plain.values())))
        return command(resume=plain)

    def run(self, graph: Any, graph_input: Any, config: Mapping[str, Any], *, timeout: Optional[float] = None) -> Any:
        """Pull: invoke; while the graph waits on MA2H interrupts, ask, wait for the answers and
        resume it. Returns the final output. Interrupts that are not MA2H asks are left to the caller
        (the output with ``__interrupt__`` is returned)."""
        result = graph.invoke(graph_input, config)
        while True:
            handles = self.submit(result, config)
            if not handles:
                return result
            answers: dict[str, Answer] = {iid: h.wait(timeout) for iid, h in handles.items()}
            result = graph.invoke(self.command(answers), config)

    def push_handler(self, graph: Any) -> Any:
        """An ``on_response`` for ``asgi_push_receiver``/``wsgi_push_receiver``: a verified push
        resumes the thread it names (a push that is not one of these asks is ignored)."""

        def on_response(response: Mapping[str, Any]) -> None:
            route = self.route_of(response)
            if route is None:
                return
            config = {"configurable": {"thread_id": route["thread_id"]}}
            graph.invoke(self.command({route["interrupt_id"]: response}), config)

        return on_response
