"""An OpenAI Agents SDK agent whose `cancel_order` tool needs approval: a person approves or
declines each call in the MA2H inbox before it runs. Denied when nobody answers within 30 minutes.

Written for openai-agents 0.24 (`pip install "openai-agents>=0.24"`, which needs OPENAI_API_KEY)
and the ma2h package (its wheel):

    MA2H_URL=… MA2H_API_KEY=… MA2H_AGENT_ID=… OPENAI_API_KEY=… python openai_agents_approval.py
"""

import asyncio

from agents import Agent, function_tool

from ma2h import AsyncClient
from ma2h.adapters.openai_agents import ToolApprovals


@function_tool(needs_approval=True)
def cancel_order(order_id: int) -> str:
    """Cancel a customer's order."""
    return f"Order {order_id} cancelled"


agent = Agent(
    name="Support agent",
    instructions="Help customers with their orders. Cancel an order when they ask.",
    tools=[cancel_order],
)


async def main() -> None:
    approvals = ToolApprovals(AsyncClient.from_env(), expires_in=1800, default_on_expire="deny")
    result = await approvals.run(agent, "Please cancel order 1042, I ordered it twice.")
    print(result.final_output)


if __name__ == "__main__":
    asyncio.run(main())
