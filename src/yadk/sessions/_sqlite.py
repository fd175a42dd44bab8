"""SqliteSessionService: durable sessions in one SQLite file, off the event loop.

Every database call runs on the service's own thread (one connection, one thread per service),
so a write that waits for another process's lock never stalls the event loop; the wait is bounded
by ``busy_timeout``, after which the caller gets ``SessionStoreBusyError``. SQLite failures become
``SessionStoreError`` subclasses whose message says what to do. The thread returns stored rows;
large ones are parsed into events on a worker thread (``load_events_off_loop``), small ones on the
event loop.

Each ``append_event`` is one transaction: it checks the session's version (a writer holding an
older copy gets ``StaleSessionError``), stores the event, merges the delta into the session, user
and app state rows, and bumps the version. An event's ``seq`` is the version it produced, so
``refresh_session`` reads only the events after the version a caller holds. WAL journaling lets
other processes read while one writes.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import sys
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from yadk.errors import (
    AlreadyExistsError,
    SessionError,
    SessionNotFoundError,
    SessionStoreError,
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
    recent_keys_query,
)
from yadk.sessions._codec import (
    dump_event,
    dump_state,
    load_events_off_loop,
    load_state,
    prepare_reader,
    stored_delta,
)
from yadk.sessions._event_cache import EventCache
from yadk.sessions._file_locks import FileTurnLocks
from yadk.sessions._limits import SizeLimits, StateSizes, check_append, check_created
from yadk.sessions._session import Session
from yadk.sessions._sqlite_schema import prepare_schema, translate_error
from yadk.sessions._state import merge_scopes, split_scopes

__all__ = ["SqliteSessionService", "sqlite_path"]

T = TypeVar("T")
_Key = tuple[str, str, str]
_WHERE = "app_name=? AND user_id=? AND id=?"
_EVENTS_WHERE = "app_name=? AND user_id=? AND session_id=?"


def sqlite_path(url_or_path: str | os.PathLike[str]) -> Path:
    """Accept a plain path or a ``sqlite:///path`` URL."""
    text = os.fspath(url_or_path)
    for prefix in ("sqlite:///", "sqlite://"):
        if text.startswith(prefix):
            text = text[len(prefix) :]
            break
    else:
        if "://" in text:
            raise SessionError(
                f"Unsupported session database {text!r}: give a file path, a sqlite:///PATH"
                " URL, a postgresql:// URL or :memory:."
            )
    return Path(text)


