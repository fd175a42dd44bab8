"""Built-in function tools: ``exit_loop`` and ``transfer_to_agent`` (ADK's names and docs)."""

from __future__ import annotations

from yadk._contexts import ToolContext

__all__ = ["exit_loop", "transfer_to_agent"]


def exit_loop(tool_context: ToolContext) -> None:
    """Exits the loop.

    Call this function only when you are instructed to do so.
    """
    tool_context.actions.escalate = True
    tool_context.actions.skip_summarization = True


def transfer_to_agent(agent_name: str, tool_context: ToolContext) -> None:
    """Transfer the query to another agent.

    Use this tool to hand off control to another agent that is more suitable to
    answer the user's query according to the agent's description.

    Args:
      agent_name: the agent name to transfer to.
    """
    tool_context.actions.transfer_to_agent = agent_name
