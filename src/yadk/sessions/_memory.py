"""InMemorySessionService: sessions in process memory, with ADK's scoping rules.

An appended event is copied once into a frozen event (``_frozen``) that every later read shares:
a read of 1,000 events copies 1,000 references, not 1,000 events, and no caller can change what
is stored (or what another reader sees): an edit raises ``ImmutableEventError``. Nothing is
serialised: state is kept as the frozen values of the events that set it, and each read hands
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
    apply_event,
    select_events,
)
from yadk.sessions._codec import refuse_key, written_by
from yadk.sessions._limits import SizeLimits, plain_json
from yadk.sessions._session import Session
from yadk.sessions._state import State, merge_scopes, split_scopes

__all__ = ["InMemorySessionService"]

_epochs = itertools.count(1)
_TEMP = State.TEMP_PREFIX


class _Scope:
    """One scope's state (a session's, a user's, an app's): frozen values, shared with the
    events that set them, and about the size of each as JSON, kept up to date so that the
    state cap costs an append only the keys it writes."""

    __slots__ = ("sizes", "total", "values")

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.sizes: dict[str, int] = {}
        self.total = 0

    def growth(self, delta: dict[str, Any], sizes: dict[str, int]) -> int:
        """How many bytes ``delta`` (with ``sizes``) would add."""
        if not delta:
            return 0
        old = self.sizes.get
        return sum(sizes[key] - old(key, 0) for key in delta)

    def update(self, delta: dict[str, Any], sizes: dict[str, int]) -> None:
        if not delta:
            return
        self.total += self.growth(delta, sizes)
        self.values.update(delta)
        for key in delta:
            self.sizes[key] = sizes[key]


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
        plain, sizes, total = _plain_delta(state or {}, "the state")
        app_delta, user_delta, session_state = split_scopes(plain)
        app, user = self._scopes(app_name, user_id)
        grown = (
            total
            + app.total
            + app.growth(app_delta, _sizes(app_delta, sizes, State.APP_PREFIX))
            + user.total
            + user.growth(user_delta, _sizes(user_delta, sizes, State.USER_PREFIX))
        )
        if grown > self.limits.max_state_bytes:
            self.limits.refuse_state(grown, session_id, "as created with that state")
        record = _Record(state=_Scope(), last_update_time=time.time())
        record.state.update(_frozen(session_state), _sizes(session_state, sizes, ""))
        app.update(_frozen(app_delta), _sizes(app_delta, sizes, State.APP_PREFIX))
        user.update(_frozen(user_delta), _sizes(user_delta, sizes, State.USER_PREFIX))
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
        plain, sizes, delta_size = _plain_delta(delta, "", event)
        size = delta_size + _content_size(event)
        if size > self.limits.max_event_bytes:
            self.limits.refuse_event(size, event.id, written_by(event))
        if plain:
            app_delta, user_delta, session_delta = split_scopes(plain)
            app, user = self._scopes(session.app_name, session.user_id)
            app_sizes = _sizes(app_delta, sizes, State.APP_PREFIX)
            user_sizes = _sizes(user_delta, sizes, State.USER_PREFIX)
            session_sizes = _sizes(session_delta, sizes, "")
            grown = (
                record.state.total
                + record.state.growth(session_delta, session_sizes)
                + app.total
                + app.growth(app_delta, app_sizes)
                + user.total
                + user.growth(user_delta, user_sizes)
            )
            if grown > self.limits.max_state_bytes:
                self.limits.refuse_state(
                    grown, session.id, f"after event {event.id} ({written_by(event)})"
                )
        # Imported by the first append: a command that stores no event (``yadk inspect``)
        # need not build the frozen twins.
        from yadk.sessions._frozen import freeze_event

        apply_event(session, event)  # trims the temp: keys from the event's delta
        stored = event
        if any(plain[k] is not v for k, v in delta.items() if k in plain):
            # A value JSON holds only converted (a tuple, a number key): stored as a database
            # would give it back.
            kept = {k: plain[k] for k in event.actions.state_delta}
            stored = event.model_copy(
                update={"actions": event.actions.model_copy(update={"state_delta": kept})}
            )
        frozen = freeze_event(stored)
        record.events.append(frozen)
        record.timestamps.append(frozen.timestamp)
        record.event_ids.add(frozen.id)
        record.last_update_time = frozen.timestamp
        if plain:
            # The frozen event's values: state shares them rather than copying them again.
            app_delta, user_delta, session_delta = split_scopes(frozen.actions.state_delta)
            record.state.update(session_delta, session_sizes)
            app.update(app_delta, app_sizes)
            user.update(user_delta, user_sizes)
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
        from yadk.sessions._frozen import thaw

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


def _plain_delta(
    delta: dict[str, Any], what: str, event: Event | None = None
) -> tuple[dict[str, Any], dict[str, int], int]:
    """The stored part of ``delta`` (no ``temp:`` keys) as a JSON store would give it back,
    about the size as JSON of each entry, and of them all; a value JSON cannot hold is
    refused, naming its key (and ``what`` holds it: the event's author when given)."""
    plain: dict[str, Any] = {}
    sizes: dict[str, int] = {}
    total = 2
    for key, value in delta.items():
        if key.startswith(_TEMP):
            continue
        try:
            plain[key], length = plain_json(value)
        except (TypeError, ValueError):
            where = what if event is None else f"event {event.id} ({written_by(event)})"
            refuse_key(key, value, where)
        sizes[key] = size = len(key) + 4 + length
        total += size
    return plain, sizes, total


def _sizes(scoped: dict[str, Any], sizes: dict[str, int], prefix: str) -> dict[str, int]:
    """The sizes of a scope's part of a delta (its keys have lost ``prefix``)."""
    if not prefix:
        return sizes
    return {key: sizes[prefix + key] for key in scoped}


def _frozen(values: dict[str, Any]) -> dict[str, Any]:
    from yadk.sessions._frozen import freeze_json

    return {key: freeze_json(value) for key, value in values.items()}


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