class SqliteSessionService(BaseSessionService):
    """Sessions stored in a SQLite file (created with its folder if missing).

    ``busy_timeout`` (seconds) bounds how long a write waits for another connection's lock.
    An existing file with an older schema is refused unless ``migrate=True`` (what
    ``yadk db upgrade`` does); a file written by a newer yadk is always refused.
    ``max_event_bytes`` / ``max_state_bytes`` cap one event and a session's state (see
    ``_limits``); ``cache_bytes`` bounds the parsed events kept between reads (``_event_cache``).
    """

    def __init__(
        self,
        db: str | os.PathLike[str],
        *,
        busy_timeout: float = 5.0,
        migrate: bool = False,
        max_event_bytes: int | None = None,
        max_state_bytes: int | None = None,
        cache_bytes: int | None = None,
    ) -> None:
        self.path = sqlite_path(db)
        self.limits = SizeLimits.resolve(max_event_bytes, max_state_bytes)
        self._state_sizes = StateSizes()
        self.busy_timeout = busy_timeout
        self._turn_locks: FileTurnLocks | None = None
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="yadk-sqlite")
        self._events = EventCache(max_bytes=cache_bytes)  # used on the event loop only
        try:
            self._conn = self._open(migrate)
        except BaseException:
            self._thread.shutdown(wait=False)
            raise

    def _open(self, migrate: bool) -> sqlite3.Connection:
        folder = self.path.parent
        blocker = _first_file(folder)
        if blocker is not None:
            raise SessionStoreError(
                f"Cannot create the session database {self.path}: {blocker} is a"
                " file, not a folder. Give --db a path inside a folder."
            )
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SessionStoreError(
                f"Cannot create the folder {folder} for the session database: {exc.strerror}."
                " Give --db a path in a writable folder."
            ) from None
        conn = None
        try:
            conn = sqlite3.connect(
                self.path,
                timeout=self.busy_timeout,
                check_same_thread=False,
                isolation_level=None,
            )
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")  # per connection: events need their session
            prepare_schema(conn, self.path, migrate=migrate)
        except sqlite3.Error as exc:
            if conn is not None:
                conn.close()
            raise translate_error(exc, self.path, self.busy_timeout) from None
        except BaseException:
            if conn is not None:
                conn.close()
            raise
        return conn

    def turn_locks(self) -> FileTurnLocks | None:
        """Byte-range locks on ``<file>-turns``, one per session (see ``FileTurnLocks``);
        ``None`` where the platform has no ``fcntl`` (Windows)."""
        if self._turn_locks is None and sys.platform != "win32":
            self._turn_locks = FileTurnLocks(self.path.with_name(self.path.name + "-turns"))
        return self._turn_locks

    def close_now(self) -> None:
        """Close the connection outside an event loop (waits for a call in flight to finish);
        in one, ``await aclose()`` (or google-adk's ``close()``)."""
        self._thread.shutdown(wait=True)
        self._conn.close()
        if self._turn_locks is not None:
            self._turn_locks.close()

    async def prepare(self) -> None:
        prepare_reader()

    async def aclose(self) -> None:
        await asyncio.to_thread(self.close_now)

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(conn, *args)`` on the service's thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, self._guarded, fn, args)

    def _guarded(self, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        try:
            return fn(self._conn, *args)
        except sqlite3.Error as exc:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise translate_error(exc, self.path, self.busy_timeout) from None
        except BaseException:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise

    async def create_session(
        self,
        *,
        app_name: str,
        user_id: str,
        state: dict[str, Any] | None = None,
        session_id: str | None = None,
    ) -> Session:
        session_id = (session_id or "").strip() or str(uuid.uuid4())
        app_delta, user_delta, session_state = split_scopes(state or {})
        rows = (dump_state(app_delta), dump_state(user_delta), dump_state(session_state))
        check_created(self.limits, session_id, state or {})
        key = (app_name, user_id, session_id)
        await self._run(self._create, key, app_delta, user_delta, rows[2])
        found = await self.get_session(app_name=app_name, user_id=user_id, session_id=session_id)
        assert found is not None
        return found

    def _create(
        self,
        db: sqlite3.Connection,
        key: _Key,
        app_delta: dict[str, Any],
        user_delta: dict[str, Any],
        state_json: str,
    ) -> None:
        now = time.time()
        db.execute("BEGIN IMMEDIATE")
        if db.execute(f"SELECT 1 FROM sessions WHERE {_WHERE}", key).fetchone():
            raise AlreadyExistsError(f"Session with id {key[2]!r} already exists.")
        _merge_scopes(db, key, app_delta, user_delta)
        db.execute(
            "INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, 0)", (*key, state_json, now, now)
        )
        db.execute("COMMIT")

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
        num_recent_events, after_timestamp = event_window(
            config, num_recent_events, after_timestamp
        )
        key = (app_name, user_id, session_id)
        if num_recent_events is not None or after_timestamp is not None:
            found = await self._run(self._read_some, key, num_recent_events, after_timestamp)
            if found is None:
                return None
            row, state, rows = found
            events = await load_events_off_loop(rows, self._where(key))
        else:
            read = await self._read_all(key)
            if read is None:
                return None
            row, state, events = read
        return Session(
            id=key[2],
            app_name=key[0],
            user_id=key[1],
            state=state,
            events=events,
            last_update_time=row[1],
            storage_version=row[2],
            storage_epoch=row[3],
        )

    async def _read_all(
        self, key: _Key
    ) -> tuple[tuple[Any, ...], dict[str, Any], list[Event]] | None:
        """(session row, state, every event): the frozen events kept from an earlier read and
        the rows stored after them, parsed now (see ``_event_cache``). The thread reads the
        rows after the seq the cache held when the read was sent; should the cache have changed
        by the time they arrive (another read of the session in between), it reads again from
        the start."""
        hint = self._events.peek(key)
        for _ in range(2):
            found = await self._run(self._rows_after, key, hint)
            if found is None:
                return None
            row, state, since, rows = found
            version, epoch = row[2], row[3]
            kept: list[Event] = []
            if since:
                held, kept = self._events.read(key, epoch, version)
                if held != since:
                    hint = None
                    continue
            parsed = await load_events_off_loop(rows, self._where(key))
            size = sum(map(len, rows))
            return row, state, self._events.update(key, epoch, version, kept, parsed, size)
        raise AssertionError("a read from the start does not use the cache")

    def _rows_after(
        self, db: sqlite3.Connection, key: _Key, hint: tuple[Any, int] | None
    ) -> tuple[tuple[Any, ...], dict[str, Any], int, list[str]] | None:
        """(session row, state, seq, the rows after seq), seq being the one in ``hint`` (the
        cache's (epoch, seq) for the session) when it still belongs to this session, else 0."""
        # One read transaction, so the events and the state belong to the same version.
        db.execute("BEGIN")
        try:
            row = db.execute(
                f"SELECT state, update_time, version, create_time FROM sessions WHERE {_WHERE}",
                key,
            ).fetchone()
            if row is None:
                return None
            since = 0
            if hint is not None and hint[0] == row[3] and hint[1] <= row[2]:
                since = hint[1]
            rows = []
            if since < row[2]:
                rows = db.execute(
                    f"SELECT data FROM events WHERE {_EVENTS_WHERE} AND seq > ? ORDER BY seq",
                    (*key, since),
                ).fetchall()
            state = self._state(db, key, row[0])
        finally:
            db.execute("COMMIT")
        return row, state, since, [r[0] for r in rows]

    def _read_some(
        self,
        db: sqlite3.Connection,
        key: _Key,
        num_recent_events: int | None,
        after_timestamp: float | None,
    ) -> tuple[tuple[Any, ...], dict[str, Any], list[str]] | None:
        """(session row, state, the rows the filters keep)."""
        db.execute("BEGIN")
        try:
            row = db.execute(
                f"SELECT state, update_time, version, create_time FROM sessions WHERE {_WHERE}",
                key,
            ).fetchone()
            if row is None:
                return None
            query = f"SELECT data FROM events WHERE {_EVENTS_WHERE}"
            params: list[Any] = list(key)
            if after_timestamp is not None:
                query += " AND timestamp >= ?"
                params.append(after_timestamp)
            if num_recent_events is not None:
                params.append(max(num_recent_events, 0))
                rows = db.execute(query + " ORDER BY seq DESC LIMIT ?", params).fetchall()
                rows.reverse()
            else:
                rows = db.execute(query + " ORDER BY seq", params).fetchall()
            state = self._state(db, key, row[0])
        finally:
            db.execute("COMMIT")
        return row, state, [r[0] for r in rows]

    async def refresh_session(self, session: Session) -> bool:
        if session.storage_version is None:
            return await super().refresh_session(session)
        key = (session.app_name, session.user_id, session.id)
        found = await self._run(self._changes, key, session.storage_version)
        if found is None:
            return False
        state, update_time, version, epoch, rows = found
        if version < session.storage_version or epoch != session.storage_epoch:
            return await super().refresh_session(session)  # deleted and created again
        session.events.extend(await load_events_off_loop(rows, self._where(key)))
        session.state = state
        session.last_update_time = update_time
        session.storage_version = version
        return True

    def _changes(
        self, db: sqlite3.Connection, key: _Key, since: int
    ) -> tuple[dict[str, Any], float, int, float, list[str]] | None:
        db.execute("BEGIN")
        try:
            row = db.execute(
                f"SELECT state, update_time, version, create_time FROM sessions WHERE {_WHERE}",
                key,
            ).fetchone()
            if row is None:
                return None
            rows = []
            if row[2] > since:
                rows = db.execute(
                    f"SELECT data FROM events WHERE {_EVENTS_WHERE} AND seq > ? ORDER BY seq",
                    (*key, since),
                ).fetchall()
            state = self._state(db, key, row[0])
        finally:
            db.execute("COMMIT")
        return state, row[1], row[2], row[3], [r[0] for r in rows]

    async def list_sessions(
        self, *, app_name: str, user_id: str | None = None
    ) -> ListSessionsResponse:
        return await self._run(self._list, app_name, user_id)

    def _list(
        self, db: sqlite3.Connection, app_name: str, user_id: str | None
    ) -> ListSessionsResponse:
        query = (
            "SELECT user_id, id, state, update_time, version, create_time FROM sessions"
            " WHERE app_name=?"
        )
        params: list[Any] = [app_name]
        if user_id is not None:
            query += " AND user_id=?"
            params.append(user_id)
        sessions = []
        for uid, sid, state, update_time, version, created in db.execute(
            query + " ORDER BY update_time", params
        ).fetchall():
            key = (app_name, uid, sid)
            sessions.append(
                Session(
                    id=sid,
                    app_name=app_name,
                    user_id=uid,
                    state=self._state(db, key, state),
                    last_update_time=update_time,
                    storage_version=version,
                    storage_epoch=created,
                )
            )
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
            "sessions", "?", app_name, limit=limit, user_prefix=user_prefix, after=after
        )

        def read(db: sqlite3.Connection) -> list[SessionKey]:
            return [(row[0], row[1], row[2]) for row in db.execute(query, params)]

        return await self._run(read)

    async def list_app_names(self) -> list[str]:
        """The apps that have sessions here (for ``yadk sessions``)."""

        def names(db: sqlite3.Connection) -> list[str]:
            return [r[0] for r in db.execute("SELECT DISTINCT app_name FROM sessions ORDER BY 1")]

        return await self._run(names)

    async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
        key = (app_name, user_id, session_id)
        self._events.drop(key)
        await self._run(self._delete, key)

    def _delete(self, db: sqlite3.Connection, key: _Key) -> None:
        db.execute("BEGIN IMMEDIATE")
        db.execute(f"DELETE FROM events WHERE {_EVENTS_WHERE}", key)
        db.execute(f"DELETE FROM sessions WHERE {_WHERE}", key)
        db.execute("COMMIT")

    async def append_event(self, session: Session, event: Event) -> Event:
        if event.partial:
            return event
        delta = stored_delta(event)
        event_json = dump_event(event, delta)
        state_after = self._state_sizes.after(session, delta)
        check_append(self.limits, session.id, state_after, event.id, event_json, event)
        key = (session.app_name, session.user_id, session.id)
        seq = await self._run(
            self._append,
            key,
            session.storage_version,
            session.storage_epoch,
            event,
            delta,
            event_json,
        )
        if seq is None:  # already stored: appending the same event again changes nothing
            return event
        # Only once the write is committed does the in-memory session change.
        apply_event(session, event)
        session.storage_version = seq
        self._state_sizes.remember(session, state_after)
        return event

    def _append(
        self,
        db: sqlite3.Connection,
        key: _Key,
        expected: int | None,
        epoch: float | None,
        event: Event,
        delta: dict[str, Any],
        event_json: str,
    ) -> int | None:
        db.execute("BEGIN IMMEDIATE")
        row = db.execute(
            f"SELECT state, version, create_time FROM sessions WHERE {_WHERE}", key
        ).fetchone()
        if row is None:
            raise SessionNotFoundError(
                f"Session {key[2]!r} of user {key[1]!r} in app {key[0]!r} does not exist;"
                " create it with create_session() first."
            )
        if db.execute(
            f"SELECT 1 FROM events WHERE {_EVENTS_WHERE} AND event_id=?", (*key, event.id)
        ).fetchone():
            db.execute("COMMIT")
            return None
        version = row[1]
        recreated = epoch is not None and epoch != row[2]
        if expected is not None and (expected != version or recreated):
            raise StaleSessionError(
                f"Session {key[2]!r} changed since this copy was read (copy is version"
                f" {expected}, stored is {version}); read it again with get_session() before"
                " appending."
            )
        app_delta, user_delta, session_delta = split_scopes(delta)
        if session_delta:
            stored = load_state(row[0], self._where(key))
            stored.update(session_delta)
            state_json = dump_state(stored)
        else:
            state_json = row[0]
        _merge_scopes(db, key, app_delta, user_delta)
        db.execute(
            "INSERT INTO events (app_name, user_id, session_id, seq, timestamp, data, event_id)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (*key, version + 1, event.timestamp, event_json, event.id),
        )
        db.execute(
            f"UPDATE sessions SET state=?, update_time=?, version=? WHERE {_WHERE}",
            (state_json, event.timestamp, version + 1, *key),
        )
        db.execute("COMMIT")
        return int(version) + 1

    def _state(self, db: sqlite3.Connection, key: _Key, session_json: str) -> dict[str, Any]:
        app = db.execute("SELECT state FROM app_states WHERE app_name=?", key[:1]).fetchone()
        user = db.execute(
            "SELECT state FROM user_states WHERE app_name=? AND user_id=?", key[:2]
        ).fetchone()
        where = self._where(key)
        return merge_scopes(
            load_state(app[0], f"app state in {self.path}") if app else {},
            load_state(user[0], f"user state in {self.path}") if user else {},
            load_state(session_json, where),
        )

    def _where(self, key: _Key) -> str:
        return f"session {key[2]!r} in {self.path}"


def _merge_scopes(
    db: sqlite3.Connection, key: _Key, app_delta: dict[str, Any], user_delta: dict[str, Any]
) -> None:
    """Merge deltas into the app and user rows. The caller's write transaction holds SQLite's
    single write lock, so this read-modify-write cannot lose another writer's keys."""
    if app_delta:
        row = db.execute("SELECT state FROM app_states WHERE app_name=?", key[:1]).fetchone()
        state = load_state(row[0], "app state") if row else {}
        state.update(app_delta)
        db.execute("INSERT OR REPLACE INTO app_states VALUES (?, ?)", (key[0], dump_state(state)))
    if user_delta:
        row = db.execute(
            "SELECT state FROM user_states WHERE app_name=? AND user_id=?", key[:2]
        ).fetchone()
        state = load_state(row[0], "user state") if row else {}
        state.update(user_delta)
        db.execute(
            "INSERT OR REPLACE INTO user_states VALUES (?, ?, ?)",
            (key[0], key[1], dump_state(state)),
        )


def _first_file(folder: Path) -> Path | None:
    """The file (if any) standing where ``folder`` or one of its parents should be."""
    for candidate in (*reversed(folder.parents), folder):
        if candidate.is_file():
            return candidate
    return None
