"""The OpenAI Agents SDK: tool approvals asked of a person through MA2H.

A tool marked ``needs_approval`` pauses the run; its ``result.interruptions`` hold
``ToolApprovalItem``s. :class:`ToolApprovals` asks a person to approve each one (an MA2H confirm
with the tool's name and arguments), then approves or rejects it on the run's ``RunState``:

    approvals = ToolApprovals(client)                    # ma2h.Client or ma2h.AsyncClient
    result = await approvals.run(agent, "Cancel order 42")

Deny is the default everywhere it matters: the ask expires after ``expires_in`` seconds with
``default_on_expire="deny"`` (pass "approve" to choose otherwise); a decline, a cancelled ask, any
answer but ``approve`` and a local ``timeout`` all reject the call (the ask is cancelled on a local
timeout). ``require_human=True`` (the default) refuses an answer a standing rule or an agent gave.
Asks are idempotent per tool call id, so resuming a stored ``RunState`` after a restart does not
ask again.

Written for openai-agents 0.24 (``needs_approval``, ``RunResult.interruptions``, ``to_state()``,
``RunState.approve/reject``, ``Runner.run(agent, state)``); ``agents`` is imported only by ``run``.
"""

from __future__ import annotations

import asyncio
import importlib
import json
from typing import Any, Optional, Union

from ..aio import AsyncClient
from ..client import Answer, Client
from ..errors import Ma2hError, NotAnsweredByHumanError, WaitTimeoutError
from ._common import sync_client

__all__ = ["Decision", "ToolApprovals"]


class Decision:
    """One approval outcome: ``approved``, why (``reason``), and the Response when there was one."""

    def __init__(self, approved: bool, reason: str, answer: Optional[Answer] = None) -> None:
        self.approved = approved
        self.reason = reason
        self.answer = answer

    def __repr__(self) -> str:
        return f"Decision(approved={self.approved}, reason={self.reason!r})"


def _call_id(item: Any) -> Optional[str]:
    raw = getattr(item, "raw_item", None)
    for source in (item, raw):
        for name in ("call_id", "id"):
            value = getattr(source, name, None) if source is not None else None
            if value is None and isinstance(source, dict):
                value = source.get(name)
            if isinstance(value, str) and value:
                return value
    return None


def _tool_name(item: Any) -> str:
    for name in ("name", "tool_name"):
        value = getattr(item, name, None)
        if isinstance(value, str) and value:
            return value
    return "a tool"


class ToolApprovals:
    """Asks a person before a tool that needs approval runs."""

    def __init__(
        self,
        client: Union[Client, AsyncClient],
        *,
        expires_in: float = 3600,
        default_on_expire: str = "deny",
        timeout: Optional[float] = None,
        require_human: bool = True,
        priority: str = "high",
        **ask_options: Any,
    ) -> None:
        if default_on_expire not in ("approve", "deny"):
            raise ValueError('default_on_expire is "approve" or "deny"')
        self.client = sync_client(client)
        self.expires_in = expires_in
        self.default_on_expire = default_on_expire
        self.timeout = timeout
        self.require_human = require_human
        self.priority = priority
        self.ask_options = ask_options

    def ask(self, item: Any) -> Decision:
        """Asks about one ``ToolApprovalItem`` and waits (blocking) for the decision."""
        name = _tool_name(item)
        arguments = getattr(item, "arguments", None)
        agent = getattr(getattr(item, "agent", None), "name", None)
        try:
            parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
        except ValueError:
            parsed = arguments
        body = f"The agent{f' {agent}' if agent else ''} wants to run `{name}`."
        context = [{"kind": "data", "data": {"tool": name, "arguments": parsed if isinstance(parsed, dict) else {"raw": arguments}}}]
        call_id = _call_id(item)
        options: dict[str, Any] = {
            "body": body,
            "context": context,
            "priority": self.priority,
            "expires_in": self.expires_in,
            "default_on_expire": self.default_on_expire,
            "require_human": self.require_human,
            **self.ask_options,
        }
        if call_id is not None:
            options.setdefault("idempotency_key", f"openai-agents:{call_id}")
        handle = self.client.ask.confirm(f"Allow {name}?", **options)
        try:
            answer = handle.wait(self.timeout)
        except WaitTimeoutError:
            try:
                handle.cancel()
            except Ma2hError:
                pass
            return Decision(False, "no answer before the local timeout")
        except NotAnsweredByHumanError:
            return Decision(False, "answered by something other than a person")
        if answer.value == "approve" and answer.resolution in ("answered", "expired"):
            return Decision(True, "approved" if answer.resolution == "answered" else "approved by the expiry default", answer)
        reason = {
            "declined": "declined",
            "cancelled": "the ask was cancelled",
            "expired": "no answer before it expired",
        }.get(answer.resolution, f"answered {answer.value!r}")
        if answer.comment:
            reason += f": {answer.comment}"
        return Decision(False, reason, answer)

    async def decide(self, result: Any) -> Any:
        """Asks about every pending approval of ``result`` (concurrently) and returns its
        ``RunState`` with each approved or rejected, ready for ``Runner.run(agent, state)``."""
        state = result.to_state()
        items = list(result.interruptions or [])
        decisions = await asyncio.gather(*(asyncio.to_thread(self.ask, item) for item in items))
        for item, decision in zip(items, decisions):
            if decision.approved:
                state.approve(item)
            else:
                message = f"A person did not approve this call ({decision.reason})."
                try:
                    state.reject(item, rejection_message=message)
                except TypeError:  # an SDK without per-call rejection messages
                    state.reject(item)
        return state

    async def run(self, agent: Any, run_input: Any, **run_options: Any) -> Any:
        """``Runner.run`` until no approval is pending, asking a person about each one."""
        runner = importlib.import_module("agents").Runner
        result = await runner.run(agent, run_input, **run_options)
        while result.interruptions:
            state = await self.decide(result)
            result = await runner.run(agent, state, **run_options)
        return result
