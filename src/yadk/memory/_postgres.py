"""PostgresMemoryService: remembered messages in PostgreSQL, ranked by BM25 like the SQLite store.

Why BM25 in Python rather than PostgreSQL full-text search: ``ts_rank`` is not BM25 (no length
normalisation against the corpus average, no idf), and ``to_tsvector`` stems and drops stop words
per language configuration, so the same corpus would rank differently here than in
``SqliteMemoryService``. The rows of one user (``app_name``, ``user_id``) are read in insertion
order and ranked by ``yadk._bm25`` — the code the SQLite store and ``LexicalExampleStore`` use —
so both stores return the same memories in the same order. Ranking runs in a worker thread.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

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
    from yadk.sessions._pg import PgDatabase

__all__ = ["PostgresMemoryService"]

_Row = tuple[str | None, ...]


class PostgresMemoryService(BaseMemoryService):
    """Durable memory in PostgreSQL (``yadk[postgres]``): ``PostgresMemoryService(url)`` with a
    ``postgresql://`` URL (``?schema=NAME`` picks the schema, default ``yadk``), or
    ``database=`` to share a session store's pool. Each text message of a remembered session is
    a row of ``<schema>.memories`` (schema version 2, created or migrated as the session tables
    are); a search ranks the user's rows with BM25 and returns the best ``top_k`` (default 10).
    """

    def __init__(
        self,
        url: str = "",
        *,
        top_k: int = 10,
        database: PgDatabase | None = None,
        pool_size: int = 10,
        pool_timeout: float = 10.0,
        statement_timeout: float = 30.0,
    ) -> None:
        from yadk.sessions._pg import PgDatabase

        self._owns_db = database is None
        self.db = database or PgDatabase(
            url,
            pool_size=pool_size,
            pool_timeout=pool_timeout,
            statement_timeout=statement_timeout,
        )
        self.top_k = top_k
        self._table = self.db.table("memories")

    async def add_session_to_memory(self, session: Session) -> None:
        rows: list[_Row] = []
        for event in session.events:
            text = event_text(event)
            if not text:
                continue
            entry = entry_of(event)
            rows.append(
                (
                    session.app_name,
                    session.user_id,
                    event.id,
                    session.id,
                    entry.author,
                    entry.timestamp,
                    entry.content.model_dump_json(exclude_none=True),
                    text,
                )
            )
        if not rows:
            return
        # A message remembered again is replaced and moves to the end (a new seq), as SQLite's
        # INSERT OR REPLACE gives it a new rowid: ties then rank the same in both stores.
        sql = f"""
            INSERT INTO {self._table}
                (app_name, user_id, event_id, session_id, author, timestamp, content, text)
            VALUES (%s, %s, %s, %s, %s, %s, %s, %s)
            ON CONFLICT (app_name, user_id, event_id) DO UPDATE SET
                session_id = excluded.session_id, seq = excluded.seq, author = excluded.author,
                timestamp = excluded.timestamp, content = excluded.content, text = excluded.text"""

        async def insert(conn: Any) -> None:
            async with conn.transaction(), conn.cursor() as cursor:
                await cursor.executemany(sql, rows)

        await self.db.run(insert)

    async def search_memory(
        self, *, app_name: str, user_id: str, query: str
    ) -> SearchMemoryResponse:
        sql = (
            f"SELECT event_id, author, timestamp, content, text FROM {self._table}"
            " WHERE app_name = %s AND user_id = %s ORDER BY seq"
        )

        async def read(conn: Any) -> list[tuple[Any, ...]]:
            found: list[tuple[Any, ...]] = await (
                await conn.execute(sql, (app_name, user_id))
            ).fetchall()
            return found

        rows = await self.db.run(read)
        return await asyncio.to_thread(self._rank, rows, query)

    def _rank(self, rows: list[tuple[Any, ...]], query: str) -> SearchMemoryResponse:
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
        """Close the pool, unless it is a session store's (``database=``), which closes it."""
        if self._owns_db:
            await self.db.close()
