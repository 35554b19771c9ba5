"""Stand-in of ``crewai.tools.tool``: ``@tool("Name")`` over a function makes a tool whose
description is the function's docstring and whose ``run`` calls it."""

from __future__ import annotations

from typing import Any, Callable


class Tool:
    def __init__(self, name: str, func: Callable[..., str]) -> None:
        if not func.__doc__:
            raise ValueError("Function must have a docstring")
        self.name = name
        self.description = func.__doc__
        self.func = func

    def run(self, *args: Any, **kwargs: Any) -> str:
        return self.func(*args, **kwargs)


def tool(name: str) -> Callable[[Callable[..., str]], Tool]:
    return lambda func: Tool(name, func)
