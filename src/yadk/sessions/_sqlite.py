"""SqliteSessionService: durable sessions in one SQLite file.

Each ``append_event`` is one transaction: it checks the session's version (a writer holding an
older copy gets ``StaleSessionError`` instead of silently overwriting), stores the event, merges
the delta into the session, user and app state rows, and bumps the version. The file uses WAL
journaling so readers never block the writer.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from yadk.errors import AlreadyExistsError, SessionError, SessionNotFoundError, StaleSessionError
from yadk.events import Event
from yadk.sessions._base import (
    BaseSessionService,
    GetSessionConfig,
    ListSessionsResponse,
    apply_event,
)
from yadk.sessions._session import Session
from yadk.sessions._state import merge_scopes, split_scopes

__all__ = ["SqliteSessionService"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS app_states (
    app_name TEXT PRIMARY KEY,
    state TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS user_states (
    app_name TEXT NOT NULL,
    user_id TEXT NOT NULL,
    state TEXT NOT NULL,
    PRIMARY KEY (app_name, user_id)
);
CREATE TABLE IF NOT EXISTS sessions (
    app_name TEXT NOT NULL,
    user_id TEXT NOT NULL,
    id TEXT NOT NULL,
    state TEXT NOT NULL,
    create_time REAL NOT NULL,
    update_time REAL NOT NULL,
    version INTEGER NOT NULL,
    PRIMARY KEY (app_name, user_id, id)
);
CREATE TABLE IF NOT EXISTS events (
    app_name TEXT NOT NULL,
    user_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    timestamp REAL NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (app_name, user_id, session_id, seq)
);
"""


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
                f"Unsupported session database {text!r}: give a file path or a sqlite:/// URL."
            )
    return Path(text)


