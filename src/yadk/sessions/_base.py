"""The session service interface and the append logic every service shares."""

from __future__ import annotations

import abc
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol, Self

from yadk._sealed import seal_event
from yadk.events import Event
from yadk.sessions._session import Session
from yadk.sessions._state import State

__all__ = [
    "BaseSessionService",
    "GetSessionConfig",
    "ListSessionsResponse",
    "TurnLocks",
    "event_window",
]


@dataclass
class GetSessionConfig:
    """Which events ``get_session`` returns: the last N, and/or those at or after a timestamp."""

    num_recent_events: int | None = None
    after_timestamp: float | None = None


def event_window(
    config: GetSessionConfig | None, num_recent_events: int | None, after_timestamp: float | None
) -> tuple[int | None, float | None]:
    """``get_session``'s window of events: ``config``'s when given, else the keywords (google-adk
    takes either)."""
    if config is not None:
        return config.num_recent_events, config.after_timestamp
    return num_recent_events, after_timestamp


SessionKey = tuple[float, str, str]
"""A session's place in ``list_recent_session_keys``: (last update time, user id, session id)."""


def recent_keys_query(
    table: str,
    mark: str,
    app_name: str,
    *,
    limit: int,
    user_prefix: str,
    after: SessionKey | None,
) -> tuple[str, list[Any]]:
    """The SQL of ``list_recent_session_keys`` on ``table`` (``mark``: the driver's parameter
    marker), and its parameters."""
    query = f"SELECT update_time, user_id, id FROM {table} WHERE app_name = {mark}"
    params: list[Any] = [app_name]
    if user_prefix:
        # The length is an int of ours: written in, so no driver has to type a parameter.
        query += f" AND substr(user_id, 1, {len(user_prefix)}) = {mark}"
        params.append(user_prefix)
    if after is not None:
        query += (
            f" AND (update_time < {mark} OR (update_time = {mark} AND (user_id < {mark}"
            f" OR (user_id = {mark} AND id < {mark}))))"
        )
        params += [after[0], after[0], after[1], after[1], after[2]]
    query += f" ORDER BY update_time DESC, user_id DESC, id DESC LIMIT {mark}"
    params.append(limit)
    return query, params


def recent_page(
    keys: Iterable[SessionKey], *, limit: int, user_prefix: str, after: SessionKey | None
) -> list[SessionKey]:
    """``list_recent_session_keys`` over keys already in memory: newest first, filtered by
    user prefix, after ``after``, at most ``limit``."""
    page = sorted((k for k in keys if k[1].startswith(user_prefix)), reverse=True)
    if after is not None:
        page = [k for k in page if k < after]
    return page[:limit]


@dataclass
class ListSessionsResponse:
    sessions: list[Session] = field(default_factory=list)


class TurnLocks(Protocol):
    """Per-session locks shared by every process that uses one store, so that turns on a
    session are serialized across processes (``yadk serve`` replicas); keys are
    (app, user, session id)."""

    async def try_lock(self, key: tuple[str, str, str]) -> bool:
        """Take the lock if no other process holds it; never waits."""
        ...

    async def unlock(self, key: tuple[str, str, str]) -> None:
        """Release a lock taken by ``try_lock`` (once per successful ``try_lock``)."""
        ...

    async def aclose(self) -> None:
        """Close what holds the locks (a connection, a file), releasing any still held; the
        next ``try_lock`` opens it again."""
        ...


