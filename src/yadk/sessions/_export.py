"""A session as one JSON document: the format of ``yadk sessions export`` (and of the web UI's
Export button), read back by ``yadk sessions import``.

    {"format": "yadk.session/1", "app_name", "user_id", "id", "last_update_time",
     "state": {"session": {...}, "user": {...}, "app": {...}}, "events": [...]}

State is split by scope, with the ``user:``/``app:`` prefixes taken off the keys.
"""

from __future__ import annotations

from typing import Any

from yadk.events import Event
from yadk.sessions._session import Session
from yadk.sessions._state import State

__all__ = ["EXPORT_FORMAT", "export_document", "initial_state", "state_scopes"]

EXPORT_FORMAT = "yadk.session/1"


def export_document(session: Session) -> dict[str, Any]:
    """``session`` (with its events) as the export document."""
    return {
        "format": EXPORT_FORMAT,
        "app_name": session.app_name,
        "user_id": session.user_id,
        "id": session.id,
        "last_update_time": session.last_update_time,
        "state": state_scopes(session.state),
        "events": [e.to_dict() for e in session.events],
    }


def state_scopes(state: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``state`` split into its ``session``, ``user`` and ``app`` scopes, prefixes removed."""
    scopes: dict[str, dict[str, Any]] = {"session": {}, "user": {}, "app": {}}
    for key, value in sorted(state.items()):
        if key.startswith(State.USER_PREFIX):
            scopes["user"][key[len(State.USER_PREFIX) :]] = value
        elif key.startswith(State.APP_PREFIX):
            scopes["app"][key[len(State.APP_PREFIX) :]] = value
        else:
            scopes["session"][key] = value
    return scopes


def initial_state(scopes: dict[str, dict[str, Any]], events: list[Event]) -> dict[str, Any]:
    """The state to create an exported session with before its events are appended again:
    the keys no event sets (the events' deltas then replay the rest, in order)."""
    state: dict[str, Any] = dict(scopes.get("session", {}))
    state.update({State.USER_PREFIX + k: v for k, v in scopes.get("user", {}).items()})
    state.update({State.APP_PREFIX + k: v for k, v in scopes.get("app", {}).items()})
    for event in events:
        for key in event.actions.state_delta:
            state.pop(key, None)
    return state
