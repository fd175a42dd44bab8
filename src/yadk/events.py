"""Events: what an invocation produces, and the state changes each one carries.

An event is immutable once a session service has appended it: services hand out the same event
objects to every reader instead of deep-copying them, which keeps session reads O(new events).
"""

from __future__ import annotations

import os
import time
from typing import Any

from pydantic import ConfigDict, Field, model_validator

from yadk._sealed import Sealable
from yadk._tool_confirmation import ToolConfirmation
from yadk.types import Content, FunctionCall, FunctionResponse, Part

__all__ = ["CacheMetadata", "Event", "EventActions", "EventCompaction", "NodeInfo"]


def new_event_id() -> str:
    """A random (version 4) UUID in its text form, as ``str(uuid.uuid4())`` gives it, built
    without the ``UUID`` object (an event is made per model answer, tool call and node run)."""
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40  # version 4
    raw[8] = (raw[8] & 0x3F) | 0x80  # RFC 4122 variant
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


class EventCompaction(Sealable):
    """A summary that stands for the events stored between two timestamps (google-adk's
    ``EventCompaction``): requests carry ``compacted_content`` instead of those events, which
    stay in the store."""

    model_config = ConfigDict(extra="forbid")

    start_timestamp: float
    end_timestamp: float
    compacted_content: Content


class CacheMetadata(Sealable):
    """Gemini context caching state on a model event (google-adk's ``CacheMetadata``).

    Active (``cache_name``, ``expire_time`` and ``invocations_used`` set): the cachedContents
    resource the request used and how many invocations have used it. Fingerprint only (those
    three ``None``): the hash and size of the prefix a later request may cache, when it starts
    the same way."""

    model_config = ConfigDict(extra="forbid")

    cache_name: str | None = None
    expire_time: float | None = None
    fingerprint: str
    invocations_used: int | None = Field(default=None, ge=0)
    contents_count: int = Field(ge=0)
    created_at: float | None = None

    @model_validator(mode="after")
    def _active_or_fingerprint(self) -> CacheMetadata:
        active = (self.cache_name, self.expire_time, self.invocations_used)
        if len({value is not None for value in active}) > 1:
            raise ValueError(
                "cache_name, expire_time, and invocations_used must all be set (active cache)"
                " or all be None (fingerprint-only state)"
            )
        return self

    @property
    def expire_soon(self) -> bool:
        """Whether the cache expires within two minutes (the time a call may take)."""
        return self.expire_time is not None and time.time() > self.expire_time - 120


class EventActions(Sealable):
    """Side effects an event carries: state and artifact changes and control flow."""

    model_config = ConfigDict(extra="forbid")

    state_delta: dict[str, Any] = Field(default_factory=dict)
    artifact_delta: dict[str, int] = Field(default_factory=dict)
    transfer_to_agent: str | None = None
    escalate: bool | None = None
    skip_summarization: bool | None = None
    # The route a workflow node took (google-adk 2's ``route``): which outgoing edges fire.
    route: bool | int | str | list[bool | int | str] | None = None
    # A compaction event's summary and the range it replaces (App event compaction).
    compaction: EventCompaction | None = None
    # The validated answer a ``set_model_response`` call gave (an output schema beside tools).
    set_model_response: Any = None
    # Tool calls waiting on the user's confirmation, by function call id (google-adk's
    # ``requested_tool_confirmations``): ``require_confirmation`` or a tool's own
    # ``tool_context.request_confirmation(...)``.
    requested_tool_confirmations: dict[str, ToolConfirmation] = Field(default_factory=dict)

    def is_empty(self) -> bool:
        return not (
            self.state_delta
            or self.artifact_delta
            or self.transfer_to_agent
            or self.escalate
            or self.skip_summarization
            or self.route is not None
            or self.compaction is not None
            or self.set_model_response is not None
            or bool(self.requested_tool_confirmations)
        )


