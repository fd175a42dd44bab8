"""Durable stores keep the events they parsed: a later read parses only what was stored after them,
also what another process (here: another service on the same store) appended, and a session
deleted and created again under the same id is read afresh."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from yadk.errors import ImmutableEventError
from yadk.events import Event
from yadk.sessions import BaseSessionService, PostgresSessionService, SqliteSessionService, _codec
from yadk.sessions._event_cache import EventCache
from yadk.types import Content, Part


def _said(text: str) -> Event:
    return Event(author="user", content=Content(role="user", parts=[Part(text=text)]))


def _texts(events: list[Event]) -> list[str]:
    return [e.content.parts[0].text or "" for e in events if e.content]


@pytest.fixture(params=["sqlite", "postgres"])
async def two_services(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[BaseSessionService, BaseSessionService]]:
    if request.param == "sqlite":
        first: Any = SqliteSessionService(tmp_path / "s.db")
        second: Any = SqliteSessionService(tmp_path / "s.db")
        yield first, second
        first.close_now()
        second.close_now()
    else:
        url = request.getfixturevalue("postgres_url")
        first, second = PostgresSessionService(url), PostgresSessionService(url)
        yield first, second
        await first.aclose()
        await second.aclose()


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many stored events each ``load_events`` call parsed."""
    counts: list[int] = []
    real: Callable[..., list[Event]] = _codec.load_events

    def counting(rows: Any, where: str, *slice_of: Any) -> list[Event]:
        counts.append(len(rows))
        return real(rows, where, *slice_of)

    monkeypatch.setattr(_codec, "load_events", counting)
    return counts


async def test_a_second_read_parses_only_the_new_events(
    two_services: tuple[BaseSessionService, BaseSessionService], parsed: list[int]
) -> None:
    service, other = two_services
    session = await service.create_session(app_name="app", user_id="u", session_id="s")
    for n in range(20):
        await service.append_event(session, _said(f"m{n}"))
    parsed.clear()
    first = await service.get_session(app_name="app", user_id="u", session_id="s")
    again = await service.get_session(app_name="app", user_id="u", session_id="s")
    assert first is not None and again is not None
    assert _texts(again.events) == [f"m{n}" for n in range(20)]
    assert sum(parsed) == 20  # the second read parsed nothing
    assert all(a is b for a, b in zip(first.events, again.events, strict=True))
    with pytest.raises(ImmutableEventError):
        again.events[0].author = "someone else"

    # Another process appends: the next read parses that one event only.
    theirs = await other.get_session(app_name="app", user_id="u", session_id="s")
    assert theirs is not None
    await other.append_event(theirs, _said("from the other replica"))
    parsed.clear()
    latest = await service.get_session(app_name="app", user_id="u", session_id="s")
    assert latest is not None and _texts(latest.events)[-1] == "from the other replica"
    assert len(latest.events) == 21 and sum(parsed) == 1


async def test_a_session_created_again_under_the_same_id_is_read_afresh(
    two_services: tuple[BaseSessionService, BaseSessionService],
) -> None:
    service, other = two_services
    session = await service.create_session(app_name="app", user_id="u", session_id="s")
    for n in range(3):
        await service.append_event(session, _said(f"old {n}"))
    assert await service.get_session(app_name="app", user_id="u", session_id="s") is not None

    await other.delete_session(app_name="app", user_id="u", session_id="s")
    again = await other.create_session(app_name="app", user_id="u", session_id="s")
    for n in range(5):  # more events than before: the version passes the one kept
        await other.append_event(again, _said(f"new {n}"))
    read = await service.get_session(app_name="app", user_id="u", session_id="s")
    assert read is not None and _texts(read.events) == [f"new {n}" for n in range(5)]

    await service.delete_session(app_name="app", user_id="u", session_id="s")
    assert await service.get_session(app_name="app", user_id="u", session_id="s") is None


async def test_filtered_reads_still_answer_from_the_store(
    two_services: tuple[BaseSessionService, BaseSessionService],
) -> None:
    service, _ = two_services
    session = await service.create_session(app_name="app", user_id="u", session_id="s")
    for n in range(6):
        await service.append_event(session, _said(f"m{n}"))
    await service.get_session(app_name="app", user_id="u", session_id="s")
    recent = await service.get_session(
        app_name="app", user_id="u", session_id="s", num_recent_events=2
    )
    assert recent is not None and _texts(recent.events) == ["m4", "m5"]


