"""Tool confirmation in an LlmAgent's flow (google-adk's human-in-the-loop approval).

A call to a tool whose ``require_confirmation`` says so, or whose run called
``tool_context.request_confirmation(...)``, is answered for now with a placeholder; the agent then
sends an ``adk_request_confirmation`` function call (long-running, carrying the original call
and the ``ToolConfirmation`` asked for). The user answers with a function response to that call
(``{"confirmed": true, "payload": ...}``); the next invocation reruns the original call with
``tool_context.tool_confirmation`` set, or refuses it with google-adk's message. Everything
lives in the session's events, so any runner (another process) can take the answer.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

from yadk._contexts import ToolContext
from yadk._tool_confirmation import (
    CONFIRMATION_PENDING,
    REJECTED,
    REQUEST_CONFIRMATION,
    ToolConfirmation,
    confirmation_hint,
    parse_confirmation,
)
from yadk.agents._pairing import CLIENT_CALL_ID_PREFIX
from yadk.events import Event
from yadk.types import Content, FunctionCall, Part

if TYPE_CHECKING:
    from yadk._contexts import InvocationContext
    from yadk.tools import BaseTool

__all__ = [
    "ConfirmedCalls",
    "confirmation_gate",
    "confirmation_request_event",
    "confirmed_calls",
    "is_confirmation_answer",
]

ConfirmedCalls = tuple[list[FunctionCall], dict[str, ToolConfirmation]]


async def confirmation_gate(
    tool: BaseTool, args: dict[str, Any], tool_context: ToolContext
) -> dict[str, str] | None:
    """``None`` when the call may run; otherwise its response instead of running: the request
    for confirmation (recorded on the context's actions), or the user's refusal."""
    if not await tool.check_require_confirmation(args, tool_context):
        return None
    confirmation = tool_context.tool_confirmation
    if confirmation is None:
        tool_context.request_confirmation(hint=confirmation_hint(tool.name))
        # The pause is no result for the model to summarise: the invocation ends here.
        tool_context.actions.skip_summarization = True
        return dict(CONFIRMATION_PENDING)
    if not confirmation.confirmed:
        return dict(REJECTED)
    return None


def confirmation_request_event(
    ctx: InvocationContext, author: str, calls: list[FunctionCall], response_event: Event
) -> Event | None:
    """The event asking the user to confirm the calls ``response_event`` holds back: one
    long-running ``adk_request_confirmation`` call per call."""
    requested = response_event.actions.requested_tool_confirmations
    if not requested:
        return None
    by_id = {call.id: call for call in calls if call.id}
    parts: list[Part] = []
    ids: set[str] = set()
    for call_id, confirmation in requested.items():
        original = by_id.get(call_id)
        if original is None:
            continue
        request_id = CLIENT_CALL_ID_PREFIX + str(uuid.uuid4())
        args = {
            "originalFunctionCall": original.model_dump(
                mode="json", by_alias=True, exclude_none=True
            ),
            "toolConfirmation": confirmation.model_dump(
                mode="json", by_alias=True, exclude_none=True
            ),
        }
        parts.append(
            Part(function_call=FunctionCall(id=request_id, name=REQUEST_CONFIRMATION, args=args))
        )
        ids.add(request_id)
    if not parts:
        return None
    return Event(
        invocation_id=ctx.invocation_id,
        author=author,
        branch=ctx.branch,
        content=Content(role="model", parts=parts),
        long_running_tool_ids=ids,
    )


def is_confirmation_answer(content: Content) -> bool:
    return any(
        p.function_response is not None and p.function_response.name == REQUEST_CONFIRMATION
        for p in content.parts
    )


async def confirmed_calls(
    agent_name: str, ctx: InvocationContext, tools: dict[str, BaseTool]
) -> ConfirmedCalls | None:
    """The calls the user's message answers confirmations for, to run now with their
    ``ToolConfirmation``; ``None`` when every answer was acted on already (a resent answer)."""
    assert ctx.user_content is not None
    answers: dict[str, ToolConfirmation] = {}
    for part in ctx.user_content.parts:
        response = part.function_response
        if response is None or response.name != REQUEST_CONFIRMATION or not response.id:
            continue
        try:
            answers[response.id] = parse_confirmation(response.response)
        except ValueError as exc:
            raise ValueError(
                f"The answer to confirmation request {response.id!r} is not a ToolConfirmation"
                ' (expected {"confirmed": true|false, "payload": ...}): '
                f"{exc}"
            ) from None
    events = ctx.session.events
    requests: dict[str, FunctionCall] = {}  # the confirmation request's id -> original call
    history: dict[str, FunctionCall] = {}
    asked: set[str] = set()  # original calls whose tool asked for a confirmation itself
    for event in events:
        asked.update(event.actions.requested_tool_confirmations)
        for call in event.get_function_calls():
            if not call.id:
                continue
            if call.name != REQUEST_CONFIRMATION:
                history[call.id] = call
            elif call.id in answers and event.author == agent_name:
                original = call.args.get("originalFunctionCall")
                if isinstance(original, dict):
                    requests[call.id] = FunctionCall.model_validate(original)
    consumed = _consumed(events, requests)
    calls: list[FunctionCall] = []
    confirmations: dict[str, ToolConfirmation] = {}
    for request_id, original in requests.items():
        if request_id in consumed:
            continue
        if not original.id or original.id not in history:
            raise ValueError(
                f"Original function call for ID '{original.id}' not found in session history."
            )
        if history[original.id].name != original.name or history[original.id].args != (
            original.args
        ):
            raise ValueError(
                f"Function call mismatch for ID '{original.id}': the confirmation request's"
                " call differs from the call in the session history."
            )
        tool = tools.get(original.name)
        if tool is None:
            raise ValueError(f"Tool '{original.name}' is not registered.")
        calls.append(original)
        confirmations[original.id] = answers[request_id]
    if not calls:
        return None if requests and len(consumed) == len(requests) else ([], {})
    for call in calls:
        assert call.id is not None
        if call.id in asked:
            continue
        probe = ToolContext(ctx, function_call_id=call.id)
        if not await tools[call.name].check_require_confirmation(dict(call.args), probe):
            raise ValueError(f"Tool '{call.name}' does not require confirmation.")
    return calls, confirmations


def _consumed(events: list[Event], requests: dict[str, FunctionCall]) -> set[str]:
    """The confirmation requests already acted on: the original call got a response after the
    user's first answer to the request (before the message being handled now)."""
    answered: set[str] = set()
    consumed: set[str] = set()
    originals = {call.id: request_id for request_id, call in requests.items()}
    for event in events[:-1]:
        for response in event.get_function_responses():
            if event.author == "user":
                if response.id in requests:
                    answered.add(response.id)
            else:
                request_id = originals.get(response.id)
                if request_id is not None and request_id in answered:
                    consumed.add(request_id)
    return consumed
