"""Turn locks across processes on PostgreSQL: one session-level advisory lock per session.

Every process that serves turns from one database holds, for the whole turn, the advisory lock
named after the session (``pg_try_advisory_lock`` on a 64-bit hash of schema, app, user and
session id). The locks live on one dedicated connection per process, not on the pool: a turn
that holds its lock for the seconds a model takes does not keep a pooled connection away from
the appends, and a process needs one connection however many turns it runs. Waiting is done by
the caller (a bounded poll, see ``yadk.serve``), so no statement ever blocks on a lock and the
connection stays free for the other sessions' locks.

Advisory locks are re-entrant per connection, which is what makes one connection per process
right: the process serializes its own turns on a session in memory first, so at most one turn of
the process is inside the lock at a time, and an unlock that runs after the next turn's lock
still leaves the lock held once. If the connection drops, the server releases every lock it
held; the next ``try_lock`` reconnects, and the turns still running stay safe from interleaving
writes by the version check of ``append_event``.

psycopg (the ``postgres`` extra) is imported only when a lock connection is opened or a statement
fails.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from yadk.sessions._pg import PgDatabase
from yadk.sessions._pg_statement import Statement

__all__ = ["PgTurnLocks"]

logger = logging.getLogger("yadk.sessions.postgres")

_Key = tuple[str, str, str]
# Prepared statements: two of a served turn's five round trips.
_TRY_LOCK = Statement("SELECT pg_try_advisory_lock(hashtextextended(%(name)s, 0))")
_UNLOCK = Statement("SELECT pg_advisory_unlock(hashtextextended(%(name)s, 0))")


class PgTurnLocks:
    """``try_lock``/``unlock`` of one session's turn lock, shared by every process on the
    database (see the module docstring)."""

    def __init__(self, db: PgDatabase) -> None:
        self.db = db
        self._conn: Any = None
        self._connecting = asyncio.Lock()

    def _name(self, key: _Key) -> str:
        # Names that collide (here or in the hash) only make two sessions wait for each other.
        return "\x1f".join(("yadk-turn", self.db.schema, *key))

    async def try_lock(self, key: _Key) -> bool:
        """Take the session's lock if no other process holds it; never waits."""
        return await self._scalar(_TRY_LOCK, self._name(key), retry=True) is True

    async def unlock(self, key: _Key) -> None:
        """Release the lock taken by ``try_lock`` (once per successful ``try_lock``)."""
        try:
            held = await self._scalar(_UNLOCK, self._name(key), retry=False) is True
        except Exception as exc:  # the server dropped the connection: the lock went with it
            logger.warning("turn lock of session %r not released cleanly: %s", key[2], exc)
            return
        if not held:
            logger.warning(
                "turn lock of session %r was lost before the turn ended (the connection to"
                " %s dropped?)",
                key[2],
                self.db.display,
            )

    async def aclose(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            await conn.close()

    async def _scalar(self, statement: Statement, name: str, *, retry: bool) -> Any:
        for attempt in (1, 2):
            conn = self._conn
            if conn is None or conn.closed:  # connected once, then only when it drops
                conn = await self._connection()
            try:
                return await statement.scalar(conn, {"name": name})
            except Exception as exc:
                from psycopg import OperationalError  # here, not on every lock and unlock

                if not isinstance(exc, OperationalError):
                    raise
                # A dead connection released every lock it held; a new one starts clean.
                if self._conn is conn:
                    self._conn = None
                    await conn.close()
                if attempt == 2 or not retry:
                    raise self.db.translate(exc) from None
        raise AssertionError("unreachable")  # pragma: no cover

    async def _connection(self) -> Any:
        from psycopg import AsyncConnection

        async with self._connecting:
            if self._conn is None or self._conn.closed:
                try:
                    self._conn = await AsyncConnection.connect(
                        self.db.conninfo, **self.db.connect_kwargs()
                    )
                except Exception as exc:
                    raise self.db.translate(exc) from None
            return self._conn
