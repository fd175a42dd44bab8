"""Sub-agents and transfers as google-adk's docs write them: a coordinator that transfers to a
specialist (who keeps the conversation), and an AgentTool over an agent with input and output
schemas."""

from google.adk.agents import LlmAgent
from google.adk.tools.agent_tool import AgentTool
from pydantic import BaseModel, Field


class Question(BaseModel):
    text: str = Field(description="The question to classify.")


class Verdict(BaseModel):
    category: str
    urgent: bool


classifier = LlmAgent(
    name="classifier",
    model="gemini-2.5-flash",
    description="Classifies a question.",
    instruction="Classify the question.",
    input_schema=Question,
    output_schema=Verdict,
    output_key="verdict",
)
billing = LlmAgent(
    name="billing",
    model="gemini-2.5-flash",
    description="Handles billing questions.",
    instruction="Answer billing questions.",
)
root_agent = LlmAgent(
    name="coordinator",
    model="gemini-2.5-flash",
    instruction="Route the user to the right specialist.",
    tools=[AgentTool(agent=classifier)],
    sub_agents=[billing],
)
