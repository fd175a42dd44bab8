"""PostgresSessionService beyond the contract: concurrent writers, many processes, faults."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator

import psycopg
import pytest

from yadk.errors import (
    SessionError,
    SessionStoreBusyError,
    SessionStoreError,
    SessionStoreSchemaError,
    StaleSessionError,
)
from yadk.events import Event, EventActions
from yadk.sessions import PostgresSessionService
from yadk.sessions._pg import SCHEMA_VERSION


def _event(delta: dict | None = None) -> Event:
    return Event(author="agent", actions=EventActions(state_delta=dict(delta or {})))


def _schema(url: str) -> str:
    return url.rsplit("schema=", 1)[1]


def _base(url: str) -> str:
    return url.split("?", 1)[0]


@pytest.fixture
async def service(postgres_url: str) -> AsyncIterator[PostgresSessionService]:
    store = PostgresSessionService(postgres_url, pool_size=4, pool_timeout=1.0)
    yield store
    await store.aclose()


async def test_concurrent_writers_of_one_session_exactly_one_wins(
    service: PostgresSessionService,
) -> None:
    s = await service.create_session(app_name="app", user_id="u")
    copies = [
        await service.get_session(app_name="app", user_id="u", session_id=s.id) for _ in range(8)
    ]
    results = await asyncio.gather(
        *(service.append_event(c, _event({"winner": i})) for i, c in enumerate(copies) if c),
        return_exceptions=True,
    )
    assert sum(isinstance(r, Event) for r in results) == 1
    assert all(isinstance(r, StaleSessionError) for r in results if not isinstance(r, Event))
    stored = await service.get_session(app_name="app", user_id="u", session_id=s.id)
    assert stored is not None and len(stored.events) == 1


@pytest.mark.parametrize(
    "delta",
    [{}, {"k": 1}, {"app:a": 1}, {"user:u": 1}, {"k": 1, "app:a": 2, "user:u": 3, "temp:t": 4}],
)
@pytest.mark.parametrize("checked", [True, False])
async def test_every_shape_of_the_append_statement_stores_and_merges(
    service: PostgresSessionService, delta: dict[str, int], checked: bool
) -> None:
    """The append statement leaves out the checks and merges an event does not need
    (``_pg_sql``): each shape stores the event and merges what the event carries."""
    from yadk.sessions import Session

    s = await service.create_session(app_name="app", user_id="u", state={"k": 0})
    if not checked:  # a copy made by hand: no version or stamp to check against
        s = Session(id=s.id, app_name="app", user_id="u", state=dict(s.state))
    await service.append_event(s, _event(delta))
    await service.append_event(s, _event())
    stored = await service.get_session(app_name="app", user_id="u", session_id=s.id)
    expected = {"k": 0, **{k: v for k, v in delta.items() if not k.startswith("temp:")}}
    assert stored is not None and stored.state == expected and len(stored.events) == 2
    assert stored.storage_version == 2 and s.state == {**expected, **delta}


async def test_a_session_deleted_while_appends_run_leaves_no_events_behind(
    service: PostgresSessionService, postgres_url: str
) -> None:
    """The delete and the append statement keep events with their session (the session row's
    lock, and the events' foreign key to their session)."""
    s = await service.create_session(app_name="app", user_id="u", session_id="doomed")
    gone = asyncio.Event()
    appending = asyncio.Event()

    async def append_until_gone() -> int:
        stored = 0
        while True:
            try:
                await service.append_event(s, _event({"n": stored}))
                stored += 1
            except SessionError:  # SessionNotFoundError once the delete is committed
                return stored
            if stored == 3:
                appending.set()
            await asyncio.sleep(0)

    async def delete_soon() -> None:
        await appending.wait()  # the delete races appends already under way
        await service.delete_session(app_name="app", user_id="u", session_id="doomed")
        gone.set()

    stored, _ = await asyncio.gather(append_until_gone(), delete_soon())
    assert gone.is_set() and stored > 0
    with psycopg.connect(_base(postgres_url)) as conn:
        left = conn.execute(
            f"SELECT count(*) FROM {_schema(postgres_url)}.events WHERE session_id = 'doomed'"
        ).fetchone()
    assert left == (0,)


async def test_sessions_of_one_user_never_lose_each_others_user_and_app_keys(
    service: PostgresSessionService,
) -> None:
    sessions = [await service.create_session(app_name="app", user_id="u") for _ in range(8)]

    async def write(index: int) -> None:
        for round_ in range(10):
            await service.append_event(
                sessions[index],
                _event({f"user:s{index}": round_, f"app:s{index}": round_, "own": round_}),
            )

    await asyncio.gather(*(write(i) for i in range(8)))
    stored = await service.get_session(app_name="app", user_id="u", session_id=sessions[0].id)
    assert stored is not None
    assert {k: v for k, v in stored.state.items() if k.startswith("user:")} == {
        f"user:s{i}": 9 for i in range(8)
    }
    assert {k: v for k, v in stored.state.items() if k.startswith("app:")} == {
        f"app:s{i}": 9 for i in range(8)
    }


_WRITER = """
import asyncio, sys
from yadk.errors import StaleSessionError
from yadk.events import Event, EventActions
from yadk.sessions import PostgresSessionService

async def main(url, worker):
    service = PostgresSessionService(url, pool_size=2)
    for n in range(200):
        sid = f"s{(n + worker) % 20}"
        while True:
            session = await service.get_session(app_name="app", user_id="u", session_id=sid)
            event = Event(author=f"w{worker}", invocation_id=f"w{worker}-{n}",
                          actions=EventActions(state_delta={"count": session.state.get("count", 0) + 1,
                                                            f"user:w{worker}": n}))
            try:
                await service.append_event(session, event)
                break
            except StaleSessionError:
                continue
    await service.aclose()

asyncio.run(main(sys.argv[1], int(sys.argv[2])))
"""


@pytest.mark.subprocess
async def test_four_processes_append_200_events_each_over_20_sessions(
    service: PostgresSessionService, postgres_url: str
) -> None:
    for i in range(20):
        await service.create_session(app_name="app", user_id="u", session_id=f"s{i}")
    procs = [
        await asyncio.create_subprocess_exec(sys.executable, "-c", _WRITER, postgres_url, str(w))
        for w in range(4)
    ]
    assert [await asyncio.wait_for(p.wait(), 240) for p in procs] == [0, 0, 0, 0]
    total = 0
    seen: set[str] = set()
    for i in range(20):
        s = await service.get_session(app_name="app", user_id="u", session_id=f"s{i}")
        assert s is not None
        # Every event is present once, and the counter is the sum of its +1 deltas.
        assert s.state["count"] == len(s.events)
        assert len({e.invocation_id for e in s.events}) == len(s.events)
        seen.update(e.invocation_id for e in s.events)
        total += len(s.events)
    assert total == 800 and len(seen) == 800
    assert {k: v for k, v in s.state.items() if k.startswith("user:")} == {
        f"user:w{w}": 199 for w in range(4)
    }


async def test_terminated_connections_are_replaced(
    service: PostgresSessionService, postgres_url: str
) -> None:
    s = await service.create_session(app_name="app", user_id="u")
    await service.append_event(s, _event({"k": 1}))
    with psycopg.connect(_base(postgres_url), autocommit=True) as admin:
        killed = admin.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE application_name = %s",
            (f"yadk:{_schema(postgres_url)}",),
        ).fetchone()
    assert killed is not None and killed[0] >= 1
    await service.append_event(s, _event({"k": 2}))  # a fresh connection, the write retried
    stored = await service.get_session(app_name="app", user_id="u", session_id=s.id)
    assert stored is not None and stored.state == {"k": 2} and len(stored.events) == 2


