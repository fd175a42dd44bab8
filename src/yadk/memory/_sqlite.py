"""SqliteMemoryService: remembered messages in a SQLite file, ranked by BM25 (lexical search)."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import threading
from typing import TYPE_CHECKING

from yadk._bm25 import Bm25
from yadk.memory._base import (
    BaseMemoryService,
    MemoryEntry,
    SearchMemoryResponse,
    entry_of,
    event_text,
)
from yadk.types import Content

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

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = sqlite3.connect(self.path, check_same_thread=False)
            self._db.executescript(_SCHEMA)
        return self._db

    async def add_session_to_memory(self, session: Session) -> None:
        rows: list[tuple[str | None, ...]] = []
        for event in session.events:
            text = event_text(event)
            if not text:
                continue
            entry = entry_of(event)
            rows.append(
                (
                    session.app_name,
                    session.user_id,
                    session.id,
                    event.id,
                    entry.author,
                    entry.timestamp,
                    entry.content.model_dump_json(exclude_none=True),
                    text,
                )
            )
        await asyncio.to_thread(self._insert, rows)

    def _insert(self, rows: list[tuple[str | None, ...]]) -> None:
        with self._lock:
            db = self._connection()
            with db:
                db.executemany(
                    "INSERT OR REPLACE INTO memories VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows
                )

    async def search_memory(
        self, *, app_name: str, user_id: str, query: str
    ) -> SearchMemoryResponse:
        return await asyncio.to_thread(self._search, app_name, user_id, query)

    def _search(self, app_name: str, user_id: str, query: str) -> SearchMemoryResponse:
        with self._lock:
            rows = (
                self._connection()
                .execute(
                    "SELECT event_id, author, timestamp, content, text FROM memories"
                    " WHERE app_name = ? AND user_id = ? ORDER BY rowid",
                    (app_name, user_id),
                )
                .fetchall()
            )
        ranked = Bm25([row[4] for row in rows]).rank(query)[: self.top_k]
        return SearchMemoryResponse(
            memories=[
                MemoryEntry(
                    id=rows[index][0],
                    author=rows[index][1],
                    timestamp=rows[index][2],
                    content=Content.model_validate(json.loads(rows[index][3])),
                )
                for index, _ in ranked
            ]
        )

    async def close(self) -> None:
        await asyncio.to_thread(self.close_now)

    def close_now(self) -> None:
        """Close the file from synchronous code (waits for a call in flight to finish)."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
