"""NodeTool: a workflow or a node given to an agent as a tool (google-adk 2's node-as-tool).

An ``LlmAgent`` wraps every node in its ``tools`` (a ``Workflow``, a ``@node`` function, a
``BaseNode``) in a ``NodeTool``. The model sees a declaration built from the node's
``input_schema`` (or the parameters of a function node, or the entry nodes of a workflow); a
call runs the node as a child of the agent's run, at ``<agent path>/<tool>@<call id>``, and
its output is the tool's result. The node's own events reach the conversation before the
function response, as in google-adk."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator
from typing import Any

import pydantic

from yadk._contexts import InvocationContext, ToolContext
from yadk.agents import BaseAgent, ResumedCall, Sink
from yadk.events import Event, new_event_id
from yadk.models import FunctionDeclaration
from yadk.tools import BaseTool
from yadk.types import Content, FunctionResponse, Part
from yadk.workflow._adapters import WorkflowNode
from yadk.workflow._base_node import START, BaseNode
from yadk.workflow._build import build_node
from yadk.workflow._function_node import FunctionNode, NodeInputError
from yadk.workflow._params import MISSING, as_output
from yadk.workflow._request_input import REQUEST_INPUT_FUNCTION_CALL_NAME
from yadk.workflow._resume import ResumePoint, completed_runs, find_resume
from yadk.workflow._runtime import NodeFailed, Runtime
from yadk.workflow._schemas import check_data
from yadk.workflow._workflow import Workflow

__all__ = ["NodeTool"]

_KEY = "yadk_node_tool"  # the event metadata of a question asked by a node called as a tool

_UNRESOLVED = object()  # a node whose input the model cannot be told how to give


class NodeTool(BaseTool):
    """Runs ``node`` (a ``Workflow``, a ``@node`` function, a ``BaseNode``) when the model calls
    it; the node's output is the result (``{"result": None}`` when it has none)."""

    def __init__(self, node: Any, name: str | None = None, description: str | None = None):
        if isinstance(node, BaseAgent) and not isinstance(node, Workflow):
            raise ValueError(
                f"Agent '{node.name}' cannot be wrapped as a NodeTool. Agents should be invoked"
                " as Sub-Agents instead."
            )
        built = build_node(node)
        if isinstance(built, FunctionNode) and built.parameter_binding != "node_input":
            if "node_input" not in {p.name for p in built.binder.params if p.kind == "input"}:
                # No node_input: the model's arguments are the function's parameters.
                fields = {f: getattr(built, f) for f in type(built).model_fields}
                fields["parameter_binding"] = "node_input"
                built = FunctionNode(func=built.func, **fields)
        schema = _input_schema(built)
        if schema is _UNRESOLVED:
            raise ValueError(
                f"Node '{built.name}' does not have an input_schema defined. NodeTool requires"
                " an explicit Pydantic input_schema on the wrapped node."
            )
        self.node = built
        self._input = schema
        super().__init__(
            name=name or built.name,
            description=description or built.description or f"Executes the node: {built.name}",
        )

    def declaration(self) -> FunctionDeclaration:
        return FunctionDeclaration(
            name=self.name, description=self.description, parameters=self._parameters()
        )

    def _parameters(self) -> dict[str, Any] | None:
        if self._input is None:
            return None
        if isinstance(self._input, dict):
            return self._input
        schema = _json_schema(self._input)
        if schema.get("type") != "object":
            return {"type": "object", "properties": {"request": schema}, "required": ["request"]}
        return schema

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        node_input = self._node_input(args)
        if isinstance(node_input, _BadArguments):
            return _argument_error(self.name, node_input.detail)
        output = await self._run(tool_context, node_input, args, resume=None)
        if tool_context.waiting:
            return None
        return {"result": None} if output is None else output

    def _node_input(self, args: dict[str, Any]) -> Any:
        parameters = self._parameters()
        node_input: Any = args
        if parameters is not None and "request" in parameters.get("properties", {}):
            if self._input is not None and "request" not in args:
                return _BadArguments('Missing required argument "request".')
            node_input = args.get("request")
        if self._input is not None and not isinstance(self._input, dict):
            try:
                node_input = check_data(self._input, node_input)
            except ValueError as exc:
                return _BadArguments(exc)
        return node_input

    async def answer_waiting(
        self, agent_name: str, ic: InvocationContext, call_tool: ResumedCall
    ) -> AsyncIterator[Event]:
        """When the user's message answers a question this tool's run asked (the model's call
        of it is still unanswered): the run goes on with the answer, inside ``call_tool`` (the
        agent's callbacks and the app's plugins, as for any call; google-adk reruns them), its
        events, then the call's function response, come out before the agent's next model
        call."""
        content = ic.user_content
        answers = {
            p.function_response.id
            for p in (content.parts if content is not None else [])
            if p.function_response is not None
            and p.function_response.id
            and p.function_response.name == REQUEST_INPUT_FUNCTION_CALL_NAME
        }
        events = ic.session.events
        if answers:
            asked = _question(events, agent_name, self.name, answers)
        elif content is not None and any(p.text for p in content.parts):
            # A plain message answers the question the last invocation ended on (as it does
            # for a workflow's question).
            asked = _last_question(events, agent_name, self.name)
        else:
            return
        if asked is None:
            return
        resume = find_resume(ic.session, root_path=asked["parent"], message=content)
        if resume is None:
            return
        tool_context = ToolContext(ic, function_call_id=asked["call_id"])
        args = dict(asked["args"])
        node_input = self._node_input(args)

        async def invoke() -> Any:
            output = await self._run(tool_context, node_input, args, resume=resume)
            return {"result": None} if output is None else as_output(output)

        response_id = new_event_id()
        result = await call_tool(tool_context, args, invoke, response_id)
        for event in tool_context.events:
            yield event
        if tool_context.waiting:
            ic.end_invocation = True  # it asked again: the invocation waits for that answer
            return
        yield Event(
            id=response_id,
            invocation_id=ic.invocation_id,
            author=agent_name,
            branch=ic.branch,
            content=Content(
                role="user",
                parts=[
                    Part(
                        function_response=FunctionResponse(
                            id=asked["call_id"],
                            name=self.name,
                            response={"result": None} if result is None else result,
                        )
                    )
                ],
            ),
            actions=tool_context.actions,
        )

    async def _run(
        self,
        tool_context: ToolContext,
        node_input: Any,
        args: dict[str, Any],
        *,
        resume: ResumePoint | None,
    ) -> Any:
        ic = tool_context.invocation_context
        call_id = tool_context.function_call_id
        parent = ic.node_path or ic.agent.name
        sink = Sink()
        runtime = Runtime(
            sink=sink,
            sleep=asyncio.sleep,
            resume=resume,
            done=completed_runs(ic.session, root_path=parent, invocation_id=ic.invocation_id)
            if resume
            else None,
        )
        run = runtime.run_node(
            self.node,
            ic=ic,
            parent_path=parent,
            run_id=call_id or 1,
            author=self.name,
            node_input=node_input,
            output_for=[],
        )
        events: list[Event] = tool_context.events
        outcome: list[Any] = []

        async def collect() -> None:
            outcome.append(await run)

        try:
            async for event in sink.drive(collect()):
                events.append(event)
        except NodeFailed as failed:
            raise failed.error from None
        except NodeInputError as exc:
            raise exc.error from None
        result = outcome[0]
        if result.interrupted:
            # It asked the user: the question remembers the call it belongs to.
            tool_context.waiting = True
            record = {
                "agent": ic.agent.name,
                "tool": self.name,
                "call_id": call_id,
                "args": as_output(args),
                "parent": parent,
            }
            for event in events:
                if any(
                    c.name == REQUEST_INPUT_FUNCTION_CALL_NAME for c in event.get_function_calls()
                ):
                    event.custom_metadata = {**(event.custom_metadata or {}), _KEY: record}
            return None
        return result.output


