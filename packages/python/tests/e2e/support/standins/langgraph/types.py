"""Stand-in of ``langgraph.types``: ``interrupt`` pauses the running node (raising inside it) and,
when the graph is invoked again with ``Command(resume=…)``, the re-executed node's ``interrupt``
call returns the resume value — the documented semantics (a node re-runs from its start)."""

from __future__ import annotations

import threading
from typing import Any

_local = threading.local()


class Interrupt:
    def __init__(self, value: Any, id: str) -> None:
        self.value = value
        self.id = id


class Command:
    def __init__(self, *, resume: Any = None) -> None:
        self.resume = resume


class GraphInterrupt(Exception):
    def __init__(self, interrupt: Interrupt) -> None:
        super().__init__("interrupted")
        self.interrupt = interrupt


def interrupt(value: Any) -> Any:
    ctx = _local.ctx
    index = ctx["count"]
    ctx["count"] += 1
    iid = f"{ctx['node']}:{index}"
    if iid in ctx["resume"]:
        return ctx["resume"][iid]
    raise GraphInterrupt(Interrupt(value, iid))
