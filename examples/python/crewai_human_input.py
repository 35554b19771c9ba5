"""A CrewAI crew whose planner can ask a person: the MA2H human-input tool puts the question in the
MA2H inbox and returns the person's written answer to the agent.

Written for CrewAI 1.15 (`pip install "crewai>=1.15"`, with an LLM configured for CrewAI, e.g.
OPENAI_API_KEY) and the ma2h package (its wheel):

    MA2H_URL=… MA2H_API_KEY=… MA2H_AGENT_ID=… OPENAI_API_KEY=… python crewai_human_input.py
"""

from crewai import Agent, Crew, Task

from ma2h import Client
from ma2h.adapters.crewai import human_input_tool

ask_a_person = human_input_tool(Client.from_env(), expires_in=3600)

planner = Agent(
    role="Release planner",
    goal="Plan a safe rollout of version 2",
    backstory="You plan rollouts and ask the on-call person when a decision is theirs.",
    tools=[ask_a_person],
)
plan = Task(
    description="Plan the rollout of version 2. Ask a person which regions must go first.",
    expected_output="A short rollout plan, region by region.",
    agent=planner,
)

if __name__ == "__main__":
    print(Crew(agents=[planner], tasks=[plan]).kickoff())
