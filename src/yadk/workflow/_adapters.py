"""Things that are nodes without being written as one: agents, tools, nested workflows, and a
node run once per item of a list (``parallel_worker``)."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any

from yadk._contexts import ToolContext
from yadk.agents import BaseAgent, LlmAgent
from yadk.events import Event, NodeInfo
from yadk.types import Content, Part
from yadk.workflow._base_node import BaseNode
from yadk.workflow._params import as_output

if TYPE_CHECKING:
    from yadk.tools import BaseTool
    from yadk.workflow._context import NodeContext

__all__ = ["AgentNode", "ParallelWorker", "ToolNode", "WorkflowNode", "to_user_content"]


class AgentNode(BaseNode):
    """An agent as a node; its events keep its name as author.

    An LlmAgent runs in its ``node_mode`` (google-adk 2.13's rule): single_turn (the default)
    is given its input as its one user turn and sees nothing else of the conversation, and its
    final answer is its output (the parsed object when it has an ``output_schema``); chat (an
    agent of an agent tree, or ``mode="chat"``) sees the conversation and gives no output.
    Other agents read their input from the conversation (unless it is the user's own message)
    and their final answer is their output.
    """

    agent: BaseAgent
    # An agent whose long-running call was answered runs again to go on from the answer.
    rerun_on_resume: bool = True

    async def _run_impl(self, *, ctx: NodeContext, node_input: Any) -> AsyncGenerator[Any, None]:
        ic = ctx.invocation_context
        mode = self.agent.node_mode if isinstance(self.agent, LlmAgent) else None
        if mode is None and _new_input(node_input, ic.user_content) and not ctx.resume_inputs:
            # The agent reads its input from the conversation, as every yadk agent does.
            yield Event(
                invocation_id=ic.invocation_id,
                author="user",
                branch=ic.branch,
                content=to_user_content(node_input),
            )
        schema = (
            getattr(self.agent, "output_schema", None) if isinstance(self.agent, LlmAgent) else None
        )
        # The agent's events carry this node's path (google-adk's agent-as-node rule).
        agent_ic = ic.for_agent(
            self.agent,
            node_path=ctx.node_path,
            single_turn_input=(
                None
                if mode != "single_turn"
                else Content(role="user", parts=[])
                if node_input is None
                else to_user_content(node_input)
            ),
            # Resumed after its long-running call was answered: its input is not repeated.
            single_turn_resumed=bool(ctx.resume_inputs),
        )
        async for event in self.agent.run_async(agent_ic):
            if (
                mode != "chat"
                and not event.partial
                and event.content is not None
                and event.content.role == "model"
                and not event.get_function_calls()
                and (event.author == self.agent.name or not isinstance(self.agent, LlmAgent))
                and not event.error_code
            ):
                text = event.text
                if schema is not None:
                    if text.strip():
                        event.output = schema.model_validate_json(text).model_dump(
                            mode="json", exclude_none=True
                        )
                else:
                    event.node_info = NodeInfo(message_as_output=True)
            yield event


class ToolNode(BaseNode):
    """A tool as a node (an ``AgentTool``-wrapped agent, a ``FunctionTool``): a dict input is its
    arguments, anything else its ``request``; what it returns is the output."""

    tool: Any

    async def _run_impl(self, *, ctx: NodeContext, node_input: Any) -> AsyncGenerator[Any, None]:
        tool: BaseTool = self.tool
        if isinstance(node_input, dict):
            args = node_input
        elif isinstance(node_input, Content):
            args = {"request": "".join(p.text or "" for p in node_input.parts)}
        else:
            args = {"request": "" if node_input is None else str(node_input)}
        tool_context = ToolContext(ctx.invocation_context, event_actions=ctx.actions)
        result = await tool.run_async(args=args, tool_context=tool_context)
        yield result


class WorkflowNode(BaseNode):
    """A workflow inside another: it runs its own graph; its output is its terminal node's."""

    workflow: Any


class ParallelWorker(BaseNode):
    """Runs ``node`` once per item of a list input, the output being the list of outputs."""

    node: BaseNode


def _new_input(node_input: Any, user_content: Content | None) -> bool:
    """Whether the input is something other than the user's own message (which the agent
    already sees in the conversation)."""
    if node_input is None or node_input is user_content:
        return False
    if isinstance(node_input, str) and user_content is not None:
        return node_input != "".join(p.text or "" for p in user_content.parts)
    return True


def to_user_content(value: Any) -> Content:
    if isinstance(value, Content):
        return Content(role="user", parts=list(value.parts))
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(as_output(value), ensure_ascii=False)
        except (TypeError, ValueError):
            text = str(value)
    return Content(role="user", parts=[Part(text=text)])
