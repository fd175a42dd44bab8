"""An agent defined in Python and mounted from YAML (`sub_agents: - code: .agents.small_talk`)."""

from __future__ import annotations

from yadk import LlmAgent

small_talk = LlmAgent(
    name="small_talk",
    description="Answers greetings, thanks and chit-chat that is not about research.",
    instruction="Reply warmly in one sentence. If the user asks for research, transfer back to"
    " research_desk.",
)
