"""Answering a long-running tool's pending call from the terminal (human in the loop).

After an invocation leaves a call waiting (``LongRunningFunctionTool``), ``yadk run``/``dev``
say so, and the next message is that call's response: a JSON object is the response as is;
anything else becomes ``{"result": text}``. A tool call waiting for the user's confirmation
(``adk_request_confirmation``) takes yes/no words too (``{"confirmed": true|false}``).
"""

from __future__ import annotations

import json
from typing import Any

from yadk._tool_confirmation import REQUEST_CONFIRMATION, plain_answer
from yadk.runner import Runner
from yadk.tools import pending_calls
from yadk.types import Content, FunctionCall, FunctionResponse, Part

__all__ = ["answer_for", "pending_note", "waiting_call"]


async def waiting_call(runner: Runner, user_id: str, session_id: str) -> FunctionCall | None:
    """The oldest long-running call of the session still waiting for its response."""
    session = await runner.session_service.get_session(
        app_name=runner.app_name, user_id=user_id, session_id=session_id
    )
    if session is None:
        return None
    waiting = pending_calls(session.events)
    return waiting[0] if waiting else None


def answer_for(call: FunctionCall, text: str) -> Content:
    """The user's ``text`` as the final response to ``call``."""
    try:
        value: Any = json.loads(text)
    except ValueError:
        value = None
    if call.name == REQUEST_CONFIRMATION and not isinstance(value, dict):
        value = plain_answer(text)
    response = value if isinstance(value, dict) else {"result": text}
    return Content(
        role="user",
        parts=[
            Part(function_response=FunctionResponse(id=call.id, name=call.name, response=response))
        ],
    )


def pending_note(call: FunctionCall) -> str:
    if call.name == REQUEST_CONFIRMATION:
        original = call.args.get("originalFunctionCall") or {}
        asked = call.args.get("toolConfirmation") or {}
        args = json.dumps(original.get("args") or {}, ensure_ascii=False, sort_keys=True)
        payload = asked.get("payload")
        shown = "" if payload is None else f"; payload: {json.dumps(payload, ensure_ascii=False)}"
        return (
            f"{original.get('name')}({args}) is waiting for your confirmation (call {call.id}):"
            f" {str(asked.get('hint') or 'approve or reject it').rstrip('.')}{shown}. Your next"
            " message answers"
            ' it: yes or no, or a JSON object ({"confirmed": true, "payload": ...})'
        )
    args = json.dumps(call.args, ensure_ascii=False, sort_keys=True)
    return (
        f"{call.name}({args}) is waiting for its result (call {call.id}); your next message"
        ' answers it: a JSON object (e.g. {"status": "approved"}) or text'
    )
