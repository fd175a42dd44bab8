"""Prepared statements through psycopg's public API (``_pg_statement``): values, errors, a
header row with the rows it heads, statements deallocated behind psycopg's back, and a call
cancelled mid-statement."""

from __future__ import annotations

import asyncio
import logging

import psycopg
import pytest
from psycopg import errors

from yadk.errors import SessionError
from yadk.events import Event, EventActions
from yadk.sessions import PostgresSessionService
from yadk.sessions._pg_statement import Statement

from .test_postgres import _base, _schema

pytestmark = pytest.mark.postgres


@pytest.fixture
async def conn(postgres_url: str):  # type: ignore[no-untyped-def]
    connection = await psycopg.AsyncConnection.connect(_base(postgres_url), autocommit=True)
    yield connection
    await connection.close()


async def test_values_and_no_row(conn: psycopg.AsyncConnection) -> None:
    statement = Statement("SELECT %(s)s::text || 'ü', %(n)s::bigint * 2 WHERE %(go)s::bool")
    assert await statement.first_row(conn, {"s": "a", "n": 2**40, "go": True}) == (
        "aü",
        2**41,
    )
    assert await statement.first_row(conn, {"s": "a", "n": 1, "go": False}) is None
    assert await statement.scalar(conn, {"s": "a", "n": 1, "go": False}) is None


async def test_server_errors_are_psycopgs_own_and_leave_the_connection_usable(
    conn: psycopg.AsyncConnection,
) -> None:
    statement = Statement("SELECT 1 / %(v)s::int")
    with pytest.raises(errors.DivisionByZero):
        await statement.scalar(conn, {"v": 0})
    assert await statement.scalar(conn, {"v": 1}) == 1


async def test_a_header_row_and_the_column_of_the_rows_it_heads(
    conn: psycopg.AsyncConnection,
) -> None:
    statement = Statement(
        "SELECT 0 AS n, 'head' AS h, NULL::text AS d WHERE %(head)s::bool"
        " UNION ALL SELECT n, NULL, 'row ' || n"
        " FROM generate_series(1, %(last)s::int) AS n WHERE %(head)s::bool ORDER BY n"
    )
    assert await statement.row_and_column(conn, {"head": True, "last": 2}, 2) == (
        (0, "head", None),
        ["row 1", "row 2"],
    )
    assert await statement.row_and_column(conn, {"head": True, "last": 0}, 2) == (
        (0, "head", None),
        [],
    )
    assert await statement.row_and_column(conn, {"head": False, "last": 3}, 2) is None


async def test_a_statement_deallocated_is_prepared_again(conn: psycopg.AsyncConnection) -> None:
    statement = Statement("SELECT %(v)s::int + 1")
    assert await statement.scalar(conn, {"v": 1}) == 2
    await conn.execute("DEALLOCATE ALL")
    assert await statement.scalar(conn, {"v": 2}) == 3


async def test_a_nul_in_a_session_id_is_a_clear_error(postgres_url: str) -> None:
    service = PostgresSessionService(postgres_url)
    session = await service.create_session(app_name="app", user_id="u", session_id="s")
    session.user_id = "u\x00v"
    try:
        with pytest.raises(SessionError, match="cannot contain NUL"):
            await service.append_event(session, Event(author="a"))
    finally:
        await service.aclose()


async def test_stamps_read_back_exactly(postgres_url: str) -> None:
    service = PostgresSessionService(postgres_url)
    try:
        session = await service.create_session(app_name="app", user_id="u")
        stored = await service.get_session(app_name="app", user_id="u", session_id=session.id)
        assert stored is not None and stored.storage_epoch == session.storage_epoch
        refreshed = await service.refresh_session(stored)
        assert refreshed and stored.storage_epoch == session.storage_epoch
    finally:
        await service.aclose()


async def test_an_append_cancelled_mid_statement_loses_nothing_and_the_pool_recovers(
    postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    service = PostgresSessionService(postgres_url, pool_size=1, pool_timeout=2)
    session = await service.create_session(app_name="app", user_id="u", session_id="s")
    schema = _schema(postgres_url)
    try:
        async with await psycopg.AsyncConnection.connect(_base(postgres_url)) as other:
            # Holds the session row's lock, so the append waits on the server.
            await other.execute(f"SELECT 1 FROM {schema}.sessions WHERE id = 's' FOR UPDATE")
            event = Event(author="a", actions=EventActions(state_delta={"k": 1}))
            task = asyncio.ensure_future(service.append_event(session, event))
            for _ in range(200):  # wait until the append is blocked on the row lock
                waiting = await (
                    await other.execute(
                        "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s"
                        " AND wait_event_type = 'Lock'",
                        (f"yadk:{schema}",),
                    )
                ).fetchone()
                if waiting == (1,):
                    break
                await asyncio.sleep(0.02)
            assert waiting == (1,)
            task.cancel()
            with (
                caplog.at_level(logging.WARNING, logger="psycopg.pool"),
                pytest.raises(asyncio.CancelledError),
            ):
                await task
            await other.rollback()
        # Cancelled or committed once the row was free: either way, one coherent session.
        stored = await service.get_session(app_name="app", user_id="u", session_id="s")
        assert stored is not None and len(stored.events) in (0, 1)
        assert stored.state == ({"k": 1} if stored.events else {})
        again = Event(author="a", actions=EventActions(state_delta={"k": 2}))
        await service.append_event(stored, again)  # the pool's one connection works again
        final = await service.get_session(app_name="app", user_id="u", session_id="s")
        assert final is not None and final.state == {"k": 2}
        assert [e.id for e in final.events][-1] == again.id
    finally:
        await service.aclose()
