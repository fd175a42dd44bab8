"""PostgresMemoryService: remembered messages in PostgreSQL, ranked by BM25 like the SQLite store.

Why BM25 in Python rather than PostgreSQL full-text search: ``ts_rank`` is not BM25 (no length
normalisation against the corpus average, no idf), and ``to_tsvector`` stems and drops stop words
per language configuration, so the same corpus would rank differently here than in
``SqliteMemoryService``. Both stores rank with ``yadk._bm25`` over the user's rows in insertion
order, so they return the same memories in the same order.

Each process keeps an index of the users it searched (``_cache``) and brings it up to date with
the rows whose ``seq`` is above the last one it read: one query, usually returning nothing. That
sees every add of every replica because adds of one user are serialised by a transaction-scoped
advisory lock taken before their rows get a ``seq``: a row with a smaller ``seq`` is always
committed before one with a larger. (A message remembered again gets a new ``seq``, so the
process sees it and moves it to the end, as SQLite's INSERT OR REPLACE gives it a new rowid.)
Ranking runs in a worker thread.
"""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING, Any

from yadk.memory._base import BaseMemoryService, SearchMemoryResponse
from yadk.memory._cache import Row, UserIndex, UserIndexes, rows_of
from yadk.sessions import PgDatabase

if TYPE_CHECKING:
    from yadk.sessions import Session

__all__ = ["PostgresMemoryService"]


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
        self._owns_db = database is None
        self.db = database or PgDatabase(
            url,
            pool_size=pool_size,
            pool_timeout=pool_timeout,
            statement_timeout=statement_timeout,
        )
        self.top_k = top_k
        self._table = self.db.table("memories")
        self._indexes = UserIndexes()
        self._indexes_lock = threading.Lock()
        self._ranking = threading.Lock()

    async def add_session_to_memory(self, session: Session) -> None:
        rows = rows_of(session)
        if not rows:
            return
        app_name, user_id = session.app_name, session.user_id
        columns = [
            [r.event_id for r in rows],
            [r.author for r in rows],
            [r.timestamp for r in rows],
            [r.content for r in rows],
            [r.text for r in rows],
        ]
        # One statement (one round trip, its own transaction) for the whole session. It first
        # takes the user's advisory lock, held to its commit: the rows get their seq (in the
        # session's order) only once the lock is held, so one user's adds commit in seq order.
        insert = f"""
            INSERT INTO {self._table}
                (app_name, user_id, event_id, session_id, author, timestamp, content, text)
            SELECT %s, %s, event_id, %s, author, timestamp, content, text
            FROM (SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))) AS locked,
                unnest(%s::text[], %s::text[], %s::text[], %s::text[], %s::text[])
                WITH ORDINALITY AS given (event_id, author, timestamp, content, text, position)
            ORDER BY position
            ON CONFLICT (app_name, user_id, event_id) DO UPDATE SET
                session_id = excluded.session_id, seq = excluded.seq, author = excluded.author,
                timestamp = excluded.timestamp, content = excluded.content, text = excluded.text"""
        key = f"yadk.memories {self._table} {len(app_name)} {app_name} {user_id}"

        async def write(conn: Any) -> None:
            await conn.execute(insert, (app_name, user_id, session.id, key, *columns))

        await self.db.run(write)

    async def search_memory(
        self, *, app_name: str, user_id: str, query: str
    ) -> SearchMemoryResponse:
        with self._indexes_lock:  # held for a dict lookup only: never blocks the loop for long
            user = self._indexes.get(app_name, user_id)
            if user is None:
                user = UserIndex(version=-1)
                self._indexes.put(app_name, user_id, user)
            after = user.version
        sql = (
            f"SELECT seq, event_id, author, timestamp, content, text FROM {self._table}"
            " WHERE app_name = %s AND user_id = %s AND seq > %s ORDER BY seq"
        )

        async def read(conn: Any) -> list[tuple[Any, ...]]:
            found: list[tuple[Any, ...]] = await (
                await conn.execute(sql, (app_name, user_id, after))
            ).fetchall()
            return found

        rows = await self.db.run(read)
        return await asyncio.to_thread(self._rank, user, rows, query)

    def _rank(
        self, user: UserIndex, rows: list[tuple[Any, ...]], query: str
    ) -> SearchMemoryResponse:
        with self._ranking:
            for seq, *fields in rows:
                if seq > user.version:  # a concurrent search may have applied it already
                    user.add(Row(*fields))
                    user.version = seq
            return user.search(query, self.top_k)

    async def close(self) -> None:
        """Close the pool, unless it is a session store's (``database=``), which closes it."""
        if self._owns_db:
            await self.db.close()
