"""Task agents (google-adk 2.13's ``mode="task"``): a chat agent delegates a task by a call; the
task agent chats with the user across turns until it calls ``finish_task``.

* The parent's model is offered each task sub-agent as a tool (``TaskAgentTool``) named after
  it, taking its ``input_schema`` (else a ``request`` string), its description followed by a
  note not to call it beside other tools. A call gets no response at once: the parent's flow
  runs the task agent (``run_delegations``) under the isolation scope of the call's id, at
  ``<parent path>/<name>@<call id>`` on the branch ``<parent branch>.<name>@<call id>``. It sees
  only that scope: the call's arguments as its first user turn, then its own events and the
  user's messages sent while the task is open (the runner stamps them with the scope,
  ``open_task_scope``).
* The task agent is told to call ``finish_task`` (``FinishTaskTool``) when done, with its
  ``output_schema``'s fields (else one ``result`` string); arguments that do not fit are
  answered with the validation error, so the model may retry. Until it finishes, its answer
  ends the invocation and the user's next message goes on with the task.
* Once ``finish_task`` succeeds, its response event carries the arguments as ``output`` (and
  under the agent's ``output_key``), the task agent stops, and the parent gets a function
  response authored by ``user`` holding that output, then calls its model again. A parent
  whose task is open takes the task up again first (``unresolved_delegations``).
* A task agent the runner starts runs under its own path as its scope (``LlmAgent``), watched
  the same way (``watch_task``).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import AsyncGenerator, Iterable
from typing import TYPE_CHECKING, Any

import pydantic

from yadk.events import Event, NodeInfo
from yadk.models import FunctionDeclaration, LlmRequest
from yadk.tools import AgentTool, BaseTool
from yadk.types import Content, FunctionCall, FunctionResponse, Part

if TYPE_CHECKING:
    from yadk._contexts import InvocationContext, ToolContext
    from yadk.agents._llm_agent import LlmAgent
    from yadk.sessions import Session

__all__ = [
    "FINISH_TASK",
    "FinishTaskTool",
    "TaskAgentTool",
    "is_delegation",
    "open_task_scope",
    "refuse_early_finish",
    "run_delegations",
    "unresolved_delegations",
    "watch_task",
]

FINISH_TASK = "finish_task"
TASK_COMPLETED = "Task completed."
_TASK_FAILED = "Task failed."

# google-adk 2.13's words, recorded (tests/workflow/recorded/mode_task_*.json).
_FINISH_INSTRUCTION = """\
Do NOT call `finish_task` prematurely. Use your available tools to
fully complete every aspect of the delegated task first. If the
task is unclear, ask the user for clarification before proceeding.
Once the task is fully complete, call `finish_task` by itself with
no accompanying text output."""
_FINISH_DESCRIPTION = (
    "Signal that this agent has completed its delegated task. Call this when you have finished"
    " your delegated task."
)
_FINISH_WITH_SCHEMA = " Pass the required output data in the parameters."
_EARLY_FINISH = (
    "finish_task was ignored because a task delegation was sent in the same turn. Call"
    " finish_task by itself once the delegated result is available."
)
_DELEGATION_NOTE = (
    "\nIMPORTANT: This tool delegates execution to a specialized agent. Do NOT call this tool in"
    " parallel with any other tools."
)
_DEFAULT_INPUT: dict[str, Any] = {
    "properties": {
        "request": {
            "description": "Detailed instructions or context for the task sub-agent.",
            "title": "Request",
            "type": "string",
        }
    },
    "required": ["request"],
    "title": "_DefaultTaskInput",
    "type": "object",
}
_DEFAULT_OUTPUT: dict[str, Any] = {
    "additionalProperties": False,
    "description": (
        "Default output schema when no custom output_schema is provided.\n\nUsed by"
        " FinishTaskTool to generate the function declaration when the\ntask agent does not"
        " define an explicit output_schema."
    ),
    "properties": {"result": {"title": "Result", "type": "string"}},
    "required": ["result"],
    "title": "_DefaultTaskOutput",
    "type": "object",
}


class _DefaultTaskOutput(pydantic.BaseModel):
    """What ``finish_task`` takes from a task agent without an ``output_schema``."""

    model_config = pydantic.ConfigDict(extra="forbid")

    result: str


class FinishTaskTool(BaseTool):
    """``finish_task``: the task agent's output, checked against its ``output_schema``."""

    def __init__(self, output_schema: type[pydantic.BaseModel] | None) -> None:
        description = _FINISH_DESCRIPTION
        if output_schema is not None:
            description += _FINISH_WITH_SCHEMA
        super().__init__(name=FINISH_TASK, description=description)
        self.output_schema = output_schema

    def declaration(self) -> FunctionDeclaration:
        schema = self.output_schema
        parameters = schema.model_json_schema() if schema is not None else _DEFAULT_OUTPUT
        return FunctionDeclaration(
            name=self.name, description=self.description, parameters=copy.deepcopy(parameters)
        )

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)
        llm_request.append_instructions([_FINISH_INSTRUCTION])

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        try:
            (self.output_schema or _DefaultTaskOutput).model_validate(args)
        except pydantic.ValidationError as exc:
            return {
                "error": (
                    f"Invoking `{self.name}()` failed due to validation errors:\n{exc}\nYou"
                    " could retry calling this tool, but it is IMPORTANT for you to provide all"
                    " the mandatory parameters with correct types."
                )
            }
        return TASK_COMPLETED


