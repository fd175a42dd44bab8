"""The statements a turn runs most, sent through libpq itself rather than psycopg's cursors.

An append, a turn lock, a session's row, the fetch of its stored event rows and a refresh are
prepared statements with a few text parameters and plain text answers. Through
``conn.execute`` psycopg makes a cursor, adapts each parameter, decides whether to prepare, and
waits through its generator machinery; sent here with libpq's own calls (``conn.pgconn``:
prepare once per connection, send, wait for the socket, read the result) a durable append
costs its process about a third less CPU (``bench_postgres.py``'s driver section prints both).
Listings, deletes, filtered reads and schema work stay on psycopg's cursors.

The caller holds the connection (a pooled one it got, or the turn locks' own): the exchange
takes the connection's lock, as psycopg's does, so it never overlaps another statement. Errors
are psycopg's own classes, built from the server's answer (``UniqueViolation``,
``QueryCanceled``, ``OperationalError`` for a lost connection), so callers handle both paths
alike; psycopg is imported only when something went wrong, not on every statement. A call
cancelled mid-exchange leaves its connection busy: the pool closes a connection returned in
that state, and the turn locks run their statements shielded from cancellation.
"""

from __future__ import annotations

import asyncio
import itertools
import re
import weakref
from collections.abc import Mapping
from typing import Any

__all__ = ["FLOAT8", "INT8", "DirectStatement"]

INT8 = 20
FLOAT8 = 701
_PLACEHOLDER = re.compile(r"%\((\w+)\)s")
_names = itertools.count(1)
# The statements each connection has prepared (a new connection prepares them again).
_prepared: weakref.WeakKeyDictionary[Any, set[bytes]] = weakref.WeakKeyDictionary()