def test_the_cache_evicts_the_least_recently_read_sessions() -> None:
    cache = EventCache(max_events=5, max_sessions=2)
    nothing: tuple[int, list[Event]] = (0, [])

    def two() -> list[Event]:
        return [_said("x") for _ in range(2)]

    cache.update(("a", "u", "1"), 1.0, 2, [], two())
    cache.update(("a", "u", "2"), 1.0, 2, [], two())
    assert cache.read(("a", "u", "1"), 1.0, 2) != nothing  # now the most recently read
    cache.update(("a", "u", "3"), 1.0, 2, [], two())  # over both limits: session 2 goes
    assert cache.read(("a", "u", "2"), 1.0, 2) == nothing
    assert cache.read(("a", "u", "1"), 1.0, 2)[0] == 2
    assert cache.read(("a", "u", "1"), 2.0, 2) == nothing  # another creation stamp
    cache.update(("a", "u", "4"), 1.0, 9, [], [_said("x") for _ in range(6)])  # over the cap
    assert cache.read(("a", "u", "4"), 1.0, 9) == nothing


@pytest.mark.parametrize("read", ["get", "recent", "refresh"])
async def test_a_long_read_parses_on_a_worker_thread(
    two_services: tuple[BaseSessionService, BaseSessionService], read: str
) -> None:
    """Parsing is CPU work: rows past ``OFF_LOOP_BYTES`` are parsed on a worker thread, so the
    event loop goes on serving other sessions; a few rows are parsed on the loop."""
    import threading

    writer, reader = two_services
    session = await writer.create_session(app_name="app", user_id="u", session_id="s")
    held = await reader.get_session(app_name="app", user_id="u", session_id="s")
    long_text = "x" * 2_000
    assert 40 * len(long_text) > _codec.OFF_LOOP_BYTES
    for n in range(40):
        await writer.append_event(session, _said(f"m{n} {long_text}"))

    seen: list[tuple[int, bool]] = []  # (rows parsed, on the loop's thread)
    parse = _codec.load_events
    loop_thread = threading.get_ident()

    def recording(rows: Any, *args: Any) -> list[Event]:
        seen.append((len(rows), threading.get_ident() == loop_thread))
        return parse(rows, *args)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_codec, "load_events", recording)
        if read == "get":
            got = await reader.get_session(app_name="app", user_id="u", session_id="s")
        elif read == "recent":
            got = await reader.get_session(
                app_name="app", user_id="u", session_id="s", num_recent_events=40
            )
        else:
            assert held is not None and await reader.refresh_session(held)
            got = held
        assert got is not None
        assert _texts(got.events) == [f"m{n} {long_text}" for n in range(40)]
        assert seen == [(40, False)]
        seen.clear()
        await writer.append_event(session, _said("one more"))
        assert await reader.refresh_session(got)
        assert seen == [(1, True)]


async def test_reads_at_once_of_one_session_agree_when_the_cache_moves_under_one(
    two_services: tuple[BaseSessionService, BaseSessionService], parsed: list[int]
) -> None:
    """Two reads sent together both start from what the cache held; the first one's rows move
    the cache on before the second one's arrive, and the second reads again from the start
    (SQLite) or from what the cache now holds (PostgreSQL): both get every event, in order."""
    service, other = two_services
    session = await other.create_session(app_name="app", user_id="u", session_id="s")
    for n in range(20):
        await other.append_event(session, _said(f"m{n}"))
    assert await service.get_session(app_name="app", user_id="u", session_id="s")
    for n in range(20, 25):
        await other.append_event(session, _said(f"m{n}"))
    parsed.clear()
    first, second = await asyncio.gather(
        service.get_session(app_name="app", user_id="u", session_id="s"),
        service.get_session(app_name="app", user_id="u", session_id="s"),
    )
    assert first is not None and second is not None
    assert _texts(first.events) == _texts(second.events) == [f"m{n}" for n in range(25)]
    # The first parsed only what was new; SQLite's second read started again from the start,
    # PostgreSQL's parsed the new events too or found them kept, as the timing went.
    if isinstance(service, SqliteSessionService):
        assert parsed == [5, 25]
    else:
        assert parsed in ([5], [5, 5])
