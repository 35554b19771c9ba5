"""A minimal compiled graph for the stand-in (tests only): nodes run in order over a dict state,
a checkpointer keeps each thread's state and position, ``invoke`` returns the state and, when a
node interrupted, ``__interrupt__``."""

from __future__ import annotations

from typing import Any, Callable

from . import types


class MiniGraph:
    def __init__(self, nodes: list[tuple[str, Callable[[dict[str, Any]], dict[str, Any]]]]) -> None:
        self.nodes = nodes
        self.checkpoints: dict[str, dict[str, Any]] = {}
        self.invocations = 0

    def invoke(self, graph_input: Any, config: dict[str, Any]) -> dict[str, Any]:
        self.invocations += 1
        thread = config["configurable"]["thread_id"]
        if isinstance(graph_input, types.Command):
            saved = self.checkpoints[thread]
            pending: list[str] = saved["pending"]
            resume = graph_input.resume
            if isinstance(resume, dict) and set(resume) <= set(pending) and resume:
                answers = dict(resume)
            else:
                answers = {pending[0]: resume}
            state, position, resumed = saved["state"], saved["position"], {**saved["resumed"], **answers}
        else:
            state, position, resumed = dict(graph_input), 0, {}
        while position < len(self.nodes):
            name, fn = self.nodes[position]
            types._local.ctx = {"node": name, "count": 0, "resume": resumed}
            try:
                update = fn(state)
            except types.GraphInterrupt as paused:
                self.checkpoints[thread] = {
                    "state": state,
                    "position": position,
                    "pending": [paused.interrupt.id],
                    "resumed": resumed,
                }
                return {**state, "__interrupt__": [paused.interrupt]}
            state = {**state, **(update or {})}
            position += 1
            resumed = {}
        self.checkpoints.pop(thread, None)
        return state
