"""Statements sent through libpq directly (``_pg_direct``): values, errors, prepared statements
per connection, concurrent callers on one connection, and a call cancelled mid-exchange."""

from __future__ import annotations

import asyncio
import logging

import psycopg
import pytest
from psycopg import errors

from yadk.errors import SessionError
from yadk.events import Event, EventActions
from yadk.sessions import PostgresSessionService
from yadk.sessions._pg_direct import FLOAT8, INT8, DirectStatement
from yadk.sessions._pg_sql import session_columns

from .test_postgres import _base, _schema


@pytest.fixture
async def conn(postgres_url: str):  # type: ignore[no-untyped-def]
    connection = await psycopg.AsyncConnection.connect(_base(postgres_url), autocommit=True)
    yield connection
    await connection.close()


def test_placeholders_become_numbered_parameters_in_order_of_first_use() -> None:
    statement = DirectStatement(
        "SELECT %(b)s::text, %(a)s::bigint, %(b)s::text", {"a": INT8, "c": FLOAT8}
    )
    assert statement.sql == b"SELECT $1::text, $2::bigint, $1::text"
    assert statement.params == ("b", "a")
    assert statement.types == [0, INT8]


@pytest.mark.parametrize(
    ("value", "sql_type", "expected"),
    [
        ("héllo ✓", "text", "héllo ✓"),
        (42, "bigint", "42"),
        (-7, "bigint", "-7"),
        (2**62, "bigint", str(2**62)),
        (1796156552.8827755, "float8", "1796156552.8827755"),
        (True, "boolean", "true"),
        (False, "boolean", "false"),
        (None, "text", None),
        ('{"k": [1, "ü"]}', "jsonb", '{"k": [1, "ü"]}'),
    ],
)
async def test_values_reach_the_server_as_they_are(
    conn: psycopg.AsyncConnection, value: object, sql_type: str, expected: str | None
) -> None:
    statement = DirectStatement(f"SELECT (%(v)s::{sql_type})::text")
    assert await statement.scalar(conn, {"v": value}) == expected


async def test_a_nul_in_text_is_refused_not_cut_short(conn: psycopg.AsyncConnection) -> None:
    statement = DirectStatement("SELECT %(v)s::text")
    with pytest.raises(psycopg.DataError, match="NUL"):
        await statement.scalar(conn, {"v": "session\x00other"})
    assert await statement.scalar(conn, {"v": "fine"}) == "fine"  # the connection is unharmed


async def test_no_row_is_none(conn: psycopg.AsyncConnection) -> None:
    assert await DirectStatement("SELECT 1 WHERE false").scalar(conn, {}) is None


async def test_server_errors_are_psycopgs_own_and_leave_the_connection_usable(
    conn: psycopg.AsyncConnection,
) -> None:
    await conn.execute("CREATE TEMP TABLE t (k text PRIMARY KEY)")
    insert = DirectStatement("INSERT INTO t VALUES (%(k)s) RETURNING k")
    assert await insert.scalar(conn, {"k": "a"}) == "a"
    with pytest.raises(errors.UniqueViolation):
        await insert.scalar(conn, {"k": "a"})
    with pytest.raises(errors.QueryCanceled):
        await conn.execute("SET statement_timeout = 50")
        await DirectStatement("SELECT pg_sleep(1)").scalar(conn, {})
    await conn.execute("SET statement_timeout = 0")
    with pytest.raises(errors.SyntaxError):
        await DirectStatement("SELEC 1").scalar(conn, {})
    assert await insert.scalar(conn, {"k": "b"}) == "b"


async def test_each_connection_prepares_the_statement_once(postgres_url: str) -> None:
    statement = DirectStatement("SELECT %(v)s::int + 1")
    for _ in range(2):  # a second connection: prepared there too
        connection = await psycopg.AsyncConnection.connect(_base(postgres_url), autocommit=True)
        try:
            for v in range(3):
                assert await statement.scalar(connection, {"v": v}) == str(v + 1)
            found = await (
                await connection.execute(
                    "SELECT count(*) FROM pg_prepared_statements WHERE name = %s",
                    (statement.name.decode(),),
                )
            ).fetchone()
            assert found == (1,)
        finally:
            await connection.close()


async def test_concurrent_callers_on_one_connection_take_turns(
    conn: psycopg.AsyncConnection,
) -> None:
    statement = DirectStatement("SELECT %(v)s::int * 2 FROM pg_sleep(0.001)")
    answers = await asyncio.gather(*(statement.scalar(conn, {"v": v}) for v in range(50)))
    assert answers == [str(v * 2) for v in range(50)]


