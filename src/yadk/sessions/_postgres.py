"""PostgresSessionService: sessions shared by every process that points at one database.

``append_event`` is one SQL statement, so one transaction and one round trip: it bumps the
session's version only if it is still the version the caller read (concurrent writers of one
session: exactly one wins, the others get ``StaleSessionError``), stores the event, and merges the
delta into the session, user and app rows with jsonb ``||`` — a row-level merge of the delta, so
writers of different sessions never lose each other's ``user:``/``app:`` keys. An event's ``seq``
is the version it produced, so ``refresh_session`` reads only what is new.

psycopg (the ``postgres`` extra) is imported inside the methods that use it, so this module imports
without the driver; in an append, only when a statement fails.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from typing import Any

from yadk.errors import AlreadyExistsError, SessionNotFoundError, StaleSessionError
from yadk.events import Event
from yadk.sessions._base import (
    BaseSessionService,
    GetSessionConfig,
    ListSessionsResponse,
    SessionKey,
    apply_event,
    event_window,
    recent_keys_query,
)
from yadk.sessions._codec import (
    dump_event,
    dump_state,
    load_events_off_loop,
    prepare_reader,
    stored_delta,
)
from yadk.sessions._event_cache import EventCache
from yadk.sessions._limits import SizeLimits, StateSizes, check_append, check_created
from yadk.sessions._pg import PgDatabase
from yadk.sessions._pg_locks import PgTurnLocks
from yadk.sessions._pg_sql import REFRESH_DATA, SessionSql, refresh_columns, session_columns
from yadk.sessions._session import Session
from yadk.sessions._state import merge_scopes, split_scopes

__all__ = ["PostgresSessionService"]

_Key = tuple[str, str, str]


class PostgresSessionService(BaseSessionService):
    """Sessions in PostgreSQL (``yadk[postgres]``): ``PostgresSessionService(url)`` with a
    ``postgresql://`` URL (``?schema=NAME`` picks the schema, default ``yadk``).

    Opens its connection pool on first use, inside the event loop that uses it; see
    ``PgDatabase`` for the pool, timeouts and reconnects. ``max_event_bytes`` /
    ``max_state_bytes`` cap one event and a session's state (see ``_limits``); ``cache_bytes``
    bounds the parsed events kept between reads (``_event_cache``).
    """

    def __init__(
        self,
        url: str,
        *,
        pool_size: int = 10,
        pool_timeout: float = 10.0,
        statement_timeout: float = 30.0,
        migrate: bool = False,
        database: PgDatabase | None = None,
        max_event_bytes: int | None = None,
        max_state_bytes: int | None = None,
        cache_bytes: int | None = None,
    ) -> None:
        self.limits = SizeLimits.resolve(max_event_bytes, max_state_bytes)
        self._state_sizes = StateSizes()
        self.db = database or PgDatabase(
            url,
            pool_size=pool_size,
            pool_timeout=pool_timeout,
            statement_timeout=statement_timeout,
            migrate=migrate,
        )
        self.sql = SessionSql(self.db.table)
        self._sessions, self._events = self.sql.sessions, self.sql.events
        self._parsed = EventCache(max_bytes=cache_bytes)  # used on the event loop only
        self._turn_locks: PgTurnLocks | None = None

    def turn_locks(self) -> PgTurnLocks:
        """Advisory locks, one per session, on one connection of their own (see
        ``PgTurnLocks``)."""
        if self._turn_locks is None:
            self._turn_locks = PgTurnLocks(self.db)
        return self._turn_locks

    async def prepare(self) -> None:
        prepare_reader()

    async def aclose(self) -> None:
        if self._turn_locks is not None:
            await self._turn_locks.aclose()
        await self.db.close()

    async def create_session(
        self,
        *,
        app_name: str,
        user_id: str,
        state: dict[str, Any] | None = None,
        session_id: str | None = None,
    ) -> Session:
        from psycopg import errors

        session_id = (session_id or "").strip() or str(uuid.uuid4())
        app_delta, user_delta, session_state = split_scopes(state or {})
        check_created(self.limits, session_id, state or {})
        params = {
            "a": app_name,
            "u": user_id,
            "i": session_id,
            "t": time.time(),
            "state": dump_state(session_state),
            "app": dump_state(app_delta) if app_delta else None,
            "user": dump_state(user_delta) if user_delta else None,
        }

        async def create(conn: Any) -> None:
            try:
                await conn.execute(self.sql.create, params)
            except errors.UniqueViolation:
                raise AlreadyExistsError(
                    f"Session with id {session_id!r} already exists."
                ) from None

        await self.db.run(create)
        found = await self.get_session(app_name=app_name, user_id=user_id, session_id=session_id)
        assert found is not None
        return found

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
        num_recent_events, after_timestamp = event_window(
            config, num_recent_events, after_timestamp
        )

        async def read(conn: Any) -> Session | None:
            texts = await self.sql.session_row.first_row(conn, _named(key))
            if texts is None:
                return None
            row = session_columns(texts)
            # Events are append-only below the version read, so this needs no transaction.
            if num_recent_events is None and after_timestamp is None:
                return self._session(key, row, await self._all_events(conn, key, row))
            query = (
                f"SELECT data FROM {self._events}"
                " WHERE app_name = %s AND user_id = %s AND session_id = %s AND seq <= %s"
            )
            params: list[Any] = [*key, row[2]]
            if after_timestamp is not None:
                query += " AND timestamp >= %s"
                params.append(after_timestamp)
            if num_recent_events is not None:
                params.append(max(num_recent_events, 0))
                found = await (
                    await conn.execute(query + " ORDER BY seq DESC LIMIT %s", params)
                ).fetchall()
                found.reverse()
            else:
                found = await (await conn.execute(query + " ORDER BY seq", params)).fetchall()
            return self._session(key, row, await self._parse(key, [r[0] for r in found]))

        return await self.db.run(read)

    async def _all_events(self, conn: Any, key: _Key, row: tuple[Any, ...]) -> list[Event]:
        """Every event up to the version in ``row``: the frozen ones kept from an earlier read,
        and the rows stored after them parsed now (see ``_event_cache``)."""
        version, epoch = row[2], row[5]
        since, events = self._parsed.read(key, epoch, version)
        if since < version:
            params = {**_named(key), "since": since, "version": version}
            found = await self.sql.events_between.column(conn, params)
            parsed = await self._parse(key, found)
            events = self._parsed.update(key, epoch, version, events, parsed, sum(map(len, found)))
        return events

    async def _parse(self, key: _Key, rows: Sequence[str | bytes]) -> list[Event]:
        return await load_events_off_loop(rows, f"session {key[2]!r} in {self.db.display}")

    def _session(self, key: _Key, row: tuple[Any, ...], events: list[Event]) -> Session:
        return Session(
            id=key[2],
            app_name=key[0],
            user_id=key[1],
            state=merge_scopes(row[3] or {}, row[4] or {}, row[0]),
            events=events,
            last_update_time=row[1],
            storage_version=row[2],
            storage_epoch=row[5],
        )

    async def refresh_session(self, session: Session) -> bool:
        since = session.storage_version
        if since is None:
            return await super().refresh_session(session)
        key = (session.app_name, session.user_id, session.id)

        params = {**_named(key), "since": since, "epoch": session.storage_epoch}

        async def changes(conn: Any) -> Session | None:
            found = await self.sql.refresh.row_and_column(conn, params, REFRESH_DATA)
            if found is None:
                return None
            head, rows = found
            return self._session(key, refresh_columns(head), await self._parse(key, rows))

        fresh = await self.db.run(changes)
        if fresh is None:
            return False
        assert fresh.storage_version is not None
        if fresh.storage_version < since or fresh.storage_epoch != session.storage_epoch:
            # Deleted and created again under this id: start over.
            return await super().refresh_session(session)
        session.events.extend(fresh.events)
        session.state = fresh.state
        session.last_update_time = fresh.last_update_time
        session.storage_version = fresh.storage_version
        return True

    async def list_sessions(
        self, *, app_name: str, user_id: str | None = None
    ) -> ListSessionsResponse:
        query = f"""
            SELECT s.user_id, s.id, s.state, s.update_time, s.version, s.create_time, a.state,
                u.state
            FROM {self._sessions} s
            LEFT JOIN {self.sql.apps} a ON a.app_name = s.app_name
            LEFT JOIN {self.sql.users} u ON u.app_name = s.app_name AND u.user_id = s.user_id
            WHERE s.app_name = %s"""
        params: list[Any] = [app_name]
        if user_id is not None:
            query += " AND s.user_id = %s"
            params.append(user_id)

        async def read(conn: Any) -> list[tuple[Any, ...]]:
            rows: list[tuple[Any, ...]] = await (
                await conn.execute(query + " ORDER BY s.update_time", params)
            ).fetchall()
            return rows

        sessions = [
            Session(
                id=sid,
                app_name=app_name,
                user_id=uid,
                state=merge_scopes(app or {}, user or {}, state),
                last_update_time=update_time,
                storage_version=version,
                storage_epoch=created,
            )
            for uid, sid, state, update_time, version, created, app, user in await self.db.run(read)
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
        query, params = recent_keys_query(
            self._sessions, "%s", app_name, limit=limit, user_prefix=user_prefix, after=after
        )

        async def read(conn: Any) -> list[SessionKey]:
            rows = await (await conn.execute(query, params)).fetchall()
            return [(row[0], row[1], row[2]) for row in rows]

        return await self.db.run(read)

    async def list_app_names(self) -> list[str]:
        """The apps that have sessions here (for ``yadk sessions``)."""

        async def names(conn: Any) -> list[str]:
            rows = await (
                await conn.execute(f"SELECT DISTINCT app_name FROM {self._sessions} ORDER BY 1")
            ).fetchall()
            return [str(r[0]) for r in rows]

        return await self.db.run(names)

    async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
        key = {"a": app_name, "u": user_id, "i": session_id}

        async def delete(conn: Any) -> None:
            # The session row first: an append in flight holds it, so its event is committed
            # (and seen by the second statement) or never written.
            async with conn.transaction():
                await conn.execute(
                    f"DELETE FROM {self._sessions}"
                    " WHERE app_name = %(a)s AND user_id = %(u)s AND id = %(i)s",
                    key,
                )
                await conn.execute(
                    f"DELETE FROM {self._events}"
                    " WHERE app_name = %(a)s AND user_id = %(u)s AND session_id = %(i)s",
                    key,
                )

        await self.db.run(delete)
        self._parsed.drop((app_name, user_id, session_id))

    async def append_event(self, session: Session, event: Event) -> Event:
        if event.partial:
            return event
        delta = stored_delta(event)
        data = dump_event(event, delta)
        state_after = self._state_sizes.after(session, delta)
        check_append(self.limits, session.id, state_after, event.id, data, event)
        app_delta, user_delta, session_delta = split_scopes(delta)
        params = {
            "a": session.app_name,
            "u": session.user_id,
            "i": session.id,
            "expected": session.storage_version,
            "epoch": session.storage_epoch,
            "t": event.timestamp,
            "eid": event.id,
            "data": data,
            "delta": dump_state(session_delta) if session_delta else None,
            "app": dump_state(app_delta) if app_delta else None,
            "user": dump_state(user_delta) if user_delta else None,
        }
        seq = await self.db.run(lambda conn: self._append(conn, params))
        if seq is None:  # already stored: appending the same event again changes nothing
            return event
        apply_event(session, event)
        session.storage_version = seq
        self._state_sizes.remember(session, state_after)
        return event

    async def _append(self, conn: Any, params: dict[str, Any]) -> int | None:
        statement = self.sql.append(
            expected=params["expected"] is not None,
            epoch=params["epoch"] is not None,
            delta=params["delta"] is not None,
            app=params["app"] is not None,
            user=params["user"] is not None,
        )
        try:
            seq = await statement.scalar(conn, params)
        except Exception as exc:
            from psycopg import errors  # here, not on every append

            if not isinstance(exc, errors.UniqueViolation):
                raise
            seq = None  # this event id is stored already; the statement wrote nothing
        if seq is not None:
            return int(seq)
        found = await (
            await conn.execute(
                f"SELECT s.version, e.seq FROM {self._sessions} s LEFT JOIN {self._events} e"
                " ON e.app_name = s.app_name AND e.user_id = s.user_id AND e.session_id = s.id"
                " AND e.event_id = %(eid)s"
                " WHERE s.app_name = %(a)s AND s.user_id = %(u)s AND s.id = %(i)s",
                params,
            )
        ).fetchone()
        if found is None:
            raise SessionNotFoundError(
                f"Session {params['i']!r} of user {params['u']!r} in app {params['a']!r} does"
                " not exist; create it with create_session() first."
            )
        if found[1] is not None:
            expected = params["expected"]
            # Our own event, committed by an attempt whose answer the dropped connection lost.
            return int(found[1]) if expected is not None and found[1] == expected + 1 else None
        raise StaleSessionError(
            f"Session {params['i']!r} changed since this copy was read (copy is version"
            f" {params['expected']}, stored is {found[0]}); read it again with get_session()"
            " before appending."
        )


def _named(key: _Key) -> dict[str, str]:
    return {"a": key[0], "u": key[1], "i": key[2]}
