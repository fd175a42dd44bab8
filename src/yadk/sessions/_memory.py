"""InMemorySessionService: sessions in process memory, with ADK's scoping rules.

An appended event is sealed (``yadk._sealed``) and kept as it is: every later read shares it, a
read of 1,000 events copies 1,000 references, not 1,000 events, and no caller can change what is
stored (or what another reader sees): an edit raises ``ImmutableEventError``. Nothing is copied
or serialised: state is kept as the frozen values of the events that set it, and each read hands
out a copy of the state whose containers (lists, dicts) are the reader's own. Values a database
could not hold are refused here too, naming the key, and the size caps of ``_limits`` apply as
they do on the durable stores.
"""

from __future__ import annotations

import itertools
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from yadk._sealed import freeze_json, seal_event, thaw
from yadk.errors import (
    AlreadyExistsError,
    SessionError,
    SessionNotFoundError,
    StaleSessionError,
)
from yadk.events import Event
from yadk.sessions._base import (
    BaseSessionService,
    GetSessionConfig,
    ListSessionsResponse,
    SessionKey,
    apply_event,
    event_window,
    recent_page,
    select_events,
)
from yadk.sessions._codec import refuse_key, written_by
from yadk.sessions._limits import SizeLimits, plain_json
from yadk.sessions._session import Session
from yadk.sessions._state import State, merge_scopes

__all__ = ["InMemorySessionService"]

_epochs = itertools.count(1)
_TEMP = State.TEMP_PREFIX
_APP = State.APP_PREFIX
_USER = State.USER_PREFIX


class _Scope:
    """One scope's state (a session's, a user's, an app's): frozen values, shared with the
    events that set them, and about the size of each as JSON, kept up to date so that the
    state cap costs an append only the keys it writes."""

    __slots__ = ("sizes", "total", "values")

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.sizes: dict[str, int] = {}
        self.total = 0

    def set(self, name: str, value: Any, size: int) -> None:
        self.total += size - self.sizes.get(name, 0)
        self.values[name] = value
        self.sizes[name] = size


# A change of state ready to apply: the scope, the key there, the key as written (with its
# prefix) and its size as JSON.
_Change = tuple[_Scope, str, str, int]


@dataclass
class _Record:
    state: _Scope
    events: list[Event] = field(default_factory=list)  # frozen
    timestamps: list[float] = field(default_factory=list)
    event_ids: set[str] = field(default_factory=set)
    last_update_time: float = 0.0
    # Unique per creation, so a session deleted and created again is told apart.
    epoch: float = field(default_factory=lambda: float(next(_epochs)))

    @property
    def version(self) -> int:
        return len(self.events)


class InMemorySessionService(BaseSessionService):
    """Keeps sessions in memory; reads share the stored (frozen) events.

    ``max_event_bytes`` and ``max_state_bytes`` cap one event and a session's state (see
    ``yadk.sessions._limits``; default from ``YADK_MAX_EVENT_BYTES`` / ``YADK_MAX_STATE_BYTES``,
    else 1 MiB and 16 MiB).
    """

    def __init__(
        self, *, max_event_bytes: int | None = None, max_state_bytes: int | None = None
    ) -> None:
        self.limits = SizeLimits.resolve(max_event_bytes, max_state_bytes)
        self._sessions: dict[tuple[str, str, str], _Record] = {}
        self._app_state: dict[str, _Scope] = {}
        self._user_state: dict[tuple[str, str], _Scope] = {}

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
        record = _Record(state=_Scope(), last_update_time=time.time())
        app, user = self._scopes(app_name, user_id)
        plain, changes, _ = _changes(state or {}, record.state, app, user, "the state")
        grown = _grown(changes, record.state, app, user)
        if grown > self.limits.max_state_bytes:
            self.limits.refuse_state(grown, session_id, "as created with that state")
        for scope, name, written, size in changes:
            scope.set(name, freeze_json(plain[written]), size)
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
        num_recent_events, after_timestamp = event_window(
            config, num_recent_events, after_timestamp
        )
        return self._snapshot(key, record, num_recent_events, after_timestamp)

    async def refresh_session(self, session: Session) -> bool:
        key = (session.app_name, session.user_id, session.id)
        record = self._sessions.get(key)
        if record is None:
            return False
        have = session.storage_version
        if have is None or have > record.version or session.storage_epoch != record.epoch:
            return await super().refresh_session(session)
        session.events.extend(record.events[have:])
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

    async def list_recent_session_keys(
        self,
        *,
        app_name: str,
        limit: int,
        user_prefix: str = "",
        after: SessionKey | None = None,
    ) -> list[SessionKey]:
        keys = (
            (record.last_update_time, key[1], key[2])
            for key, record in self._sessions.items()
            if key[0] == app_name
        )
        return recent_page(keys, limit=limit, user_prefix=user_prefix, after=after)

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
        delta = event.actions.state_delta
        changes: list[_Change] = []
        size = _content_size(event)
        if delta:
            app, user = self._scopes(session.app_name, session.user_id)
            plain, changes, delta_size = _changes(delta, record.state, app, user, event)
            size += delta_size
        if size > self.limits.max_event_bytes:
            self.limits.refuse_event(size, event.id, written_by(event))
        if changes:
            grown = _grown(changes, record.state, app, user)
            if grown > self.limits.max_state_bytes:
                self.limits.refuse_state(
                    grown, session.id, f"after event {event.id} ({written_by(event)})"
                )
        apply_event(session, event)  # trims the temp: keys from the delta, seals the event
        stored = event
        if changes and any(plain[k] is not delta[k] for k in plain):
            # A value JSON holds only converted (a tuple, a number key): stored as a database
            # would give it back.
            stored = seal_event(
                event.model_copy(
                    update={"actions": event.actions.model_copy(update={"state_delta": plain})}
                )
            )
        record.events.append(stored)
        record.timestamps.append(stored.timestamp)
        record.event_ids.add(stored.id)
        record.last_update_time = stored.timestamp
        if changes:
            # The sealed event's values: state shares them rather than copying them again.
            stored_delta = stored.actions.state_delta
            for scope, name, written, entry in changes:
                scope.set(name, stored_delta[written], entry)
        session.storage_version = record.version
        return event

    def _scopes(self, app_name: str, user_id: str) -> tuple[_Scope, _Scope]:
        app = self._app_state.get(app_name)
        if app is None:
            app = self._app_state[app_name] = _Scope()
        user = self._user_state.get((app_name, user_id))
        if user is None:
            user = self._user_state[(app_name, user_id)] = _Scope()
        return app, user

    def _state(self, key: tuple[str, str, str], record: _Record) -> dict[str, Any]:
        """The session's merged state, its containers the caller's own (the stored values are
        frozen and shared with the stored events)."""
        app = self._app_state.get(key[0])
        user = self._user_state.get(key[:2])
        merged = merge_scopes(
            app.values if app is not None else _NONE,
            user.values if user is not None else _NONE,
            record.state.values,
        )
        for name, value in merged.items():
            if not (type(value) in _SCALARS or value is None):
                merged[name] = thaw(value)
        return merged

    def _snapshot(
        self,
        key: tuple[str, str, str],
        record: _Record,
        num_recent_events: int | None,
        after_timestamp: float | None,
    ) -> Session:
        stored = record.events
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