async def test_an_append_cancelled_mid_exchange_loses_nothing_and_the_pool_recovers(
    postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    service = PostgresSessionService(postgres_url, pool_size=1, pool_timeout=2)
    session = await service.create_session(app_name="app", user_id="u", session_id="s")
    try:
        with psycopg.connect(_base(postgres_url)) as other:  # holds the session row's lock
            other.execute(
                f"SELECT 1 FROM {_schema(postgres_url)}.sessions WHERE id = 's' FOR UPDATE"
            )
            event = Event(author="a", actions=EventActions(state_delta={"k": 1}))
            task = asyncio.ensure_future(service.append_event(session, event))
            await asyncio.sleep(0.3)  # the statement is on the server, waiting for the row
            backends = [
                row[0]
                for row in other.execute(
                    "SELECT pid FROM pg_stat_activity WHERE application_name = %s",
                    (f"yadk:{_schema(postgres_url)}",),
                ).fetchall()
            ]
            task.cancel()
            with (
                caplog.at_level(logging.WARNING, logger="psycopg.pool"),
                pytest.raises(asyncio.CancelledError),
            ):
                await task
            other.rollback()
            # The server finishes the cancelled statement (its client gone) and then ends that
            # backend: wait for it, so what it did is what the next read sees.
            for _ in range(100):
                busy = other.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s"
                    " AND pid = ANY(%s)",
                    (f"yadk:{_schema(postgres_url)}", backends),
                ).fetchone()
                other.rollback()
                if busy == (0,):
                    break
                await asyncio.sleep(0.05)
        assert "closing returned connection" in caplog.text  # not handed out mid-exchange
        # The cancelled statement may have committed once the row was free, or not at all.
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


async def test_a_nul_in_a_session_id_is_a_clear_error(postgres_url: str) -> None:
    service = PostgresSessionService(postgres_url)
    session = await service.create_session(app_name="app", user_id="u", session_id="s")
    session.user_id = "u\x00v"
    try:
        with pytest.raises(SessionError, match="cannot contain NUL"):
            await service.append_event(session, Event(author="a"))
    finally:
        await service.aclose()


async def test_a_column_comes_back_as_the_servers_text_row_by_row(
    conn: psycopg.AsyncConnection,
) -> None:
    statement = DirectStatement(
        "SELECT CASE WHEN n = 2 THEN NULL ELSE json_build_object('n', n, 's', 'ü')::text END"
        " FROM generate_series(1, %(last)s) AS n ORDER BY n",
        {"last": INT8},
    )
    assert await statement.column(conn, {"last": 3}) == [
        '{"n" : 1, "s" : "ü"}'.encode(),
        b"null",  # a NULL reads as JSON null: a row that cannot be an event, named as such
        '{"n" : 3, "s" : "ü"}'.encode(),
    ]
    assert await statement.column(conn, {"last": 0}) == []


async def test_a_header_row_and_the_column_of_the_rows_it_heads(
    conn: psycopg.AsyncConnection,
) -> None:
    statement = DirectStatement(
        "SELECT 0 AS n, 'head' AS h, NULL::text AS d WHERE %(head)s::bool"
        " UNION ALL SELECT n, NULL, CASE WHEN n = 2 THEN NULL ELSE 'row ' || n END"
        " FROM generate_series(1, %(last)s) AS n WHERE %(head)s::bool ORDER BY n",
        {"last": INT8},
    )
    assert await statement.row_and_column(conn, {"head": True, "last": 3}, 2) == (
        [b"0", b"head", None],
        [b"row 1", b"null", b"row 3"],
    )
    assert await statement.row_and_column(conn, {"head": True, "last": 0}, 2) == (
        [b"0", b"head", None],
        [],
    )
    assert await statement.row_and_column(conn, {"head": False, "last": 3}, 2) is None


async def test_a_statement_deallocated_behind_its_back_is_prepared_again(
    conn: psycopg.AsyncConnection,
) -> None:
    statement = DirectStatement("SELECT %(v)s::int + 1")
    assert await statement.scalar(conn, {"v": 1}) == "2"
    await conn.execute("DEALLOCATE ALL")  # what a pooler's DISCARD ALL does too
    assert await statement.scalar(conn, {"v": 2}) == "3"


def test_the_session_rows_text_reads_back_as_python_values() -> None:
    stamp = 1796156552.8827755
    texts = [
        b'{"k": [1, "\xc3\xbc"]}',
        repr(stamp).encode(),
        b"7",
        None,
        b'{"tier": "gold"}',
        b"1.5",
    ]
    assert session_columns(texts) == ({"k": [1, "ü"]}, stamp, 7, None, {"tier": "gold"}, 1.5)


async def test_stamps_read_back_exactly_whatever_the_servers_float_setting(
    postgres_url: str,
) -> None:
    service = PostgresSessionService(postgres_url)
    try:
        shown = await service.db.run(
            lambda c: DirectStatement("SHOW extra_float_digits").scalar(c, {})
        )
        assert shown == "1"  # set by yadk's connections: shortest exact text for floats
        session = await service.create_session(app_name="app", user_id="u")
        stored = await service.get_session(app_name="app", user_id="u", session_id=session.id)
        assert stored is not None and stored.storage_epoch == session.storage_epoch
    finally:
        await service.aclose()


def test_the_libpq_constants_are_psycopgs() -> None:
    from psycopg import pq

    from yadk.sessions import _pg_direct

    assert _pg_direct._SUCCEEDED == (pq.ExecStatus.COMMAND_OK, pq.ExecStatus.TUPLES_OK)
    assert pq.DiagnosticField.SQLSTATE == _pg_direct._SQLSTATE_FIELD
    assert errors.lookup(_pg_direct._NO_SUCH_STATEMENT.decode()) is errors.InvalidSqlStatementName


async def test_a_parameter_larger_than_the_sockets_buffer_is_sent_whole(
    conn: psycopg.AsyncConnection,
) -> None:
    big = "é" * 6_000_000  # 12 MB of UTF-8: more than a socket buffer holds at once
    statement = DirectStatement("SELECT length(%(v)s::text)")
    assert await statement.scalar(conn, {"v": big}) == "6000000"
    assert await statement.scalar(conn, {"v": "ok"}) == "2"
