"""Human input across invocations: finding the question a workflow is waiting on, and the
answer the new message gives it.

Everything needed lives in the session's events (the ``adk_request_input`` call keeps the
waiting node's input in its metadata), so a workflow resumes in another process, after a
restart, from any session store.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from yadk.events import Event
from yadk.sessions import Session
from yadk.types import Content
from yadk.workflow._params import as_output
from yadk.workflow._request_input import REQUEST_INPUT_FUNCTION_CALL_NAME

__all__ = ["ResumePoint", "find_resume", "input_record"]

_KEY = "yadk_workflow"


@dataclass
class ResumePoint:
    """The waiting node's run path, the question's id, the user's answer and the node's input."""

    path: str
    interrupt_id: str
    answer: Any
    node_input: Any


def input_record(path: str, node_input: Any) -> dict[str, Any]:
    if isinstance(node_input, Content):
        return {"path": path, "content": node_input.model_dump(mode="json", exclude_none=True)}
    try:
        json.dumps(as_output(node_input))
        return {"path": path, "input": as_output(node_input)}
    except (TypeError, ValueError):
        return {"path": path, "input": str(node_input)}


def find_resume(session: Session, *, root_path: str, message: Content | None) -> ResumePoint | None:
    """The question this message answers: a function response to a waiting ``adk_request_input``
    call of this workflow, or any other message when the workflow's last invocation ended on one.
    """
    events = session.events
    end = len(events)
    # The message itself is already in the session: look at what came before it.
    while end and events[end - 1].author == "user":
        end -= 1
    answered = _answers(events[end:]) | _answers(events[:end])
    last_invocation = next(
        (e.invocation_id for e in reversed(events[:end]) if e.author != "user"), None
    )
    if last_invocation is None:
        return None
    replies = _answers([Event(author="user", content=message)]) if message else {}
    for event in reversed(events[:end]):
        if event.invocation_id != last_invocation:
            break
        record = (event.custom_metadata or {}).get(_KEY)
        if not record or not str(record.get("path", "")).startswith(root_path + "/"):
            continue
        for call in event.get_function_calls():
            if call.name != REQUEST_INPUT_FUNCTION_CALL_NAME or not call.id:
                continue
            if call.id in replies:
                answer = replies[call.id]
            elif call.id in answered or message is None or replies:
                continue
            else:
                answer = _parsed(_text(message))
            schema = (call.args or {}).get("response_schema")
            if schema is not None:
                from yadk.workflow._confirmation import confirmation_answer
                from yadk.workflow._schemas import check_answer

                answer = check_answer(confirmation_answer(call.id, answer), schema)
            node_input: Any = record.get("input")
            if "content" in record:
                node_input = Content.model_validate(record["content"])
            return ResumePoint(str(record["path"]), call.id, answer, node_input)
    return None


def _answers(events: list[Event]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for event in events:
        for response in event.get_function_responses():
            if response.id and response.name == REQUEST_INPUT_FUNCTION_CALL_NAME:
                value: Any = response.response
                if isinstance(value, dict) and set(value) == {"result"}:
                    value = _parsed(value["result"])
                out[response.id] = value
    return out


def _parsed(value: Any) -> Any:
    """A text answer as the JSON it holds, if it holds JSON (as google-adk reads the web UI's
    ``{"result": text}``)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _text(message: Content) -> str:
    return "".join(p.text for p in message.parts if p.text and not p.thought)