_NONE: dict[str, Any] = {}
_SCALARS = frozenset({str, int, float, bool})


def _changes(
    delta: dict[str, Any], session: _Scope, app: _Scope, user: _Scope, made_by: Event | str
) -> tuple[dict[str, Any], list[_Change], int]:
    """The stored part of ``delta`` (no ``temp:`` keys) as a JSON store would give it back,
    the change each key makes to a scope, and about the size of it all as JSON. A value JSON
    cannot hold is refused, naming its key and what holds it (``made_by``: an event, or
    words)."""
    plain: dict[str, Any] = {}
    changes: list[_Change] = []
    total = 2
    for key, value in delta.items():
        if key.startswith(_TEMP):
            continue
        try:
            plain[key], length = plain_json(value)
        except (TypeError, ValueError):
            where = made_by if isinstance(made_by, str) else _made_by(made_by)
            refuse_key(key, value, where)
        size = len(key) + 4 + length
        total += size
        if key.startswith(_APP):
            changes.append((app, key[len(_APP) :], key, size))
        elif key.startswith(_USER):
            changes.append((user, key[len(_USER) :], key, size))
        else:
            changes.append((session, key, key, size))
    return plain, changes, total


def _grown(changes: list[_Change], session: _Scope, app: _Scope, user: _Scope) -> int:
    """About the size as JSON of the session's state (its own, its user's, its app's) once
    ``changes`` are made."""
    grown = session.total + app.total + user.total
    for scope, name, _, size in changes:
        grown += size - scope.sizes.get(name, 0)
    return grown


def _made_by(event: Event) -> str:
    return f"event {event.id} ({written_by(event)})"


def _content_size(event: Event) -> int:
    """About the size as JSON of what an event carries besides its state delta: its parts'
    texts, bytes, call arguments and results, and its metadata."""
    size = 0
    if event.content is not None:
        for part in event.content.parts:
            if part.text is not None:
                size += len(part.text)
            if part.inline_data is not None and part.inline_data.data is not None:
                size += len(part.inline_data.data) * 4 // 3
            if part.function_call is not None:
                size += _size(part.function_call.args, event)
            if part.function_response is not None:
                size += _size(part.function_response.response, event)
            if part.executable_code is not None:
                size += len(part.executable_code.code or "")
            if part.code_execution_result is not None:
                size += len(part.code_execution_result.output or "")
    for metadata in (event.custom_metadata, event.usage_metadata, event.grounding_metadata):
        if metadata:
            size += _size(metadata, event)
    return size


def _size(value: Any, event: Event) -> int:
    try:
        return plain_json(value)[1]
    except (TypeError, ValueError, RecursionError) as exc:
        raise SessionError(
            f"Event {event.id} cannot be stored: its content and metadata must be JSON ({exc})."
        ) from None