async def test_an_unreachable_server_is_a_clear_error() -> None:
    service = PostgresSessionService(
        "postgresql://postgres@127.0.0.1:1/test?connect_timeout=2", pool_timeout=2
    )
    with pytest.raises(SessionStoreError) as caught:
        await service.get_session(app_name="a", user_id="u", session_id="s")
    assert (
        caught.value.message.startswith(
            "Lost the connection to PostgreSQL at postgresql://postgres@127.0.0.1:1/test"
        )
        or "PostgreSQL at postgresql://postgres@127.0.0.1:1/test" in caught.value.message
    )
    await service.aclose()


async def test_statement_timeout_is_a_busy_error(postgres_url: str) -> None:
    service = PostgresSessionService(postgres_url, statement_timeout=0.3)
    s = await service.create_session(app_name="app", user_id="u", session_id="locked")
    with psycopg.connect(_base(postgres_url)) as other:  # holds the session row's lock
        other.execute(
            f"SELECT 1 FROM {_schema(postgres_url)}.sessions WHERE id = 'locked' FOR UPDATE"
        )
        with pytest.raises(SessionStoreBusyError, match="ran past the 0.3 s statement timeout"):
            await service.append_event(s, _event({"k": 1}))
        other.rollback()
    await service.append_event(s, _event({"k": 1}))  # nothing half-written: the copy is current
    await service.aclose()


