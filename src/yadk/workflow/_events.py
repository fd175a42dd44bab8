"""The events a node run produces: what it yields (values, events, messages, questions) turned
into events stamped with its author, path and output, the question a waiting node shows, and
the error event of a failure."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from yadk._contexts import InvocationContext
from yadk.events import Event, EventActions, NodeInfo
from yadk.types import Content, FunctionCall, Part
from yadk.workflow._params import as_output
from yadk.workflow._request_input import REQUEST_INPUT_FUNCTION_CALL_NAME, RequestInput
from yadk.workflow._resume import input_record
from yadk.workflow._schemas import check_data

if TYPE_CHECKING:
    from yadk.workflow._context import NodeContext

__all__ = [
    "NodeResult",
    "bare_event",
    "error_event",
    "event_of",
    "output_event",
    "request_event",
    "stamp",
]


@dataclass
class NodeResult:
    """What one run of a node came to."""

    output: Any = None
    has_output: bool = False
    route: Any = None
    interrupted: bool = False


def _output(value: Any, schema: Any) -> Any:
    """A node's output as stored: checked against its ``output_schema`` when it has one."""
    if schema is not None:
        return check_data(schema, value)
    return as_output(value)


def event_of(item: Any, ctx: NodeContext, result: NodeResult, node_input: Any) -> Event:
    """The event for one thing a node yielded (its fields stamped later)."""
    if isinstance(item, Event):
        return item
    if isinstance(item, RequestInput):
        result.interrupted = True
        return request_event(item, ctx, node_input)
    if isinstance(item, Content):
        return Event(content=item)
    return Event(output=item)


def output_event(
    value: Any, ctx: NodeContext, result: NodeResult, output_for: list[str], schema: Any = None
) -> Event:
    """The event of a returned value, built whole (what ``stamp`` does field by field)."""
    ic = ctx.invocation_context
    output = _output(value, schema)
    result.output = output
    result.has_output = True
    return Event(
        invocation_id=ic.invocation_id,
        author=ctx.author,
        branch=ic.branch,
        output=output,
        actions=ctx.take_actions(),
        node_info=NodeInfo(path=ctx.node_path, output_for=output_for),
    )


def stamp(
    event: Event,
    ctx: NodeContext,
    result: NodeResult,
    output_for: list[str],
    schema: Any = None,
) -> None:
    """Fill in what the node left out: author, invocation, branch, path, the state written
    since its last event; note its output and route in ``result``."""
    ic = ctx.invocation_context
    if not event.author:
        event.author = ctx.author
    if not event.invocation_id:
        event.invocation_id = ic.invocation_id
    if event.branch is None:
        event.branch = ic.branch
    info = event.node_info
    if info is None:
        info = event.node_info = NodeInfo()
    if not info.path:
        info.path = ctx.node_path
    pending = ctx.take_actions()
    if not pending.is_empty():
        merge_actions(event.actions, pending)
    if event.output is not None:
        event.output = _output(event.output, schema)
        result.output = event.output
        result.has_output = True
        info.output_for = output_for
    elif info.message_as_output:
        result.output = event.text
        result.has_output = True
        info.output_for = output_for
    if event.actions.route is not None:
        result.route = event.actions.route


def bare_event(ctx: NodeContext, actions: EventActions) -> Event:
    """An event carrying only state written after a node's last event."""
    ic = ctx.invocation_context
    return Event(
        invocation_id=ic.invocation_id,
        author=ctx.author,
        branch=ic.branch,
        actions=actions,
        node_info=NodeInfo(path=ctx.node_path),
    )


def merge_actions(actions: EventActions, extra: EventActions) -> None:
    actions.state_delta.update(extra.state_delta)
    actions.artifact_delta.update(extra.artifact_delta)
    for name in ("transfer_to_agent", "escalate", "skip_summarization"):
        if getattr(actions, name) is None and getattr(extra, name) is not None:
            setattr(actions, name, getattr(extra, name))


def request_event(request: RequestInput, ctx: NodeContext, node_input: Any) -> Event:
    """The ``adk_request_input`` call a waiting node shows, with what a later invocation needs
    to resume it (the node's input) kept in its metadata."""
    ic = ctx.invocation_context
    return Event(
        invocation_id=ic.invocation_id,
        author=ctx.author,
        content=Content(
            role="model",
            parts=[
                Part(
                    function_call=FunctionCall(
                        id=request.interrupt_id,
                        name=REQUEST_INPUT_FUNCTION_CALL_NAME,
                        args=request.call_args(),
                    )
                )
            ],
        ),
        long_running_tool_ids={request.interrupt_id},
        custom_metadata={
            "yadk_workflow": input_record(ctx.node_path, node_input, ctx.parent_inputs())
        },
    )


def error_event(
    ic: InvocationContext,
    error: BaseException,
    *,
    path: str,
    author: str,
    actions: EventActions | None = None,
    isolation_scope: str | None = None,
) -> Event:
    """The event of a failure; ``actions``: the state the failing run wrote before it failed
    (google-adk keeps it, on this event); ``isolation_scope``: the failed run's scope."""
    return Event(
        invocation_id=ic.invocation_id,
        author=author,
        branch=ic.branch,
        isolation_scope=isolation_scope,
        error_code=type(error).__name__,
        error_message=str(error),
        node_info=NodeInfo(path=path),
        actions=actions if actions is not None else EventActions(),
    )
