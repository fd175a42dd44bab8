"""``require_confirmation`` on a function node: before it runs, the user approves or rejects the
call (google-adk 2's ``adk_request_input`` with a ``ToolConfirmation`` answer)."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from yadk._tool_confirmation import REJECTED, ToolConfirmation, parse_confirmation, plain_answer
from yadk.workflow._errors import WorkflowDataError
from yadk.workflow._params import as_output
from yadk.workflow._request_input import RequestInput

if TYPE_CHECKING:
    from yadk.workflow._context import NodeContext
    from yadk.workflow._function_node import FunctionNode

__all__ = [
    "REJECTED",
    "ToolConfirmation",
    "confirmation_answer",
    "confirmation_gate",
    "confirmation_id",
]


def confirmation_id(node_path: str) -> str:
    """The interrupt id of one node run's confirmation request (google-adk's)."""
    return f"wf_tool_confirmation:{node_path}"


def confirmation_answer(interrupt_id: str, answer: Any) -> Any:
    """A plain answer to a confirmation request (yadk lets ``yadk run`` users type it) as the
    ``ToolConfirmation`` dict: yes/no words and booleans. Other answers pass unchanged."""
    if not interrupt_id.startswith("wf_tool_confirmation:"):
        return answer
    return plain_answer(answer)


def _parse(answer: Any) -> ToolConfirmation:
    try:
        return parse_confirmation(answer)
    except ValueError as exc:
        if isinstance(answer, dict):
            raise WorkflowDataError(f"Invalid tool confirmation response: {answer!r}") from exc
        raise WorkflowDataError(str(exc)) from None


async def confirmation_gate(
    node: FunctionNode, ctx: NodeContext, node_input: Any, kwargs: dict[str, Any]
) -> Any:
    """``None`` when the node may run now; otherwise what it yields instead of running: the
    ``RequestInput`` asking for confirmation, or the rejection as its output."""
    answer = ctx.resume_inputs.get(confirmation_id(ctx.node_path))
    if answer is not None:
        return None if _parse(answer).confirmed else dict(REJECTED)
    bound = {k: v for k, v in kwargs.items() if v is not ctx}
    if not await _required(node, ctx, node_input, bound):
        return None
    return RequestInput(
        interrupt_id=confirmation_id(ctx.node_path),
        message=f"Please approve or reject the tool call {node.name}().",
        payload={"tool_name": node.name, "args": as_output(bound)},
        response_schema=ToolConfirmation,
    )


async def _required(
    node: FunctionNode, ctx: NodeContext, node_input: Any, bound: dict[str, Any]
) -> bool:
    predicate = node.require_confirmation
    if not callable(predicate):
        return bool(predicate)
    # The predicate takes what it names: the node's arguments, ctx, node_input, state values.
    params = inspect.signature(predicate).parameters
    takes_any = any(p.kind == p.VAR_KEYWORD for p in params.values())
    args = dict(bound)
    for name in params:
        if name in args:
            continue
        if name in ("ctx", "tool_context"):
            args[name] = ctx
        elif name == "node_input":
            args[name] = node_input
        elif name in ctx.state:
            args[name] = ctx.state[name]
    if not takes_any:
        args = {k: v for k, v in args.items() if k in params}
    result = predicate(**args)
    if inspect.isawaitable(result):
        result = await result
    return bool(result)
