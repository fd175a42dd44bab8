"""LLM-driven transfer: which agents an LlmAgent may hand over to, and how it is told so."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from yadk._contexts import ToolContext
from yadk.agents._llm_agent import LlmAgent
from yadk.models import FunctionDeclaration
from yadk.tools import FunctionTool, transfer_to_agent

if TYPE_CHECKING:
    from yadk.agents._base_agent import BaseAgent

__all__ = ["TransferToAgentTool", "transfer_instructions", "transfer_targets", "transfer_tool"]


def transfer_targets(agent: LlmAgent) -> list[BaseAgent]:
    """Sub-agents, then the parent and peers unless disallowed (parent and peers only when the
    parent is an LlmAgent, as in ADK); single-turn and task agents, which their parent calls as
    tools, are no sub-agent or peer to transfer to."""
    targets: list[BaseAgent] = [s for s in agent.sub_agents if _chats(s)]
    parent = agent.parent_agent
    if not isinstance(parent, LlmAgent):
        return targets
    if not agent.disallow_transfer_to_parent:
        targets.append(parent)
    if not agent.disallow_transfer_to_peers:
        targets.extend(p for p in parent.sub_agents if p.name != agent.name and _chats(p))
    return targets


def _chats(agent: BaseAgent) -> bool:
    return not isinstance(agent, LlmAgent) or agent.mode not in ("single_turn", "task")


def transfer_instructions(agent: LlmAgent, targets: list[BaseAgent]) -> str:
    """The system-instruction block that lists transfer targets (ADK's wording)."""
    listing = "\n".join(
        f"\nAgent name: {t.name}\nAgent description: {t.description}\n" for t in targets
    )
    names = ", ".join(f"`{n}`" for n in sorted(t.name for t in targets))
    text = (
        "\nYou have a list of other agents to transfer to:\n\n"
        f"{listing}\n\n"
        "If you are the best to answer the question according to your description,\n"
        "you can answer it.\n\n"
        "If another agent is better for answering the question according to its\n"
        "description, call `transfer_to_agent` function to transfer the question to that\n"
        "agent. When transferring, do not generate any text other than the function\n"
        "call.\n\n"
        "**NOTE**: the only available agents for `transfer_to_agent` function are\n"
        f"{names}.\n"
    )
    if agent.parent_agent is not None and not agent.disallow_transfer_to_parent:
        text += (
            "\nIf neither you nor the other agents are best for the question, transfer to"
            f" your parent agent {agent.parent_agent.name}.\n"
        )
    return text


def transfer_tool(agent: LlmAgent, targets: list[BaseAgent]) -> TransferToAgentTool:
    """The agent's transfer tool for ``targets``, reused while the targets stay the same."""
    names = [t.name for t in targets]
    tool = agent._transfer_tool
    if tool is None or tool.target_names != names:
        tool = agent._transfer_tool = TransferToAgentTool(names)
    return tool  # type: ignore[no-any-return]


class TransferToAgentTool(FunctionTool):
    """``transfer_to_agent`` restricted to the agents this agent may hand over to.

    A name outside that list is answered with an error the model can recover from; the
    transfer does not happen.
    """

    def __init__(self, target_names: list[str]) -> None:
        super().__init__(transfer_to_agent)
        self.target_names = list(target_names)

    def declaration(self) -> FunctionDeclaration:
        declaration = super().declaration()
        params = dict(declaration.parameters or {})
        props = dict(params.get("properties", {}))
        props["agent_name"] = {**props.get("agent_name", {}), "enum": list(self.target_names)}
        params["properties"] = props
        return declaration.model_copy(update={"parameters": params})

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        name = args.get("agent_name")
        if name not in self.target_names:
            valid = ", ".join(self.target_names) or "(none)"
            return {
                "error": f"Agent {name!r} is not a valid transfer target. Valid targets: {valid}."
            }
        return await super().run_async(args=args, tool_context=tool_context)