async def test_pool_exhaustion_waits_then_says_so(postgres_url: str) -> None:
    service = PostgresSessionService(postgres_url, pool_size=1, pool_timeout=0.3)
    await service.create_session(app_name="app", user_id="u", session_id="s")
    pool = service.db._pool
    async with pool.connection():  # the only connection is busy
        with pytest.raises(SessionStoreBusyError) as caught:
            await service.get_session(app_name="app", user_id="u", session_id="s")
    assert caught.value.message == (
        f"All 1 connections to PostgreSQL at {_base(postgres_url)}?schema={_schema(postgres_url)}"
        " stayed busy for more than 0.3 s. Raise the pool size, or run fewer turns at once."
    )
    assert await service.get_session(app_name="app", user_id="u", session_id="s") is not None
    await service.aclose()


async def test_newer_schema_is_refused(postgres_url: str) -> None:
    first = PostgresSessionService(postgres_url)
    await first.create_session(app_name="app", user_id="u")
    await first.aclose()
    with psycopg.connect(_base(postgres_url), autocommit=True) as admin:
        admin.execute(
            f"UPDATE {_schema(postgres_url)}.yadk_schema SET version = %s", (SCHEMA_VERSION + 1,)
        )
    later = PostgresSessionService(postgres_url)
    with pytest.raises(SessionStoreSchemaError, match="written by a newer yadk"):
        await later.get_session(app_name="app", user_id="u", session_id="x")
    await later.aclose()


def test_bad_schema_name_is_refused() -> None:
    with pytest.raises(SessionError, match="Invalid \\?schema='Bad-Name'"):
        PostgresSessionService("postgresql://127.0.0.1/test?schema=Bad-Name")


async def test_turn_locks_exclude_other_processes_until_released(postgres_url: str) -> None:
    # Two services = two processes' worth of connections to one schema.
    mine, theirs = PostgresSessionService(postgres_url), PostgresSessionService(postgres_url)
    key = ("app", "u", "s")
    try:
        a, b = mine.turn_locks(), theirs.turn_locks()
        assert await a.try_lock(key) is True
        assert await a.try_lock(key) is True  # re-entrant within the process
        assert await b.try_lock(key) is False
        assert await b.try_lock(("app", "u", "other")) is True
        await a.unlock(key)
        assert await b.try_lock(key) is False  # still held once
        await a.unlock(key)
        assert await b.try_lock(key) is True
    finally:
        await mine.aclose()
        await theirs.aclose()


async def test_turn_locks_go_with_a_dropped_connection_and_come_back(postgres_url: str) -> None:
    mine, theirs = PostgresSessionService(postgres_url), PostgresSessionService(postgres_url)
    key = ("app", "u", "s")
    try:
        a, b = mine.turn_locks(), theirs.turn_locks()
        assert await a.try_lock(key) is True
        with psycopg.connect(_base(postgres_url), autocommit=True) as admin:
            admin.execute(  # only this test's lock holder: other runs share the server
                "SELECT pg_terminate_backend(l.pid) FROM pg_locks l JOIN pg_stat_activity a"
                " ON a.pid = l.pid WHERE l.locktype = 'advisory' AND a.application_name = %s",
                (f"yadk:{_schema(postgres_url)}",),
            )
            while admin.execute(  # the server ends the backend, and its locks, on its own time
                "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
                " WHERE l.locktype = 'advisory' AND a.application_name = %s",
                (f"yadk:{_schema(postgres_url)}",),
            ).fetchone() != (0,):
                await asyncio.sleep(0)
        assert await b.try_lock(key) is True  # the server released the dead one's lock
        await b.unlock(key)
        assert await a.try_lock(key) is True  # and the next try reconnects
    finally:
        await mine.aclose()
        await theirs.aclose()


async def test_a_damaged_row_is_named_by_its_place_in_the_whole_read(postgres_url: str) -> None:
    service = PostgresSessionService(postgres_url)
    try:
        s = await service.create_session(app_name="app", user_id="u")
        for i in range(300):
            await service.append_event(s, _event({"n": i}))
        with psycopg.connect(_base(postgres_url), autocommit=True) as conn:
            conn.execute(
                f"UPDATE {_schema(postgres_url)}.events SET data = '{{\"oops\": 1}}'"
                " WHERE session_id = %s AND seq = 250",
                (s.id,),
            )
        fresh = PostgresSessionService(postgres_url)
        try:
            with pytest.raises(SessionError, match=r"event 250 of 300 read from session"):
                await fresh.get_session(app_name="app", user_id="u", session_id=s.id)
        finally:
            await fresh.aclose()
    finally:
        await service.aclose()