class SqliteSessionService(BaseSessionService):
    """Sessions stored in a SQLite file (created with its folder if missing)."""

    def __init__(self, db: str | os.PathLike[str]) -> None:
        self.path = sqlite_path(db)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise SessionError(f"Cannot open session database {self.path}: {exc}") from None
        self._lock = threading.Lock()

    def close(self) -> None:
        self._conn.close()

    async def aclose(self) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

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
        now = time.time()
        with self._transaction() as db:
            exists = db.execute(
                "SELECT 1 FROM sessions WHERE app_name=? AND user_id=? AND id=?",
                (app_name, user_id, session_id),
            ).fetchone()
            if exists:
                raise AlreadyExistsError(f"Session with id {session_id!r} already exists.")
            self._merge_scope(db, "app", app_name, user_id, app_delta)
            self._merge_scope(db, "user", app_name, user_id, user_delta)
            db.execute(
                "INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, 0)",
                (app_name, user_id, session_id, _dumps(session_state), now, now),
            )
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
        if config is not None:
            num_recent_events = config.num_recent_events
            after_timestamp = config.after_timestamp
        with self._lock:
            row = self._conn.execute(
                "SELECT state, update_time, version FROM sessions"
                " WHERE app_name=? AND user_id=? AND id=?",
                (app_name, user_id, session_id),
            ).fetchone()
            if row is None:
                return None
            query = "SELECT data FROM events WHERE app_name=? AND user_id=? AND session_id=?"
            params: list[Any] = [app_name, user_id, session_id]
            if after_timestamp is not None:
                query += " AND timestamp >= ?"
                params.append(after_timestamp)
            if num_recent_events is not None:
                params.append(max(num_recent_events, 0))
                rows = self._conn.execute(query + " ORDER BY seq DESC LIMIT ?", params).fetchall()
                rows.reverse()
            else:
                rows = self._conn.execute(query + " ORDER BY seq", params).fetchall()
            app_state, user_state = self._scopes(app_name, user_id)
        return Session(
            id=session_id,
            app_name=app_name,
            user_id=user_id,
            state=merge_scopes(app_state, user_state, json.loads(row[0])),
            events=[Event.model_validate_json(r[0]) for r in rows],
            last_update_time=row[1],
            storage_version=row[2],
        )

    async def list_sessions(
        self, *, app_name: str, user_id: str | None = None
    ) -> ListSessionsResponse:
        with self._lock:
            query = "SELECT user_id, id, state, update_time, version FROM sessions WHERE app_name=?"
            params: list[Any] = [app_name]
            if user_id is not None:
                query += " AND user_id=?"
                params.append(user_id)
            rows = self._conn.execute(query + " ORDER BY update_time", params).fetchall()
            sessions = []
            for uid, sid, state, update_time, version in rows:
                app_state, user_state = self._scopes(app_name, uid)
                sessions.append(
                    Session(
                        id=sid,
                        app_name=app_name,
                        user_id=uid,
                        state=merge_scopes(app_state, user_state, json.loads(state)),
                        last_update_time=update_time,
                        storage_version=version,
                    )
                )
        return ListSessionsResponse(sessions=sessions)

    async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
        with self._transaction() as db:
            key = (app_name, user_id, session_id)
            db.execute("DELETE FROM events WHERE app_name=? AND user_id=? AND session_id=?", key)
            db.execute("DELETE FROM sessions WHERE app_name=? AND user_id=? AND id=?", key)

    async def append_event(self, session: Session, event: Event) -> Event:
        if event.partial:
            return event
        key = (session.app_name, session.user_id, session.id)
        with self._transaction() as db:
            row = db.execute(
                "SELECT state, version FROM sessions WHERE app_name=? AND user_id=? AND id=?", key
            ).fetchone()
            if row is None:
                raise SessionNotFoundError(
                    f"Session {session.id!r} of user {session.user_id!r} in app"
                    f" {session.app_name!r} does not exist; create it with create_session()"
                    " first."
                )
            stored_state, version = json.loads(row[0]), row[1]
            if session.storage_version is not None and session.storage_version != version:
                raise StaleSessionError(
                    f"Session {session.id!r} changed since this copy was read (copy is version"
                    f" {session.storage_version}, stored is {version}); read it again with"
                    " get_session() before appending."
                )
            delta = {
                k: v for k, v in event.actions.state_delta.items() if not k.startswith("temp:")
            }
            app_delta, user_delta, session_delta = split_scopes(delta)
            stored_state.update(session_delta)
            state_json = _dumps(stored_state)
            try:
                event_json = event.model_copy(
                    update={"actions": event.actions.model_copy(update={"state_delta": delta})}
                ).model_dump_json(exclude_none=True)
            except ValueError as exc:
                raise SessionError(
                    f"Event {event.id} cannot be stored: its values must be JSON-serialisable"
                    f" ({exc})."
                ) from None
            self._merge_scope(db, "app", session.app_name, session.user_id, app_delta)
            self._merge_scope(db, "user", session.app_name, session.user_id, user_delta)
            db.execute(
                "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)",
                (*key, version + 1, event.timestamp, event_json),
            )
            db.execute(
                "UPDATE sessions SET state=?, update_time=?, version=?"
                " WHERE app_name=? AND user_id=? AND id=?",
                (state_json, event.timestamp, version + 1, *key),
            )
        # Only once the write is committed does the in-memory session change.
        apply_event(session, event)
        session.storage_version = version + 1
        return event

    def _scopes(self, app_name: str, user_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
        app = self._conn.execute(
            "SELECT state FROM app_states WHERE app_name=?", (app_name,)
        ).fetchone()
        user = self._conn.execute(
            "SELECT state FROM user_states WHERE app_name=? AND user_id=?", (app_name, user_id)
        ).fetchone()
        return (json.loads(app[0]) if app else {}), (json.loads(user[0]) if user else {})

    @staticmethod
    def _merge_scope(
        db: sqlite3.Connection, scope: str, app_name: str, user_id: str, delta: dict[str, Any]
    ) -> None:
        if not delta:
            return
        if scope == "app":
            row = db.execute(
                "SELECT state FROM app_states WHERE app_name=?", (app_name,)
            ).fetchone()
            state = json.loads(row[0]) if row else {}
            state.update(delta)
            db.execute("INSERT OR REPLACE INTO app_states VALUES (?, ?)", (app_name, _dumps(state)))
        else:
            row = db.execute(
                "SELECT state FROM user_states WHERE app_name=? AND user_id=?", (app_name, user_id)
            ).fetchone()
            state = json.loads(row[0]) if row else {}
            state.update(delta)
            db.execute(
                "INSERT OR REPLACE INTO user_states VALUES (?, ?, ?)",
                (app_name, user_id, _dumps(state)),
            )


def _dumps(value: dict[str, Any]) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise SessionError(
            f"State values must be JSON-serialisable to be stored in SQLite: {exc}"
        ) from None
