"""LongRunningFunctionTool and the human-in-the-loop flow around it (google-adk's).

The model calls the tool; its function call event records the call id in
``Event.long_running_tool_ids``. What the function returns first (e.g. ``{"status": "pending"}``)
goes back to the model like any result; if it returns nothing, no response is sent and the
invocation ends waiting. Later, a message from the user carrying a ``function_response`` with the
same id (and name) resumes the conversation: the model then sees the call followed directly by
that final response.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from yadk.events import Event
from yadk.models import FunctionDeclaration
from yadk.tools._function import FunctionTool
from yadk.types import FunctionCall

__all__ = ["LONG_RUNNING_NOTE", "LongRunningFunctionTool", "pending_calls"]

LONG_RUNNING_NOTE = (
    "\n\nNOTE: This is a long-running operation. Do not call this tool"
    " again if it has already returned some intermediate or pending"
    " status."
)


class LongRunningFunctionTool(FunctionTool):
    """A function tool whose final result arrives later, from outside (a person, a job)."""

    is_long_running = True

    def __init__(self, func: Callable[..., Any], **options: Any) -> None:
        super().__init__(func, **options)

    def declaration(self) -> FunctionDeclaration:
        declaration = super().declaration().model_copy()
        declaration.description = (
            declaration.description + LONG_RUNNING_NOTE
            if declaration.description
            else LONG_RUNNING_NOTE.lstrip()
        )
        return declaration


def pending_calls(events: Sequence[Event]) -> list[FunctionCall]:
    """Long-running calls still waiting for their final response: no message from the user has
    answered them yet (an interim answer the tool itself gave does not count)."""
    answered = {
        r.id for e in events if e.author == "user" for r in e.get_function_responses() if r.id
    }
    waiting: list[FunctionCall] = []
    for event in events:
        ids = event.long_running_tool_ids or set()
        for call in event.get_function_calls():
            if call.id in ids and call.id not in answered:
                waiting.append(call)
    return waiting
