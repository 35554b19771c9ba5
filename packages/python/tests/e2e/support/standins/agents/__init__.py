"""Stand-in of the OpenAI Agents SDK (tests only): see ../README.md. A scripted "model" calls the
agent's tools with fixed arguments; a tool with ``needs_approval`` pauses the run with a
``ToolApprovalItem`` until the run's ``RunState`` approves or rejects it."""

from __future__ import annotations

import json
from typing import Any, Callable


class FunctionTool:
    def __init__(self, fn: Callable[..., str], needs_approval: bool) -> None:
        self.name = fn.__name__
        self.fn = fn
        self.needs_approval = needs_approval


def function_tool(*, needs_approval: bool = False) -> Callable[[Callable[..., str]], FunctionTool]:
    return lambda fn: FunctionTool(fn, needs_approval)


class Agent:
    def __init__(self, name: str, tools: list[FunctionTool], script: list[tuple[str, dict[str, Any]]]) -> None:
        self.name = name
        self.tools = {t.name: t for t in tools}
        self.script = script  # the calls the stand-in "model" makes


class _Raw:
    def __init__(self, call_id: str) -> None:
        self.call_id = call_id


class ToolApprovalItem:
    def __init__(self, agent: Agent, name: str, arguments: str, call_id: str) -> None:
        self.agent = agent
        self.name = name
        self.arguments = arguments
        self.raw_item = _Raw(call_id)


class RunState:
    def __init__(self, agent: Agent, calls: list[tuple[str, str, dict[str, Any]]], outputs: list[str]) -> None:
        self.agent = agent
        self.calls = calls
        self.outputs = outputs
        self.decisions: dict[str, tuple[bool, str | None]] = {}

    def approve(self, item: ToolApprovalItem, always_approve: bool = False) -> None:
        self.decisions[item.raw_item.call_id] = (True, None)

    def reject(self, item: ToolApprovalItem, always_reject: bool = False, rejection_message: str | None = None) -> None:
        self.decisions[item.raw_item.call_id] = (False, rejection_message)


class RunResult:
    def __init__(self, state: RunState, interruptions: list[ToolApprovalItem], final_output: str | None) -> None:
        self._state = state
        self.interruptions = interruptions
        self.final_output = final_output

    def to_state(self) -> RunState:
        return self._state


class Runner:
    runs = 0

    @staticmethod
    async def run(agent: Agent, run_input: Any) -> RunResult:
        Runner.runs += 1
        if isinstance(run_input, RunState):
            state = run_input
        else:
            calls = [(f"call_{agent.name}_{i}", name, args) for i, (name, args) in enumerate(agent.script)]
            state = RunState(agent, calls, [])
        pending: list[ToolApprovalItem] = []
        remaining = []
        for call_id, name, args in state.calls:
            tool = agent.tools[name]
            decision = state.decisions.get(call_id)
            if tool.needs_approval and decision is None:
                pending.append(ToolApprovalItem(agent, name, json.dumps(args), call_id))
                remaining.append((call_id, name, args))
            elif decision is not None and not decision[0]:
                state.outputs.append(decision[1] or "Tool call rejected.")
            else:
                state.outputs.append(tool.fn(**args))
        state.calls = remaining
        if pending:
            return RunResult(state, pending, None)
        return RunResult(state, [], " | ".join(state.outputs))
