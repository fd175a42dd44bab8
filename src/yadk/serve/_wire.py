"""google-adk api_server's JSON: request bodies and how sessions, events and artifacts look on
the wire (camelCase keys, fields left out when empty, as ``model_dump(by_alias=True,
exclude_none=True)`` gives in google-adk 2.13).

User data (state keys, function arguments, artifact names) is never renamed: only the field
names of the protocol's own objects are camelCased.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from yadk._case import camel_keys, snake_case, snake_keys
from yadk.events import Event, NodeInfo
from yadk.sessions import Session
from yadk.types import Content, Part

__all__ = [
    "CreateSessionRequest",
    "RunAgentRequest",
    "SaveArtifactRequest",
    "UpdateSessionRequest",
    "event_from_json",
    "event_json",
    "session_json",
]

# Always present in google-adk's event actions, even when empty.
_ACTION_DEFAULTS: dict[str, Any] = {
    "stateDelta": {},
    "artifactDelta": {},
    "requestedAuthConfigs": {},
    "requestedToolConfirmations": {},
}


class _Body(BaseModel):
    """A request body: camelCase or snake_case field names, as google-adk accepts both."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class RunAgentRequest(_Body):
    """The body of ``POST /run`` and ``POST /run_sse``."""

    app_name: str | None = Field(default=None, max_length=256)
    user_id: str = Field(max_length=256)
    session_id: str = Field(max_length=256)
    new_message: Content | None = None
    streaming: bool = False
    state_delta: dict[str, Any] | None = None
    function_call_event_id: str | None = None
    invocation_id: str | None = None
    custom_metadata: dict[str, Any] | None = None


class CreateSessionRequest(_Body):
    """The body of ``POST /apps/{app}/users/{user}/sessions`` (all optional)."""

    session_id: str | None = Field(default=None, max_length=256)
    state: dict[str, Any] | None = None
    events: list[dict[str, Any]] | None = None


class UpdateSessionRequest(_Body):
    """The body of ``PATCH /apps/{app}/users/{user}/sessions/{id}``."""

    state_delta: dict[str, Any]


class SaveArtifactRequest(_Body):
    """The body of ``POST .../sessions/{id}/artifacts``."""

    filename: str = Field(min_length=1, max_length=1024)
    artifact: Part
    custom_metadata: dict[str, Any] | None = None


def content_json(content: Content | Part) -> dict[str, Any]:
    return content.model_dump(mode="json", by_alias=True, exclude_none=True)


def event_json(event: Event) -> dict[str, Any]:
    """An event as google-adk's api_server sends it."""
    data: dict[str, Any] = {}
    for key, value in event.model_dump(
        mode="json", exclude_none=True, exclude={"content", "actions", "node_info"}
    ).items():
        data[to_camel(key)] = value
    if event.content is not None:
        data["content"] = content_json(event.content)
    actions = dict(_ACTION_DEFAULTS)
    for key, value in event.actions.model_dump(mode="json", exclude_none=True).items():
        actions[to_camel(key)] = value
    data["actions"] = actions
    # google-adk sends ``nodeInfo`` on every event, with an empty path for the events of no
    # node (the user's, those of the agents a SequentialAgent at the root runs).
    info = event.node_info if event.node_info is not None else NodeInfo()
    data["nodeInfo"] = {
        to_camel(key): value
        for key, value in info.model_dump(mode="json", exclude_none=True).items()
    }
    for key in _GENAI_FIELDS:  # google-genai's objects, camelCased at every depth like the rest
        if key in data:
            data[key] = camel_keys(data[key])
    if event.get_function_calls() and "longRunningToolIds" not in data:
        data["longRunningToolIds"] = []
    return data


# Event fields holding google-genai objects (snake_case in yadk, camelCase on the wire).
_GENAI_FIELDS = ("usageMetadata", "groundingMetadata", "citationMetadata", "logprobsResult")


def session_json(session: Session) -> dict[str, Any]:
    """A session with its events, as google-adk's api_server sends it."""
    return {
        "appName": session.app_name,
        "events": [event_json(event) for event in session.events],
        "id": session.id,
        "lastUpdateTime": session.last_update_time,
        "state": session.state,
        "userId": session.user_id,
    }


# google-adk fields that yadk's events do not hold: accepted on the way in and dropped.
_FOREIGN = frozenset(
    {
        "long_running_tool_ids",
        "requested_auth_configs",
        "usage_metadata",
    }
)


def _snake_fields(data: dict[str, Any]) -> dict[str, Any]:
    return {snake_case(k): v for k, v in data.items() if snake_case(k) not in _FOREIGN}


def event_from_json(data: dict[str, Any]) -> Event:
    """An event sent in google-adk's shape (camelCase or snake_case keys); raises
    ``pydantic.ValidationError`` when it is not one."""
    fields = _snake_fields(data)
    if isinstance(fields.get("actions"), dict):
        fields["actions"] = _snake_fields(fields["actions"])
    for key in ("grounding_metadata", "citation_metadata", "logprobs_result"):
        if isinstance(fields.get(key), dict):
            fields[key] = snake_keys(fields[key])
    if isinstance(fields.get("node_info"), dict):
        fields["node_info"] = _snake_fields(fields["node_info"])
        if not any(fields["node_info"].values()):  # ``{"path": ""}``: the event of no node
            del fields["node_info"]
    return Event.model_validate(fields)
