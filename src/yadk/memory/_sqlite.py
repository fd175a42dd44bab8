"""SqliteMemoryService: remembered messages in a SQLite file, ranked by BM25 (lexical search).

Each user's rows are indexed once per process (``_cache``): every add bumps the user's row of
``memory_versions`` in the same transaction, and a search compares it with the version its
cached index was built at: equal, it ranks at once; different (another process added), it
reads the user's rows again. The process's own adds update the cached index in place.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
from typing import TYPE_CHECKING

from yadk.memory._base import BaseMemoryService, SearchMemoryResponse
from yadk.memory._cache import Row, UserIndex, UserIndexes, rows_of

if TYPE_CHECKING:
    from yadk.sessions import Session

__all__ = ["SqliteMemoryService"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS memories (
    app_name TEXT NOT NULL,
    user_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    author TEXT,
    timestamp TEXT,
    content TEXT NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (app_name, user_id, event_id)
);
CREATE INDEX IF NOT EXISTS memories_by_user ON memories (app_name, user_id);
CREATE TABLE IF NOT EXISTS memory_versions (
    app_name TEXT NOT NULL,
    user_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    PRIMARY KEY (app_name, user_id)
);
"""


class SqliteMemoryService(BaseMemoryService):
    """Durable memory: each text message of a remembered session is a row; a search ranks the
    user's rows by BM25 against the query (no embeddings, no network) and returns the best
    ``top_k`` (default 10, as google-adk returns at most ten). Database work runs in a thread."""

    def __init__(self, path: str | os.PathLike[str], *, top_k: int = 10) -> None:
        self.path = os.fspath(path)
        self.top_k = top_k
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._indexes = UserIndexes()

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            db = sqlite3.connect(self.path, check_same_thread=False)
            db.execute("PRAGMA busy_timeout = 5000")
            # As the session store: WAL lets readers and a writer proceed together, and a
            # commit needs no fsync (a power loss may lose the last adds, never corrupt the file).
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(_SCHEMA)
            self._db = db
        return self._db

    async def add_session_to_memory(self, session: Session) -> None:
        rows = rows_of(session)
        if rows:
            await asyncio.to_thread(self._insert, session, rows)

    def _insert(self, session: Session, rows: list[Row]) -> None:
        app_name, user_id = session.app_name, session.user_id
        values = [
            (app_name, user_id, session.id, r.event_id, r.author, r.timestamp, r.content, r.text)
            for r in rows
        ]
        with self._lock:
            db = self._connection()
            with db:
                db.execute(
                    "INSERT INTO memory_versions VALUES (?, ?, 1)"
                    " ON CONFLICT (app_name, user_id) DO UPDATE SET version = version + 1",
                    (app_name, user_id),
                )
                (version,) = db.execute(
                    "SELECT version FROM memory_versions WHERE app_name = ? AND user_id = ?",
                    (app_name, user_id),
                ).fetchone()
                # INSERT OR REPLACE gives a message remembered again a new rowid: the newest.
                db.executemany(
                    "INSERT OR REPLACE INTO memories VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    values,
                )
            cached = self._indexes.get(app_name, user_id)
            if cached is None:
                return
            if cached.version != version - 1:  # another process added too: read again
                self._indexes.drop(app_name, user_id)
                return
            for row in rows:
                cached.add(row)
            cached.version = version

    async def search_memory(
        self, *, app_name: str, user_id: str, query: str
    ) -> SearchMemoryResponse:
        return await asyncio.to_thread(self._search, app_name, user_id, query)

    def _search(self, app_name: str, user_id: str, query: str) -> SearchMemoryResponse:
        with self._lock:
            return self._user(app_name, user_id).search(query, self.top_k)

    def _user(self, app_name: str, user_id: str) -> UserIndex:
        db = self._connection()
        # The version is read before the rows: an add landing in between only costs a re-read.
        found = db.execute(
            "SELECT version FROM memory_versions WHERE app_name = ? AND user_id = ?",
            (app_name, user_id),
        ).fetchone()
        version = found[0] if found else 0
        cached = self._indexes.get(app_name, user_id)
        if cached is not None and cached.version == version:
            return cached
        user = UserIndex(version=version)
        for row in db.execute(
            "SELECT event_id, author, timestamp, content, text FROM memories"
            " WHERE app_name = ? AND user_id = ? ORDER BY rowid",
            (app_name, user_id),
        ):
            user.add(Row(*row))
        self._indexes.put(app_name, user_id, user)
        return user

    async def close(self) -> None:
        await asyncio.to_thread(self.close_now)

    def close_now(self) -> None:
        """Close the file from synchronous code (waits for a call in flight to finish)."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