class _BadArguments:
    def __init__(self, detail: Any) -> None:
        self.detail = detail


def _question(
    events: list[Event], agent_name: str, tool_name: str, answers: set[str]
) -> dict[str, Any] | None:
    """The record of this tool's question that ``answers`` answer, in the last invocation."""
    for event in reversed(events):
        record = (event.custom_metadata or {}).get(_KEY)
        if not isinstance(record, dict):
            continue
        if record.get("agent") != agent_name or record.get("tool") != tool_name:
            continue
        if any(c.id in answers for c in event.get_function_calls()):
            return record
    return None


def _last_question(events: list[Event], agent_name: str, tool_name: str) -> dict[str, Any] | None:
    """The record of this tool's question in the invocation before the current message."""
    end = len(events)
    while end and events[end - 1].author == "user":
        end -= 1
    if not end:
        return None
    invocation = events[end - 1].invocation_id
    for event in reversed(events[:end]):
        if event.invocation_id != invocation:
            break
        record = (event.custom_metadata or {}).get(_KEY)
        if (
            isinstance(record, dict)
            and record.get("agent") == agent_name
            and record.get("tool") == tool_name
        ):
            return record
    return None


def _input_schema(node: BaseNode) -> Any:
    """What the model gives the node: a type or JSON Schema dict, None (no arguments), or
    ``_UNRESOLVED``."""
    if node.input_schema is not None:
        return node.input_schema
    if isinstance(node, FunctionNode):
        if node.parameter_binding == "node_input":
            return _parameters_of(node)
        hint = node.binder.input_annotation
        if hint in (MISSING, Any, object):
            return _UNRESOLVED
        return hint
    if isinstance(node, WorkflowNode):
        graph = node.workflow.graph
        if graph is None:
            return _UNRESOLVED
        starts = [graph.by_name[name] for name in graph.next_nodes(START.name, None)]
        entries = [n for n in starts if not n.requires_all_predecessors]
        if not entries:
            return _UNRESOLVED
        schemas = [_input_schema(n) for n in entries]
        if any(s is _UNRESOLVED for s in schemas):
            return _UNRESOLVED
        given = [s for s in schemas if s is not None]
        if not given:
            return None
        return given[0] if all(s == given[0] for s in given[1:]) else _UNRESOLVED
    return _UNRESOLVED


def _parameters_of(node: FunctionNode) -> dict[str, Any] | None:
    """A function node's parameters (its ``ctx`` left out) as an object schema."""
    fields: dict[str, Any] = {}
    for param in node.binder.params:
        if param.kind == "ctx":
            continue
        annotation = Any if param.annotation is MISSING else param.annotation
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[param.name] = (annotation, default)
    if not fields:
        return None
    model = pydantic.create_model(f"{node.name}_params", **fields)
    schema: dict[str, Any] = model.model_json_schema()
    schema.pop("title", None)
    return schema


def _json_schema(kind: Any) -> dict[str, Any]:
    if isinstance(kind, type) and issubclass(kind, pydantic.BaseModel):
        schema: dict[str, Any] = kind.model_json_schema()
    else:
        schema = pydantic.TypeAdapter(kind).json_schema()
    return schema


def _argument_error(name: str, detail: Any) -> dict[str, str]:
    return {
        "error": (
            f"Invoking `{name}()` failed due to argument validation errors:\n{detail}\nYou"
            " could retry calling this tool with corrected argument types."
        )
    }
