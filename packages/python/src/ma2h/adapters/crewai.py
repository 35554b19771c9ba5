"""CrewAI: a human-input tool backed by an MA2H ask.

    from ma2h.adapters.crewai import human_input_tool
    ask_a_person = human_input_tool(client, expires_in=3600)
    agent = Agent(role=..., goal=..., backstory=..., tools=[ask_a_person])

The agent calls the tool with a question; a person answers it in the MA2H inbox (a one-field
form); the tool returns the answer as text. A decline, an expiry or a local timeout is returned as
a plain sentence the agent can reason about (never an invented answer).

Written for CrewAI 1.15 (``crewai.tools.tool``); CrewAI is imported only by ``human_input_tool``.
"""

from __future__ import annotations

import importlib

from typing import Any, Optional, Union

from ..aio import AsyncClient
from ..client import Client
from ..errors import Ma2hError, WaitTimeoutError
from ._common import sync_client

__all__ = ["ANSWER_SCHEMA", "ask_person", "human_input_tool"]

#: The one-field form the person fills in.
ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string", "title": "Your answer"}},
    "required": ["answer"],
}

DESCRIPTION = (
    "Ask a person a question and wait for their written answer. Use it when you need a decision, an "
    "approval or information only a person has. Input: the question, self-contained."
)


def ask_person(client: Union[Client, AsyncClient], question: str, *, timeout: Optional[float] = None, **ask_options: Any) -> str:
    """Asks ``question`` as an MA2H input ask and returns the person's answer as text."""
    c = sync_client(client)
    options = {"expires_in": 3600, "priority": "normal", **ask_options}
    title = question if len(question) <= 200 else question[:197] + "…"
    if title != question:
        options.setdefault("body", question)
    handle = c.ask.input(title, ANSWER_SCHEMA, **options)
    try:
        answer = handle.wait(timeout)
    except WaitTimeoutError:
        try:
            handle.cancel()
        except Ma2hError:
            pass
        return "No person answered in time; continue without their input or stop."
    if answer.resolution == "answered" and isinstance(answer.value, dict):
        return str(answer.value.get("answer", ""))
    if answer.resolution == "expired" and isinstance(answer.value, dict):
        return str(answer.value.get("answer", ""))  # the default the agent chose
    if answer.resolution == "declined":
        return "The person declined to answer" + (f": {answer.comment}" if answer.comment else ".")
    if answer.resolution == "expired":
        return "No person answered before the question expired."
    return f"The question was {answer.resolution}."


def human_input_tool(client: Union[Client, AsyncClient], *, name: str = "Ask a person", timeout: Optional[float] = None, **ask_options: Any) -> Any:
    """A CrewAI tool (``crewai.tools.tool``) that asks a person through MA2H."""
    tool = importlib.import_module("crewai.tools").tool
    def ask_a_person(question: str) -> str:
        return ask_person(client, question, timeout=timeout, **ask_options)

    ask_a_person.__doc__ = DESCRIPTION
    return tool(name)(ask_a_person)
