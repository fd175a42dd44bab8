"""A2A objects as JSON, in the shape of the protocol version the caller speaks.

1.0 is the protobuf JSON of a2a.proto (``TASK_STATE_COMPLETED``, ``ROLE_AGENT``, results wrapped
in their oneof field: ``{"task": {...}}``); 0.3 has ``kind`` on every object, short state and role
names, and a ``final`` flag on status updates.
"""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Sequence
from typing import Any

from yadk.a2a import Protocol, parts_to_a2a
from yadk.serve._a2a_tasks import TERMINAL, HistoryEntry, TaskView
from yadk.types import Part

__all__ = [
    "ANSWER_ARTIFACT",
    "artifact_json",
    "artifact_update",
    "message_json",
    "state_json",
    "status_update",
    "task_json",
    "wrap",
]

ANSWER_ARTIFACT = "response"
LONG_RUNNING_KEY = "adk_is_long_running"


def state_json(state: str, version: Protocol) -> str:
    if version == "0.3":
        return state
    return "TASK_STATE_" + state.upper().replace("-", "_")


def _role(role: str, version: Protocol) -> str:
    return role if version == "0.3" else f"ROLE_{role.upper()}"


def _timestamp(seconds: float) -> str:
    moment = datetime.datetime.fromtimestamp(seconds, tz=datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def message_json(
    role: str,
    parts: Sequence[Part],
    version: Protocol,
    *,
    context_id: str,
    task_id: str | None,
    message_id: str | None = None,
) -> dict[str, Any]:
    message: dict[str, Any] = {"messageId": message_id or str(uuid.uuid4())}
    if version == "0.3":
        message["kind"] = "message"
    message["role"] = _role(role, version)
    message["parts"] = parts_to_a2a(parts, version=version)
    message["contextId"] = context_id
    if task_id:
        message["taskId"] = task_id
    return message


def _status(view: TaskView, version: Protocol, state: str | None = None) -> dict[str, Any]:
    status: dict[str, Any] = {"state": state_json(state or view.state, version)}
    if view.status_parts and state is None:
        status["message"] = message_json(
            "agent", view.status_parts, version, context_id=view.context_id, task_id=view.id
        )
        _mark_waiting(status["message"]["parts"], view)
    status["timestamp"] = _timestamp(view.timestamp)
    return status


def _mark_waiting(parts: list[dict[str, Any]], view: TaskView) -> None:
    """Mark the calls the task waits for as google-adk's server does (``adk_is_long_running``):
    its ``RemoteA2aAgent`` takes a call so marked as the one to answer."""
    waiting = {call.id for call in view.pending}
    for part in parts:
        data = part.get("data")
        meta = part.get("metadata")
        if isinstance(data, dict) and data.get("id") in waiting and isinstance(meta, dict):
            if meta.get("adk_type") == "function_call":
                meta[LONG_RUNNING_KEY] = True


def artifact_json(
    artifact_id: str, name: str, parts: Sequence[Part], version: Protocol
) -> dict[str, Any]:
    return {"artifactId": artifact_id, "name": name, "parts": parts_to_a2a(parts, version=version)}


def task_json(
    view: TaskView,
    version: Protocol,
    *,
    history_length: int | None = None,
    saved: Sequence[tuple[str, Part]] = (),
    include_artifacts: bool = True,
) -> dict[str, Any]:
    """The task as the protocol shows it. ``saved`` are the files the task saved as artifacts
    (name, content); ``history_length`` keeps the last messages only (``None``: all)."""
    task: dict[str, Any] = {"id": view.id, "contextId": view.context_id}
    if version == "0.3":
        task["kind"] = "task"
    task["status"] = _status(view, version)
    artifacts = []
    if view.answer:
        artifacts.append(
            artifact_json(f"{view.id}-{ANSWER_ARTIFACT}", ANSWER_ARTIFACT, view.answer, version)
        )
    for name, part in saved:
        artifacts.append(artifact_json(f"{view.id}-file-{name}", name, [part], version))
    if artifacts and include_artifacts:
        task["artifacts"] = artifacts
    history = _history(view.history, history_length)
    if history:
        task["history"] = [
            message_json(
                h.role,
                h.parts,
                version,
                context_id=view.context_id,
                task_id=view.id,
                message_id=h.message_id,
            )
            for h in history
        ]
    return task


def _history(history: list[HistoryEntry], length: int | None) -> list[HistoryEntry]:
    if length is None:
        return history
    return history[-length:] if length > 0 else []


def status_update(view: TaskView, version: Protocol, state: str | None = None) -> dict[str, Any]:
    """A status-update stream event (``state`` overrides the view's, without its message)."""
    event: dict[str, Any] = {"taskId": view.id, "contextId": view.context_id}
    if version == "0.3":
        event["kind"] = "status-update"
    event["status"] = _status(view, version, state)
    if version == "0.3":
        effective = state or view.state
        event["final"] = effective in TERMINAL or effective == "input-required"
    return event


def artifact_update(
    view: TaskView, parts: Sequence[Part], version: Protocol, *, append: bool
) -> dict[str, Any]:
    """An artifact-update stream event adding ``parts`` to the task's answer."""
    event: dict[str, Any] = {"taskId": view.id, "contextId": view.context_id}
    if version == "0.3":
        event["kind"] = "artifact-update"
    event["artifact"] = artifact_json(
        f"{view.id}-{ANSWER_ARTIFACT}", ANSWER_ARTIFACT, parts, version
    )
    event["append"] = append
    event["lastChunk"] = False
    return event


def wrap(kind: str, payload: dict[str, Any], version: Protocol) -> dict[str, Any]:
    """A result as its method returns it: 1.0 puts it in its oneof field (``task``,
    ``statusUpdate``, ``artifactUpdate``, ``message``); 0.3 sends the object itself."""
    return payload if version == "0.3" else {kind: payload}
