"""google-adk's rules for ``google_search`` next to other tools.

Gemini models before 3 reject a request that has both a built-in search and function
declarations. google-adk 2.13 therefore replaces ``GoogleSearchTool(bypass_multi_tools_limit=True)``
on an agent with other tools (or transfer targets) by ``google_search_agent``, a sub-agent with
only the search, called as a tool; and it refuses a search without that flag on an agent whose
sub-agents it could transfer to.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from yadk._model_names import supports_search_with_functions
from yadk.agents._llm_agent import LlmAgent
from yadk.tools import AgentTool, GoogleSearchTool, google_search

if TYPE_CHECKING:
    from yadk.agents._base_agent import BaseAgent
    from yadk.models import BaseLlm

__all__ = [
    "GoogleSearchAgentTool",
    "create_google_search_agent",
    "search_with_transfer_error",
    "wrapped_search",
]

_INSTRUCTION = """
        You are a specialized Google search agent.

        Answer the given search query directly using your built-in Google Search
        grounding capabilities. Do not attempt to invoke a client-side function
        call.
      """


def create_google_search_agent(model: str | BaseLlm) -> LlmAgent:
    """A sub-agent that only has ``google_search`` (google-adk's, word for word)."""
    return LlmAgent(
        name="google_search_agent",
        model=model,
        description="An agent for performing Google search using built-in search grounding",
        instruction=_INSTRUCTION,
        tools=[google_search],
    )


class GoogleSearchAgentTool(AgentTool):
    """The search sub-agent as a tool; its grounding metadata reaches the caller's next answers."""

    def __init__(self, agent: BaseAgent) -> None:
        super().__init__(agent, propagate_grounding_metadata=True)


def wrapped_search(agent: LlmAgent, tool: Any, *, multiple: bool) -> Any:
    """``tool``, or the search sub-agent tool standing for it (reused while the model stays)."""
    if not (multiple and isinstance(tool, GoogleSearchTool) and tool.bypass_multi_tools_limit):
        return tool
    model = agent.canonical_model
    cached = agent._search_agent_tools.get(id(tool))
    if cached is None or getattr(cached.agent, "model", None) is not model:
        cached = GoogleSearchAgentTool(create_google_search_agent(model))
        agent._search_agent_tools[id(tool)] = cached
    return cached


def search_with_transfer_error(agent: LlmAgent, model: str | None) -> str | None:
    """google-adk's refusal of a search without ``bypass_multi_tools_limit`` on an agent with
    transfer targets, on a model before Gemini 3 (``None`` when the agent is fine)."""
    for tool in agent.tools:
        if not isinstance(tool, GoogleSearchTool) or tool.bypass_multi_tools_limit:
            continue
        if supports_search_with_functions(tool.model or model):
            continue
        return (
            f"Agent '{agent.name}' has sub-agent transfer targets but is configured with"
            " GoogleSearchTool without bypass_multi_tools_limit=True. Gemini models before 3.0"
            " do not allow built-in search tools to be combined with function calling (agent"
            " delegation). To enable both search and sub-agent delegation, use a Gemini 3+"
            " model or set bypass_multi_tools_limit=True on GoogleSearchTool or"
            " VertexAiSearchTool."
        )
    return None