class NodeInfo(Sealable):
    """Where in a run's graph an event comes from (google-adk 2's ``node_info``): a workflow
    node, or an LlmAgent (``root@1``, ``root@1/child@1`` for a transfer target).

    ``path`` is the node's run path, ``flow@1/writer@2`` (the second run of ``writer`` in the first
    run of ``flow``); ``output_for`` lists the run paths whose output the event's ``output`` is;
    ``message_as_output`` says the event's text is the node's output (an agent's answer).
    """

    model_config = ConfigDict(extra="forbid")

    path: str = ""
    output_for: list[str] | None = None
    message_as_output: bool | None = None


class Event(Sealable):
    """One entry in a session's history: a message, a tool call or result, or a state change."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    id: str = Field(default_factory=new_event_id)
    invocation_id: str = ""
    author: str
    branch: str | None = None
    # The scope of the ``ctx.run_node(..., override_isolation_scope=...)`` run that produced
    # the event: an agent running under a scope sees only the events of that scope, an agent
    # under none only the events of none (google-adk 2.13's ``isolation_scope``).
    isolation_scope: str | None = None
    timestamp: float = Field(default_factory=time.time)
    content: Content | None = None
    actions: EventActions = Field(default_factory=EventActions)
    partial: bool | None = None
    turn_complete: bool | None = None
    error_code: str | None = None
    error_message: str | None = None
    # Why the model stopped (Gemini's ``STOP``, ``MAX_TOKENS``, ...), as google-adk keeps it.
    finish_reason: str | None = None
    custom_metadata: dict[str, Any] | None = None
    usage_metadata: dict[str, Any] | None = None  # the model call's token counts
    # Ids of this event's function calls to long-running tools: their final responses arrive
    # later, in a message from the user (google-adk's human-in-the-loop).
    long_running_tool_ids: set[str] | None = None
    # The model's grounding (Gemini's google_search / url_context), as google-adk keeps it.
    grounding_metadata: dict[str, Any] | None = None
    # Gemini context caching: the cache the model call used, or the prefix it may cache next.
    cache_metadata: CacheMetadata | None = None
    # The model version that answered, Gemini's log probabilities and citations, as google-adk
    # keeps them on its events (from the model's response).
    model_version: str | None = None
    avg_logprobs: float | None = None
    logprobs_result: dict[str, Any] | None = None
    citation_metadata: dict[str, Any] | None = None
    # A workflow node's output value, and the node or LlmAgent run that produced the event
    # (google-adk 2).
    output: Any = None
    node_info: NodeInfo | None = None

    def __init__(self, **data: Any) -> None:
        # google-adk 2's shorthands for workflow nodes: ``Event(output=..., state={...},
        # route=..., message="...")``. Done here, not in a validator, so reading stored events
        # back (model_validate) pays nothing for them.
        if "author" not in data:
            data["author"] = ""
        if "message" in data:
            message = data.pop("message")
            if message is not None:
                if data.get("content") is not None:
                    raise ValueError("'message' and 'content' are mutually exclusive.")
                data["content"] = _message_content(message)
        state = data.pop("state", None)
        route = data.pop("route", None)
        if state is not None or route is not None:
            actions = data.get("actions")
            fields = (
                actions.model_dump(exclude_defaults=True)
                if isinstance(actions, EventActions)
                else dict(actions or {})
            )
            if state is not None:
                fields["state_delta"] = dict(state)
            if route is not None:
                fields["route"] = route
            data["actions"] = fields
        node_path = data.pop("node_path", None)
        if node_path is not None:
            data["node_info"] = NodeInfo(path=node_path)
        super().__init__(**data)

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

    @property
    def message(self) -> Content | None:
        """The event's content (google-adk 2's name for it on workflow events)."""
        return self.content


def _message_content(message: Any) -> Content:
    """``Event(message=...)``: a string or parts become a user-role content, as google-genai's
    content conversion makes them."""
    if isinstance(message, Content):
        return message
    if isinstance(message, str):
        return Content(role="user", parts=[Part(text=message)])
    if isinstance(message, Part):
        return Content(role="user", parts=[message])
    if isinstance(message, list):
        return Content(
            role="user",
            parts=[Part(text=p) if isinstance(p, str) else Part.model_validate(p) for p in message],
        )
    return Content.model_validate(message)
