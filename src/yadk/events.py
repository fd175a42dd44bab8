"""Events: what an invocation produces, and the state changes each one carries.

An event is immutable once a session service has appended it: services hand out the same event
objects to every reader instead of deep-copying them, which keeps session reads O(new events).
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from yadk.types import Content, FunctionCall, FunctionResponse

__all__ = ["Event", "EventActions"]


def new_event_id() -> str:
    return str(uuid.uuid4())


class EventActions(BaseModel):
    """Side effects an event carries: state and artifact changes and control flow."""

    model_config = ConfigDict(extra="forbid")

    state_delta: dict[str, Any] = Field(default_factory=dict)
    artifact_delta: dict[str, int] = Field(default_factory=dict)
    transfer_to_agent: str | None = None
    escalate: bool | None = None
    skip_summarization: bool | None = None

    def is_empty(self) -> bool:
        return not (
            self.state_delta
            or self.artifact_delta
            or self.transfer_to_agent
            or self.escalate
            or self.skip_summarization
        )


class Event(BaseModel):
    """One entry in a session's history: a message, a tool call or result, or a state change."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    id: str = Field(default_factory=new_event_id)
    invocation_id: str = ""
    author: str
    branch: str | None = None
    timestamp: float = Field(default_factory=time.time)
    content: Content | None = None
    actions: EventActions = Field(default_factory=EventActions)
    partial: bool | None = None
    turn_complete: bool | None = None
    error_code: str | None = None
    error_message: str | None = None
    custom_metadata: dict[str, Any] | None = None
    usage_metadata: dict[str, Any] | None = None  # the model call's token counts
    # Ids of this event's function calls to long-running tools: their final responses arrive
    # later, in a message from the user (google-adk's human-in-the-loop).
    long_running_tool_ids: set[str] | None = None
    # The model's grounding (Gemini's google_search / url_context), as google-adk keeps it.
    grounding_metadata: dict[str, Any] | None = None

    def get_function_calls(self) -> list[FunctionCall]:
        if self.content is None:
            return []
        return [p.function_call for p in self.content.parts if p.function_call is not None]

    def get_function_responses(self) -> list[FunctionResponse]:
        if self.content is None:
            return []
        return [p.function_response for p in self.content.parts if p.function_response is not None]

    def is_final_response(self) -> bool:
        """True for an event that ends the agent's turn (no pending calls, not partial)."""
        if self.actions.skip_summarization or self.long_running_tool_ids:
            return True
        return (
            not self.partial
            and not self.get_function_calls()
            and not self.get_function_responses()
            and not self.has_trailing_code_execution_result()
        )

    def has_trailing_code_execution_result(self) -> bool:
        """True when the content ends with a ``code_execution_result`` (the model goes on)."""
        parts = self.content.parts if self.content is not None else []
        return bool(parts) and parts[-1].code_execution_result is not None

    @property
    def text(self) -> str:
        """The event's text parts joined (thoughts left out)."""
        if self.content is None:
            return ""
        return "".join(p.text for p in self.content.parts if p.text is not None and not p.thought)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)
