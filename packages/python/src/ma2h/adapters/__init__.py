"""Thin adapters from agent frameworks to MA2H asks. Each imports its framework lazily (only when
one of its functions runs), so ``import ma2h`` never needs any of them:

- :mod:`ma2h.adapters.langgraph` — a LangGraph ``interrupt()`` becomes an MA2H ask; the graph is
  resumed with the verified answer (pulled, or pushed to the ASGI receiver);
- :mod:`ma2h.adapters.openai_agents` — the OpenAI Agents SDK's tool approvals asked of a person;
- :mod:`ma2h.adapters.crewai` — a CrewAI human-input tool backed by an MA2H ask.
"""