class TaskAgentTool(AgentTool):
    """A ``mode="task"`` sub-agent as its parent's model sees it; calls of it are run by the
    parent's flow (``run_delegations``), never by ``run_async``."""

    def declaration(self) -> FunctionDeclaration:
        schema: type[pydantic.BaseModel] | None = getattr(self.agent, "input_schema", None)
        parameters = schema.model_json_schema() if schema is not None else _DEFAULT_INPUT
        return FunctionDeclaration(
            name=self.name,
            description=f"{self.agent.description or ''}{_DELEGATION_NOTE}".strip(),
            parameters=copy.deepcopy(parameters),
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        return None


def is_delegation(tool: Any) -> bool:
    return isinstance(tool, TaskAgentTool)


def refuse_early_finish(event: Event) -> None:
    """A task agent's ``finish_task`` called beside a delegation is answered with google-adk's
    error instead: the task cannot end before the delegated result is in."""
    for response in event.get_function_responses():
        if response.name == FINISH_TASK:
            response.response = {"error": _EARLY_FINISH}


def unresolved_delegations(agent: LlmAgent, ctx: InvocationContext) -> list[FunctionCall]:
    """The calls of ``agent`` to its task sub-agents that no function response answers yet (a
    task agent looks in its own scope only: the same agent may hold several tasks)."""
    names = {s.name for s in agent.sub_agents if getattr(s, "mode", None) == "task"}
    if not names:
        return []
    task_mode = agent.mode == "task"
    calls: dict[str, FunctionCall] = {}
    answered: set[str] = set()
    for event in ctx.session.events:
        if event.author not in (agent.name, "user") or event.content is None:
            continue
        in_scope = not task_mode or event.isolation_scope == ctx.isolation_scope
        for part in event.content.parts:
            call = part.function_call
            if in_scope and call is not None and call.id and call.name in names:
                calls[call.id] = call
            response = part.function_response
            if response is not None and response.id:
                answered.add(response.id)
    return [call for call_id, call in calls.items() if call_id not in answered]


async def run_delegations(
    agent: LlmAgent, ctx: InvocationContext, calls: Iterable[FunctionCall]
) -> AsyncGenerator[Event, None]:
    """Run the task agent of each call in turn and answer the call with its output; a task
    agent that has not finished ends the invocation (the user's reply goes on with it)."""
    for call in calls:
        target = agent.find_sub_agent(call.name or "")
        if target is None or not call.id:
            raise ValueError(f"Task target agent {call.name!r} not found.")
        outcome: list[Any] = []
        async for event in _run_task(target, ctx, call, outcome):
            yield event
        if not outcome:
            ctx.end_invocation = True
            return
        output = outcome[0]
        yield Event(
            invocation_id=ctx.invocation_id,
            author="user",
            branch=ctx.branch,
            isolation_scope=ctx.isolation_scope,
            content=Content(
                role="user",
                parts=[
                    Part(
                        function_response=FunctionResponse(
                            id=call.id,
                            name=call.name,
                            response=output if isinstance(output, dict) else {"output": output},
                        )
                    )
                ],
            ),
        )


async def _run_task(
    agent: Any, ctx: InvocationContext, call: FunctionCall, outcome: list[Any]
) -> AsyncGenerator[Event, None]:
    """The task agent's events for ``call``; its output is put in ``outcome`` once its
    ``finish_task`` succeeds (the agent stops there)."""
    assert call.id is not None
    segment = f"{agent.name}@{call.id}"
    path = f"{ctx.node_path}/{segment}" if ctx.node_path else segment
    task_ctx = dataclasses.replace(
        ctx.for_agent(
            agent, branch=f"{ctx.branch}.{segment}" if ctx.branch else segment, node_path=path
        ),
        isolation_scope=call.id,
    )
    async for event in watch_task(agent, agent.run_async(task_ctx), call.id, path, outcome):
        yield event


async def watch_task(
    agent: Any,
    events: AsyncGenerator[Event, None],
    scope: str,
    path: str,
    outcome: list[Any] | None = None,
) -> AsyncGenerator[Event, None]:
    """``events`` of a task agent, stamped with ``scope``; once its ``finish_task`` succeeds,
    that response event carries the output (put in ``outcome``) and the agent stops."""
    finishing: dict[str, Any] | None = None
    try:
        async for event in events:
            if event.isolation_scope is None:
                event.isolation_scope = scope
            # A task it delegated in turn finishes under its own scope: not this one's end.
            if not event.partial and event.isolation_scope == scope and event.author == agent.name:
                finish = next(
                    (c for c in event.get_function_calls() if c.name == FINISH_TASK), None
                )
                if finish is not None:
                    finishing = dict(finish.args or {})
                elif finishing is not None and _finished(event):
                    event.output = finishing
                    event.node_info = NodeInfo(path=path, output_for=[path])
                    if agent.output_key:
                        event.actions.state_delta[agent.output_key] = finishing
                    yield event
                    if outcome is not None:
                        outcome.append(finishing)
                    return
            yield event
    finally:
        await events.aclose()


def _finished(event: Event) -> bool:
    """Whether the event holds ``finish_task``'s response saying the task is over."""
    return any(
        r.name == FINISH_TASK
        and isinstance(r.response, dict)
        and r.response.get("result") in (TASK_COMPLETED, _TASK_FAILED)
        for r in event.get_function_responses()
    )


def open_task_scope(session: Session) -> str | None:
    """The scope of the task waiting for the user's reply: the latest scope in the session
    whose ``finish_task`` has not succeeded (a user message is stamped with it)."""
    finished: set[str] = set()
    for event in session.events:
        if event.isolation_scope and _finished(event):
            finished.add(event.isolation_scope)
    for event in reversed(session.events):
        scope = event.isolation_scope
        if scope and scope not in finished:
            return scope
    return None
