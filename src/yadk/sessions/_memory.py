"""InMemorySessionService: sessions in process memory, with ADK's scoping rules."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from yadk.errors import AlreadyExistsError, SessionNotFoundError, StaleSessionError
from yadk.events import Event
from yadk.sessions._base import (
    BaseSessionService,
    GetSessionConfig,
    ListSessionsResponse,
    apply_event,
    select_events,
)
from yadk.sessions._session import Session
from yadk.sessions._state import merge_scopes, split_scopes

__all__ = ["InMemorySessionService"]


@dataclass
class _Record:
    state: dict[str, Any]
    events: list[Event] = field(default_factory=list)
    last_update_time: float = 0.0
    version: int = 0


class InMemorySessionService(BaseSessionService):
    """Keeps sessions in memory. Reads copy the state dicts and the event list, not the events."""

    def __init__(self) -> None:
        self._sessions: dict[tuple[str, str, str], _Record] = {}
        self._app_state: dict[str, dict[str, Any]] = {}
        self._user_state: dict[tuple[str, str], dict[str, Any]] = {}

    async def create_session(
        self,
        *,
        app_name: str,
        user_id: str,
        state: dict[str, Any] | None = None,
        session_id: str | None = None,
    ) -> Session:
        return self.create_session_sync(
            app_name=app_name, user_id=user_id, state=state, session_id=session_id
        )

    def create_session_sync(
        self,
        *,
        app_name: str,
        user_id: str,
        state: dict[str, Any] | None = None,
        session_id: str | None = None,
    ) -> Session:
        """``create_session`` without a coroutine, for test fixtures built outside a loop."""
        session_id = (session_id or "").strip() or str(uuid.uuid4())
        key = (app_name, user_id, session_id)
        if key in self._sessions:
            raise AlreadyExistsError(f"Session with id {session_id!r} already exists.")
        app_delta, user_delta, session_state = split_scopes(state or {})
        self._app_state.setdefault(app_name, {}).update(app_delta)
        self._user_state.setdefault((app_name, user_id), {}).update(user_delta)
        record = _Record(state=session_state, last_update_time=time.time())
        self._sessions[key] = record
        return self._snapshot(app_name, user_id, session_id, record, None, None)

    async def get_session(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        config: GetSessionConfig | None = None,
        num_recent_events: int | None = None,
        after_timestamp: float | None = None,
    ) -> Session | None:
        record = self._sessions.get((app_name, user_id, session_id))
        if record is None:
            return None
        if config is not None:
            num_recent_events = config.num_recent_events
            after_timestamp = config.after_timestamp
        return self._snapshot(
            app_name, user_id, session_id, record, num_recent_events, after_timestamp
        )

    async def list_sessions(
        self, *, app_name: str, user_id: str | None = None
    ) -> ListSessionsResponse:
        sessions = [
            self._snapshot(app, user, sid, record, 0, None)
            for (app, user, sid), record in self._sessions.items()
            if app == app_name and (user_id is None or user == user_id)
        ]
        return ListSessionsResponse(sessions=sessions)

    async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
        self._sessions.pop((app_name, user_id, session_id), None)

    async def append_event(self, session: Session, event: Event) -> Event:
        if event.partial:
            return event
        record = self._sessions.get((session.app_name, session.user_id, session.id))
        if record is None:
            raise SessionNotFoundError(
                f"Session {session.id!r} of user {session.user_id!r} in app {session.app_name!r}"
                " does not exist; create it with create_session() first."
            )
        if session.storage_version is not None and session.storage_version != record.version:
            raise StaleSessionError(
                f"Session {session.id!r} changed since this copy was read"
                f" (copy is version {session.storage_version}, stored is {record.version});"
                " read it again with get_session() before appending."
            )
        apply_event(session, event)
        app_delta, user_delta, session_delta = split_scopes(event.actions.state_delta)
        if app_delta:
            self._app_state.setdefault(session.app_name, {}).update(app_delta)
        if user_delta:
            self._user_state.setdefault((session.app_name, session.user_id), {}).update(user_delta)
        record.state.update(session_delta)
        record.events.append(event)
        record.last_update_time = event.timestamp
        record.version += 1
        session.storage_version = record.version
        return event

    def _snapshot(
        self,
        app_name: str,
        user_id: str,
        session_id: str,
        record: _Record,
        num_recent_events: int | None,
        after_timestamp: float | None,
    ) -> Session:
        state = merge_scopes(
            self._app_state.get(app_name, {}),
            self._user_state.get((app_name, user_id), {}),
            record.state,
        )
        return Session(
            id=session_id,
            app_name=app_name,
            user_id=user_id,
            state=state,
            events=select_events(record.events, num_recent_events, after_timestamp),
            last_update_time=record.last_update_time,
            storage_version=record.version,
        )
