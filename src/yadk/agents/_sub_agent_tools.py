"""Sub-agents a chat agent calls as tools (google-adk 2.13's delegation by ``mode``).

An LlmAgent among a chat agent's ``sub_agents`` with ``mode="single_turn"`` is no transfer
target: the parent's model is offered it as a tool named after it, described by its
description, taking its ``input_schema`` (else one ``request`` string). A call runs the
sub-agent single-turn: the request (or the validated input, as JSON) is its one user turn, and
it sees nothing else of the conversation. It runs at ``<parent path>/<name>@1`` on the branch
``<parent branch>.<name>@<call id>``, so the parent's model gets only the function response,
not the sub-agent's own events (``_contents`` hides a tool's branch). The response is the
sub-agent's answer: ``{"result": text}``, or the parsed object when it has an
``output_schema``. Arguments that do not fit the input schema, and a run that fails, are
answered as google-adk answers them, so the model may retry.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pydantic

from yadk.events import Event, NodeInfo
from yadk.tools import AgentTool
from yadk.types import Content, Part

if TYPE_CHECKING:
    from yadk._contexts import ToolContext

__all__ = ["SingleTurnAgentTool"]


class SingleTurnAgentTool(AgentTool):
    """A ``mode="single_turn"`` sub-agent offered to its parent's model as a tool."""

    # Its events reach the session as they happen (ToolContext.publish): the sub-agent reads
    # its own tool calls back on its next model call.
    publishes_events = True

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        agent: Any = self.agent
        schema: type[pydantic.BaseModel] | None = agent.input_schema
        request: Any
        if schema is not None:
            try:
                request = schema.model_validate(args).model_dump(mode="json")
            except pydantic.ValidationError as exc:
                return f"Error validating input: {exc}"
        else:
            request = args.get("request")
        try:
            return await self._run(tool_context, _user_turn(request))
        except Exception as exc:  # the model is told, as google-adk tells it, and may go on
            return f"Error running sub-agent: {exc}"

    async def _run(self, tool_context: ToolContext, user_turn: Content) -> Any:
        agent: Any = self.agent
        ic = tool_context.invocation_context
        # Every call is run 1 under the caller's path (google-adk counts runs per call); the
        # branch, named after the call, keeps one call's events from another's.
        step = f"{agent.name}@1"
        path = f"{ic.node_path}/{step}" if ic.node_path else step
        segment = f"{agent.name}@{tool_context.function_call_id}"
        agent_ic = ic.for_agent(
            agent,
            branch=f"{ic.branch}.{segment}" if ic.branch else segment,
            node_path=path,
            single_turn_input=user_turn,
        )
        output: Any = None
        async for event in agent.run_async(agent_ic):
            if _is_answer(event, agent.name):
                output = _output(agent, event)
                event.node_info = NodeInfo(path=path, output_for=[path])
                if isinstance(output, dict):
                    event.output = output
            if tool_context.publish is not None and not event.partial:
                await tool_context.publish(event)
            elif not event.partial:
                tool_context.events.append(event)
        return output


def _user_turn(request: Any) -> Content:
    if request is None:
        return Content(role="user", parts=[])
    text = request if isinstance(request, str) else json.dumps(request, ensure_ascii=False)
    return Content(role="user", parts=[Part(text=text)])


def _is_answer(event: Event, name: str) -> bool:
    return (
        event.author == name
        and not event.partial
        and not event.error_code
        and event.content is not None
        and event.content.role == "model"
        and not event.get_function_calls()
    )


def _output(agent: Any, event: Event) -> Any:
    text = event.text
    schema: type[pydantic.BaseModel] | None = agent.output_schema
    if schema is None or not text.strip():
        return text
    return schema.model_validate_json(text).model_dump(mode="json", exclude_none=True)
