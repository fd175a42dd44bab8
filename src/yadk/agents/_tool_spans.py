"""A traced tool call: the call inside its ``execute_tool`` span (yadk._tracing)."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from yadk._contexts import ToolContext
from yadk._tracing import InvocationTrace

if TYPE_CHECKING:
    from yadk.tools import BaseTool
    from yadk.types import FunctionCall

__all__ = ["TracedCall", "in_tool_span", "run_attached"]


@dataclasses.dataclass
class TracedCall:
    """A traced tool call: its span, and the exception the tool raised (reported to the model,
    so it never reaches the span as one)."""

    span: Any
    error: Exception | None = None


async def in_tool_span(
    trace: InvocationTrace,
    agent: Any,
    call: FunctionCall,
    tool: BaseTool,
    tool_context: ToolContext,
    event_id: str,
    run: Callable[[TracedCall], Awaitable[dict[str, Any] | None]],
) -> dict[str, Any] | None:
    """``run`` (the callbacks and the tool) inside the call's span, which ends with its result,
    or the tool's error, or what the callbacks raised."""
    span = trace.start_tool(
        agent, tool, call, tool_context.invocation_context, response_event_id=event_id
    )
    traced = TracedCall(span)
    try:
        result = await run(traced)
    except Exception as exc:
        trace.end_tool(span, None, exc, error_type=None)
        raise
    trace.end_tool(span, result, traced.error, error_type=None)
    return result


async def run_attached(
    tool: BaseTool, args: dict[str, Any], tool_context: ToolContext, span: Any
) -> Any:
    """The tool run with its span current, for what reads the ambient context (an HTTP client's
    instrumentation, an AgentTool's runner): attached around one ``await``, in this task."""
    trace = tool_context.invocation_context.trace
    assert trace is not None
    token = trace.attach(span)
    try:
        return await tool.run_async(args=args, tool_context=tool_context)
    finally:
        trace.detach(token)