class DirectStatement:
    """One SQL text with ``%(name)s`` parameters, prepared on each connection the first time it
    runs there. Parameters are sent as text; ``types`` gives the type of those the SQL does not
    make plain by itself (``INT8``, ``FLOAT8``; the rest are left for the server to infer, as
    psycopg does for ``str``)."""

    def __init__(self, sql: str, types: Mapping[str, int] | None = None) -> None:
        order: list[str] = []

        def number(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in order:
                order.append(name)
            return f"${order.index(name) + 1}"

        self.sql = _PLACEHOLDER.sub(number, sql).encode()
        self.params = tuple(order)
        self.types = [(types or {}).get(name, 0) for name in order]
        self.name = f"yadk_direct_{next(_names)}".encode()

    async def scalar(self, conn: Any, values: Mapping[str, Any]) -> str | None:
        """Run the statement with ``values`` on ``conn``; the first column of its first row as
        text (``None`` for no row or NULL). Raises psycopg's error for what the server refused."""
        result = await self._run(conn, values)
        if result.ntuples == 0:
            return None
        value = result.get_value(0, 0)
        return None if value is None else bytes(value).decode()

    async def first_row(self, conn: Any, values: Mapping[str, Any]) -> list[bytes | None] | None:
        """Run the statement; its first row's columns as the server sent their text (``None``
        for NULL), or ``None`` when it returned no row."""
        result = await self._run(conn, values)
        return _row(result, 0) if result.ntuples else None

    async def column(self, conn: Any, values: Mapping[str, Any]) -> list[bytes]:
        """Run the statement; the first column of every row, as the server sent its text (a
        NULL is ``b"null"``: this is for columns of JSON text)."""
        return _column(await self._run(conn, values), 0, first=0)

    async def row_and_column(
        self, conn: Any, values: Mapping[str, Any], column: int
    ) -> tuple[list[bytes | None], list[bytes]] | None:
        """Run the statement; its first row's columns (as ``first_row``) and ``column`` of
        every later row (as ``column``), or ``None`` when it returned no row: a header row and
        the rows it heads, in one round trip and one snapshot."""
        result = await self._run(conn, values)
        if not result.ntuples:
            return None
        return _row(result, 0), _column(result, column, first=1)

    async def _run(self, conn: Any, values: Mapping[str, Any]) -> Any:
        params = [_text(values[name]) for name in self.params]
        async with conn.lock:
            pgconn = conn.pgconn
            prepared = _prepared.get(conn)
            if prepared is None:
                prepared = _prepared[conn] = set()
            for attempt in (1, 2):
                if self.name not in prepared:
                    pgconn.send_prepare(self.name, self.sql, self.types)
                    _check(await _answer(pgconn), conn)
                    prepared.add(self.name)
                pgconn.send_query_prepared(self.name, params)
                result = await _answer(pgconn)
                if _succeeded(result):
                    return result
                if attempt == 2 or _sqlstate(result) != _NO_SUCH_STATEMENT:
                    _check(result, conn)
                # Deallocated behind our back (DISCARD ALL by a pooler or a reset function):
                # prepare it again, once.
                prepared.clear()
        raise AssertionError("unreachable")  # pragma: no cover


def _row(result: Any, row: int) -> list[bytes | None]:
    """One row of ``result``, each column as the server sent its text (``None`` for NULL)."""
    return [result.get_value(row, column) for column in range(result.nfields)]


def _column(result: Any, column: int, *, first: int) -> list[bytes]:
    """``column`` of the rows of ``result`` from ``first`` on, NULL as JSON's ``b"null"``."""
    get = result.get_value
    return [get(row, column) or b"null" for row in range(first, result.ntuples)]


def _text(value: Any) -> bytes | None:
    """A parameter in PostgreSQL's text form."""
    kind = type(value)
    if kind is str:
        if "\x00" in value:  # libpq's text parameters end at a NUL: refuse, as psycopg does
            from psycopg import DataError

            raise DataError("PostgreSQL text fields cannot contain NUL (0x00) bytes")
        return value.encode()  # type: ignore[no-any-return]
    if value is None:
        return None
    if kind is bool:
        return b"t" if value else b"f"
    if kind is int or kind is float:
        return repr(value).encode()
    return _text(str(value))


async def _answer(pgconn: Any) -> Any:
    """Flush what was sent, then wait for the statement's result and the end of its answer."""
    loop = asyncio.get_running_loop()
    if pgconn.flush():  # the socket's buffer is full: send the rest as it drains
        writable = _Readiness(loop, pgconn.socket, write=True)
        try:
            while pgconn.flush():
                await writable.wait()
        finally:
            writable.close()
    readable: _Readiness | None = None
    result = None
    try:
        while True:
            pgconn.consume_input()
            if pgconn.is_busy():
                # Watched from the first wait to the last: a result of many rows arrives in
                # many reads, and registering the socket anew for each cost a loop turn more.
                readable = readable or _Readiness(loop, pgconn.socket, write=False)
                await readable.wait()
                continue
            got = pgconn.get_result()
            if got is None:
                return result
            if result is None:  # one statement, one result; then None ends the answer
                result = got
    finally:
        if readable is not None:
            readable.close()


class _Readiness:
    """The event loop watching a socket until ``close``; ``wait`` returns once it is ready."""

    def __init__(self, loop: asyncio.AbstractEventLoop, fd: int, *, write: bool) -> None:
        self.loop, self.fd, self.write = loop, fd, write
        self.waiter: asyncio.Future[None] | None = None
        (loop.add_writer if write else loop.add_reader)(fd, self._wake)

    def _wake(self) -> None:
        # The socket stays ready until it is read: seen again before the waiter resumes, or
        # while no one waits, this does nothing.
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    async def wait(self) -> None:
        self.waiter = self.loop.create_future()
        try:
            await self.waiter
        finally:
            self.waiter = None

    def close(self) -> None:
        (self.loop.remove_writer if self.write else self.loop.remove_reader)(self.fd)


# libpq's PGRES_COMMAND_OK and PGRES_TUPLES_OK (psycopg's pq.ExecStatus), and the SQLSTATE of
# "prepared statement does not exist".
_SUCCEEDED = (1, 2)
_NO_SUCH_STATEMENT = b"26000"
_SQLSTATE_FIELD = ord("C")  # PG_DIAG_SQLSTATE


def _succeeded(result: Any) -> bool:
    return result is not None and result.status in _SUCCEEDED


def _sqlstate(result: Any) -> bytes | None:
    return None if result is None else result.error_field(_SQLSTATE_FIELD)


def _check(result: Any, conn: Any) -> Any:
    """``result`` if the statement succeeded, else psycopg's error for what the server said."""
    if _succeeded(result):
        return result
    from psycopg import OperationalError, errors

    if result is None:
        raise OperationalError("the server sent no result (connection lost?)")
    raise errors.error_from_result(result, encoding=conn.info.encoding)