class BaseSessionService(abc.ABC):
    """Stores sessions; ``append_event`` is the only way state changes are persisted."""

    @abc.abstractmethod
    async def create_session(
        self,
        *,
        app_name: str,
        user_id: str,
        state: dict[str, Any] | None = None,
        session_id: str | None = None,
    ) -> Session:
        """Create a session; ``temp:`` keys in ``state`` are dropped, as they are never stored."""

    @abc.abstractmethod
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
        """The session with app, user and session state merged, or ``None`` if there is none."""

    @abc.abstractmethod
    async def list_sessions(
        self, *, app_name: str, user_id: str | None = None
    ) -> ListSessionsResponse:
        """The sessions of an app (of one user if given), without their events."""

    async def list_recent_session_keys(
        self,
        *,
        app_name: str,
        limit: int,
        user_prefix: str = "",
        after: SessionKey | None = None,
    ) -> list[SessionKey]:
        """One page of an app's sessions, most recently updated first, as keys only (update
        time, user, session id; ties ordered by user, then id, descending): at most ``limit``,
        of users whose id starts with ``user_prefix``, those that come after the key ``after``
        (the last of the previous page). yadk's stores read just the page (no state, no
        events); this default lists every session and sorts them."""
        listed = await self.list_sessions(app_name=app_name)
        keys = [(s.last_update_time, s.user_id, s.id) for s in listed.sessions]
        return recent_page(keys, limit=limit, user_prefix=user_prefix, after=after)

    @abc.abstractmethod
    async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
        """Delete a session; deleting a missing session does nothing."""

    async def refresh_session(self, session: Session) -> bool:
        """Bring ``session`` (read earlier from this service) up to date in place: the events
        stored since its ``storage_version`` are appended and its state is reloaded. A session
        deleted and created again under the same id (another ``storage_epoch``) is read afresh.

        Returns ``False`` when the session no longer exists. yadk's services read only what is
        new, so a caller that keeps a session between turns (the runner does) pays for the new
        events, not the whole history; this default reads the whole session.
        """
        fresh = await self.get_session(
            app_name=session.app_name, user_id=session.user_id, session_id=session.id
        )
        if fresh is None:
            return False
        session.events = fresh.events
        session.state = fresh.state
        session.last_update_time = fresh.last_update_time
        session.storage_version = fresh.storage_version
        session.storage_epoch = fresh.storage_epoch
        return True

    def turn_locks(self) -> TurnLocks | None:
        """The locks that serialize turns on one session across the processes sharing this
        store, or ``None`` when only one process can use it (in memory)."""
        return None

    async def prepare(self) -> None:
        """Build ahead of time what the first read of a stored session would otherwise build
        while a caller waits (``yadk serve`` calls it before it accepts requests). Optional:
        without it, the first read builds the same, once."""
        return None

    async def aclose(self) -> None:
        """Release connections and threads; the service is unusable afterwards. Close a
        database store before its event loop ends: a PostgreSQL pool left open can keep
        ``asyncio.run`` from returning (its workers outlive the loop's cancellation)."""
        return None

    async def close(self) -> None:
        """``aclose``, by google-adk's name (``DatabaseSessionService.close``)."""
        await self.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def append_event(self, session: Session, event: Event) -> Event:
        """Append ``event`` to ``session`` and apply its state delta.

        Partial (streaming) events are returned untouched. ``temp:`` keys are applied to the
        in-memory ``session`` (later code in this invocation reads them) and removed from the
        event's delta, so they are never stored.
        """
        if event.partial:
            return event
        apply_event(session, event)
        return event


def apply_event(session: Session, event: Event) -> None:
    """Apply an appended event to an in-memory session: temp keys first, then the trimmed
    delta; the event is sealed (``yadk._sealed``): from now on it is history, which no one
    changes, and every store shares it rather than copying it."""
    delta = event.actions.state_delta
    if delta:
        temp_keys = [k for k in delta if k.startswith(State.TEMP_PREFIX)]
        for key in temp_keys:
            session.state[key] = delta[key]
        if temp_keys:
            event.actions.state_delta = {
                k: v for k, v in delta.items() if not k.startswith(State.TEMP_PREFIX)
            }
        session.state.update(event.actions.state_delta)
    seal_event(event)
    session.events.append(event)
    session.last_update_time = event.timestamp


def select_events(
    items: list[int],
    timestamps: list[float],
    num_recent_events: int | None,
    after_timestamp: float | None,
) -> list[int]:
    """The positions a ``get_session`` call asks for (``items[i]`` has ``timestamps[i]``)."""
    selected = items
    if after_timestamp is not None:
        start = len(selected)
        while start > 0 and timestamps[start - 1] >= after_timestamp:
            start -= 1
        selected = selected[start:]
    if num_recent_events is not None:
        selected = selected[-num_recent_events:] if num_recent_events > 0 else []
    return list(selected)
