"""A LangGraph graph with a human step: the `review` node asks a person through MA2H (an
`interrupt()` turned into an MA2H ask); the graph resumes with the answer and ships only if the
person approved — deny by default when nobody answers within the hour.

Written for LangGraph 1.0 (`pip install "langgraph>=1.0,<2"`) and the ma2h package (its wheel):

    MA2H_URL=… MA2H_API_KEY=… MA2H_AGENT_ID=… python langgraph_approval.py v2.4.0

Pull: LangGraphAsks.run waits for the answers. For push, submit with a callback
(`asks.submit(result, config, callback=Callback(url, secret_ref=…))`) and mount
`asgi_push_receiver(asks.push_handler(graph), …)`: the verified push resumes the thread.
"""

import sys
from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from ma2h import Client
from ma2h.adapters.langgraph import LangGraphAsks, approved, ask_human


class Release(TypedDict, total=False):
    version: str
    approved: bool


def review(state: Release) -> Release:
    answer = ask_human(f"Ship {state['version']} to production?", expires_in=3600, default_on_expire="deny")
    return {"approved": approved(answer)}


def ship(state: Release) -> Release:
    print(("shipping " if state["approved"] else "not shipping ") + state["version"])
    return {}


builder = StateGraph(Release)
builder.add_node("review", review)
builder.add_node("ship", ship)
builder.add_edge(START, "review")
builder.add_edge("review", "ship")
builder.add_edge("ship", END)
graph = builder.compile(checkpointer=InMemorySaver())

if __name__ == "__main__":
    version = sys.argv[1] if len(sys.argv) > 1 else "v2.4.0"
    asks = LangGraphAsks(Client.from_env())
    asks.run(graph, {"version": version}, {"configurable": {"thread_id": f"release-{version}"}})
