"""InMemorySessionService: sessions in process memory, with ADK's scoping rules.

Events are stored as the JSON a durable store would write (so values a database could not hold
are refused here too, naming the key), and parsed once, by the first read that needs them, into
frozen events (``_frozen``) that every later read shares: a read of 1,000 events copies 1,000
references, not 1,000 events, and no caller can change what is stored (or what another reader
sees): an edit raises ``ImmutableEventError``. State is handed out as a
fresh copy of the JSON a durable store would write, and values a database could not hold are
refused here too, naming the key.
"""

from __future__ import annotations

import itertools
import json
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
from yadk.sessions._codec import (
    dump_event,
    dump_state,
    load_events,
    load_state,
    stored_delta,
)
from yadk.sessions._session import Session
from yadk.sessions._state import merge_scopes, split_scopes

__all__ = ["InMemorySessionService"]

_epochs = itertools.count(1)


@dataclass
class _Record:
    # The session-scoped state, each value as its JSON text (a copy no caller can change).
    state: dict[str, str]
    # The JSON of the whole ``state``, written when a read needs it (None: changed since).
    state_json: str | None = None
    events: list[Event] = field(default_factory=list)  # frozen, parsed from ``unread``
    unread: list[str] = field(default_factory=list)  # the JSON of the events appended since
    timestamps: list[float] = field(default_factory=list)
    event_ids: set[str] = field(default_factory=set)
    last_update_time: float = 0.0
    # Unique per creation, so a session deleted and created again is told apart.
    epoch: float = field(default_factory=lambda: float(next(_epochs)))

    @property
    def version(self) -> int:
        return len(self.events) + len(self.unread)

    def read(self, where: str) -> list[Event]:
        """All the events, frozen; the ones appended since the last read are parsed now."""
        if self.unread:
            self.events += load_events(self.unread, where)
            self.unread = []
        return self.events

    def update_state(self, delta: dict[str, Any]) -> None:
        for key, value in delta.items():
            self.state[key] = json.dumps(value, ensure_ascii=False)
        self.state_json = None

    def state_text(self) -> str:
        if self.state_json is None:
            pairs = (f"{json.dumps(k, ensure_ascii=False)}:{v}" for k, v in self.state.items())
            self.state_json = "{" + ",".join(pairs) + "}"
        return self.state_json


class InMemorySessionService(BaseSessionService):
    """Keeps sessions in memory; reads share the stored (frozen) events."""

    def __init__(self) -> None:
        self._sessions: dict[tuple[str, str, str], _Record] = {}
        self._app_state: dict[str, str] = {}
        self._user_state: dict[tuple[str, str], str] = {}

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
        dump_state(session_state)  # refuses values a database could not hold, naming the key
        record = _Record(state={}, last_update_time=time.time())
        record.update_state(session_state)
        self._merge_scopes(app_name, user_id, app_delta, user_delta)
        self._sessions[key] = record
        return self._snapshot(key, record, None, None)

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
        key = (app_name, user_id, session_id)
        record = self._sessions.get(key)
        if record is None:
            return None
        if config is not None:
            num_recent_events = config.num_recent_events
            after_timestamp = config.after_timestamp
        return self._snapshot(key, record, num_recent_events, after_timestamp)

    async def refresh_session(self, session: Session) -> bool:
        key = (session.app_name, session.user_id, session.id)
        record = self._sessions.get(key)
        if record is None:
            return False
        have = session.storage_version
        if have is None or have > record.version or session.storage_epoch != record.epoch:
            return await super().refresh_session(session)
        session.events.extend(record.read(f"session {session.id!r}")[have:])
        session.state = self._state(key, record)
        session.last_update_time = record.last_update_time
        session.storage_version = record.version
        return True

    async def list_sessions(
        self, *, app_name: str, user_id: str | None = None
    ) -> ListSessionsResponse:
        sessions = [
            self._snapshot(key, record, 0, None)
            for key, record in self._sessions.items()
            if key[0] == app_name and (user_id is None or key[1] == user_id)
        ]
        return ListSessionsResponse(sessions=sessions)

    async def list_app_names(self) -> list[str]:
        """The apps that have sessions here (for ``yadk sessions``)."""
        return sorted({key[0] for key in self._sessions})

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
        if event.id in record.event_ids:
            return event
        recreated = session.storage_epoch is not None and session.storage_epoch != record.epoch
        if session.storage_version is not None and (
            session.storage_version != record.version or recreated
        ):
            raise StaleSessionError(
                f"Session {session.id!r} changed since this copy was read"
                f" (copy is version {session.storage_version}, stored is {record.version});"
                " read it again with get_session() before appending."
            )
        delta = stored_delta(event)
        record.unread.append(dump_event(event, delta))
        app_delta, user_delta, session_delta = split_scopes(delta)
        if session_delta:
            record.update_state(session_delta)
        self._merge_scopes(session.app_name, session.user_id, app_delta, user_delta)
        record.timestamps.append(event.timestamp)
        record.event_ids.add(event.id)
        record.last_update_time = event.timestamp
        apply_event(session, event)
        session.storage_version = record.version
        return event

    def _merge_scopes(
        self, app_name: str, user_id: str, app_delta: dict[str, Any], user_delta: dict[str, Any]
    ) -> None:
        if app_delta:
            app = load_state(self._app_state.get(app_name, "{}"), "app state")
            app.update(app_delta)
            self._app_state[app_name] = dump_state(app)
        if user_delta:
            user = load_state(self._user_state.get((app_name, user_id), "{}"), "user state")
            user.update(user_delta)
            self._user_state[(app_name, user_id)] = dump_state(user)

    def _state(self, key: tuple[str, str, str], record: _Record) -> dict[str, Any]:
        return merge_scopes(
            load_state(self._app_state.get(key[0], "{}"), "app state"),
            load_state(self._user_state.get(key[:2], "{}"), "user state"),
            load_state(record.state_text(), f"session {key[2]!r}"),
        )

    def _snapshot(
        self,
        key: tuple[str, str, str],
        record: _Record,
        num_recent_events: int | None,
        after_timestamp: float | None,
    ) -> Session:
        # list_sessions asks for no events: nothing appended since is parsed for it.
        stored = [] if num_recent_events == 0 else record.read(f"session {key[2]!r}")
        if num_recent_events is None and after_timestamp is None:
            events = list(stored)
        else:
            indexes = select_events(
                list(range(len(stored))),
                record.timestamps,
                num_recent_events,
                after_timestamp,
            )
            events = [stored[i] for i in indexes]
        return Session(
            id=key[2],
            app_name=key[0],
            user_id=key[1],
            state=self._state(key, record),
            events=events,
            last_update_time=record.last_update_time,
            storage_version=record.version,
            storage_epoch=record.epoch,
        )
