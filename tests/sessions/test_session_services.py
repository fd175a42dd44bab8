"""The session service contract: scopes, temp trimming, partial events, errors, event selection,
immutability, idempotent appends. Every test runs against the in-memory, SQLite and PostgreSQL
services unchanged."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from yadk.errors import (
    AlreadyExistsError,
    ImmutableEventError,
    SessionError,
    SessionNotFoundError,
    StaleSessionError,
)
from yadk.events import Event, EventActions
from yadk.sessions import (
    BaseSessionService,
    GetSessionConfig,
    InMemorySessionService,
    PostgresSessionService,
    Session,
    SqliteSessionService,
)
from yadk.types import Content, Part


@pytest.fixture(params=["memory", "sqlite", "postgres"])
async def service(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[BaseSessionService]:
    if request.param == "memory":
        store: BaseSessionService = InMemorySessionService()
    elif request.param == "sqlite":
        store = SqliteSessionService(tmp_path / "sessions.db")
    else:
        store = PostgresSessionService(request.getfixturevalue("postgres_url"))
    yield store
    await store.aclose()


def _event(delta: dict | None = None, **kw: object) -> Event:
    return Event(author="agent", actions=EventActions(state_delta=dict(delta or {})), **kw)


async def test_create_drops_temp_and_splits_scopes(service: BaseSessionService) -> None:
    s = await service.create_session(
        app_name="app", user_id="u", state={"k": 1, "app:a": 2, "user:b": 3, "temp:t": 4}
    )
    assert s.state == {"k": 1, "app:a": 2, "user:b": 3}
    again = await service.get_session(app_name="app", user_id="u", session_id=s.id)
    assert again is not None and again.state == s.state


async def test_duplicate_id_is_already_exists(service: BaseSessionService) -> None:
    await service.create_session(app_name="app", user_id="u", session_id="s1")
    with pytest.raises(AlreadyExistsError, match="'s1' already exists"):
        await service.create_session(app_name="app", user_id="u", session_id="s1")


async def test_append_to_unknown_session(service: BaseSessionService) -> None:
    ghost = Session(id="nope", app_name="app", user_id="u")
    with pytest.raises(SessionNotFoundError, match="create_session"):
        await service.append_event(ghost, _event({"x": 1}))


async def test_get_unknown_session_is_none(service: BaseSessionService) -> None:
    assert await service.get_session(app_name="a", user_id="u", session_id="x") is None


async def test_temp_applied_in_memory_and_stripped_from_storage(
    service: BaseSessionService,
) -> None:
    s = await service.create_session(app_name="app", user_id="u")
    event = _event({"temp:scratch": "x", "kept": 1})
    await service.append_event(s, event)
    assert s.state["temp:scratch"] == "x"
    assert event.actions.state_delta == {"kept": 1}
    stored = await service.get_session(app_name="app", user_id="u", session_id=s.id)
    assert stored is not None
    assert stored.state == {"kept": 1}
    assert stored.events[0].actions.state_delta == {"kept": 1}


async def test_partial_events_are_ignored(service: BaseSessionService) -> None:
    s = await service.create_session(app_name="app", user_id="u")
    await service.append_event(s, _event({"x": 1}, partial=True))
    stored = await service.get_session(app_name="app", user_id="u", session_id=s.id)
    assert stored is not None and stored.events == [] and stored.state == {}
    assert s.events == []


async def test_app_state_shared_by_users_user_state_by_sessions(
    service: BaseSessionService,
) -> None:
    s1 = await service.create_session(app_name="app", user_id="alice")
    s2 = await service.create_session(app_name="app", user_id="alice")
    s3 = await service.create_session(app_name="app", user_id="bob")
    other = await service.create_session(app_name="other", user_id="alice")
    await service.append_event(s1, _event({"app:tier": "gold", "user:lang": "fr", "own": 1}))

    async def state(s: Session) -> dict:
        got = await service.get_session(app_name=s.app_name, user_id=s.user_id, session_id=s.id)
        assert got is not None
        return got.state

    assert await state(s1) == {"own": 1, "app:tier": "gold", "user:lang": "fr"}
    assert await state(s2) == {"app:tier": "gold", "user:lang": "fr"}
    assert await state(s3) == {"app:tier": "gold"}
    assert await state(other) == {}


async def test_event_selection(service: BaseSessionService) -> None:
    s = await service.create_session(app_name="app", user_id="u")
    for i in range(5):
        await service.append_event(s, _event(timestamp=100.0 + i))

    async def times(**kw: object) -> list[float]:
        got = await service.get_session(app_name="app", user_id="u", session_id=s.id, **kw)
        assert got is not None
        return [e.timestamp for e in got.events]

    assert await times() == [100.0, 101.0, 102.0, 103.0, 104.0]
    assert await times(num_recent_events=2) == [103.0, 104.0]
    assert await times(after_timestamp=102.0) == [102.0, 103.0, 104.0]
    assert await times(config=GetSessionConfig(num_recent_events=1, after_timestamp=101.0)) == [
        104.0
    ]


async def test_reads_do_not_share_mutable_containers(service: BaseSessionService) -> None:
    s = await service.create_session(app_name="app", user_id="u", state={"k": 1})
    got = await service.get_session(app_name="app", user_id="u", session_id=s.id)
    assert got is not None
    got.state["k"] = 99
    got.events.append(_event())
    again = await service.get_session(app_name="app", user_id="u", session_id=s.id)
    assert again is not None and again.state == {"k": 1} and again.events == []


async def test_stale_copy_is_refused(service: BaseSessionService) -> None:
    s = await service.create_session(app_name="app", user_id="u")
    copy = await service.get_session(app_name="app", user_id="u", session_id=s.id)
    assert copy is not None
    await service.append_event(s, _event({"x": 1}))
    with pytest.raises(StaleSessionError, match="read it again"):
        await service.append_event(copy, _event({"x": 2}))


async def test_list_and_delete(service: BaseSessionService) -> None:
    a = await service.create_session(app_name="app", user_id="u1")
    await service.create_session(app_name="app", user_id="u2")
    await service.append_event(a, _event({"x": 1}))
    listed = await service.list_sessions(app_name="app")
    assert len(listed.sessions) == 2 and all(s.events == [] for s in listed.sessions)
    assert [s.id for s in (await service.list_sessions(app_name="app", user_id="u1")).sessions] == [
        a.id
    ]
    await service.delete_session(app_name="app", user_id="u1", session_id=a.id)
    assert await service.get_session(app_name="app", user_id="u1", session_id=a.id) is None
    await service.delete_session(app_name="app", user_id="u1", session_id=a.id)


class BaseRecentKeys(InMemorySessionService):
    """A store that leaves ``list_recent_session_keys`` to the base class's default."""

    list_recent_session_keys = BaseSessionService.list_recent_session_keys


async def test_recent_session_keys_page_newest_first(service: BaseSessionService) -> None:
    await _check_recent_keys(service)


async def test_recent_session_keys_by_the_base_class_default() -> None:
    await _check_recent_keys(BaseRecentKeys())


async def _check_recent_keys(service: BaseSessionService) -> None:
    made = {}
    for user, sid in [
        ("A2A_USER_a", "a"),
        ("other", "o"),
        ("A2A_USER_b", "b"),
        ("A2A_USER_c", "c"),
    ]:
        made[sid] = await service.create_session(app_name="app", user_id=user, session_id=sid)
    await service.create_session(app_name="elsewhere", user_id="A2A_USER_z", session_id="z")
    for n, sid in enumerate(["b", "o", "a", "c"]):  # updated in this order: c is the newest
        await service.append_event(made[sid], _event({"n": n}, timestamp=1000.0 + n))
    await service.append_event(made["c"], _event({"n": 9}, timestamp=1002.0))  # a tie with a
    first = await service.list_recent_session_keys(app_name="app", limit=2, user_prefix="A2A_USER_")
    assert first == [(1002.0, "A2A_USER_c", "c"), (1002.0, "A2A_USER_a", "a")]
    rest = await service.list_recent_session_keys(
        app_name="app", limit=2, user_prefix="A2A_USER_", after=first[-1]
    )
    assert rest == [(1000.0, "A2A_USER_b", "b")]
    everyone = await service.list_recent_session_keys(app_name="app", limit=10)
    assert [key[2] for key in everyone] == ["c", "a", "o", "b"]
    tie = await service.list_recent_session_keys(app_name="app", limit=10, after=everyone[0])
    assert [key[2] for key in tie] == ["a", "o", "b"]


async def test_values_that_are_not_json_are_refused_naming_the_key(
    service: BaseSessionService,
) -> None:
    s = await service.create_session(app_name="app", user_id="u")
    with pytest.raises(SessionError, match="State key 'obj' .* holds a value of type object"):
        await service.append_event(s, _event({"obj": object()}))
    with pytest.raises(SessionError, match="State key 'when' .* type bytes"):
        await service.create_session(app_name="app", user_id="u", state={"when": b"x"})
    stored = await service.get_session(app_name="app", user_id="u", session_id=s.id)
    assert stored is not None and stored.events == [] and "obj" not in s.state
    await service.append_event(s, _event({"ok": 1}))  # the failed write left no trace


async def test_appending_a_stored_event_again_changes_nothing(service: BaseSessionService) -> None:
    s = await service.create_session(app_name="app", user_id="u")
    event = _event({"n": 1})
    await service.append_event(s, event)
    copy = await service.get_session(app_name="app", user_id="u", session_id=s.id)
    assert copy is not None
    await service.append_event(copy, event)
    stored = await service.get_session(app_name="app", user_id="u", session_id=s.id)
    assert stored is not None and [e.id for e in stored.events] == [event.id]
    await service.append_event(s, _event({"n": 2}))  # the first copy is still current


async def test_close_and_async_with_as_google_adk_names_them(service: BaseSessionService) -> None:
    # google-adk's DatabaseSessionService has close() and is an async context manager; code
    # written for it closes yadk's stores the same way (closing twice is harmless).
    async with service as same:
        assert same is service
        await service.create_session(app_name="app", user_id="u", session_id="s")
    await service.close()
    await service.aclose()


async def test_events_handed_out_cannot_change_what_is_stored(service: BaseSessionService) -> None:
    s = await service.create_session(app_name="app", user_id="u")
    event = Event(
        author="agent",
        content=Content(role="model", parts=[Part(text="original")]),
        actions=EventActions(state_delta={"k": [1]}),
    )
    await service.append_event(s, event)
    # Appended, the event is history: sealed in every store, whether or not it is shared.
    with pytest.raises(ImmutableEventError, match="stored by a session service"):
        event.content.parts[0].text = "edited by the appender"  # type: ignore[union-attr]
    with pytest.raises(ImmutableEventError, match="stored by a session service"):
        event.actions.state_delta["k"].append(2)
    first = await service.get_session(app_name="app", user_id="u", session_id=s.id)
    assert first is not None
    read = first.events[0]
    # A reader's edit fails on a frozen event (the in-memory store shares its events) or changes
    # only the reader's copy (the database stores parse one per read); never what is stored.
    with contextlib.suppress(ImmutableEventError):
        read.content.parts[0].text = "edited by a reader"  # type: ignore[union-attr]
    with contextlib.suppress(ImmutableEventError):
        read.actions.state_delta["extra"] = 1
    first.state["k"].append(3)
    again = await service.get_session(app_name="app", user_id="u", session_id=s.id)
    assert again is not None
    assert again.events[0].text == "original"
    assert again.events[0].actions.state_delta == {"k": [1]}
    assert again.state == {"k": [1]}


async def test_refresh_reads_what_others_appended(service: BaseSessionService) -> None:
    mine = await service.create_session(app_name="app", user_id="u")
    await service.append_event(mine, _event({"a": 1}))
    theirs = await service.get_session(app_name="app", user_id="u", session_id=mine.id)
    assert theirs is not None
    await service.append_event(theirs, _event({"b": 2, "user:c": 3}))
    await service.append_event(theirs, _event({"temp:t": 4}))
    other = await service.create_session(app_name="app", user_id="u")
    await service.append_event(other, _event({"app:d": 5}))
    assert await service.refresh_session(mine) is True
    assert [e.id for e in mine.events] == [e.id for e in theirs.events]
    assert mine.state == {"a": 1, "b": 2, "user:c": 3, "app:d": 5}
    await service.append_event(mine, _event({"a": 6}))  # no longer stale
    await service.delete_session(app_name="app", user_id="u", session_id=mine.id)
    assert await service.refresh_session(mine) is False


@pytest.mark.parametrize("more_events", [0, 1, 3])
async def test_refresh_and_append_see_a_session_deleted_and_created_again(
    service: BaseSessionService, more_events: int
) -> None:
    # The copy kept from before (version 1) must not be taken for the new session with the
    # same id, whether that one is behind it, level with it, or ahead of it.
    kept = await service.create_session(app_name="app", user_id="u", session_id="same")
    await service.append_event(kept, _event({"old": 1}, id="old-event"))
    stale = await service.get_session(app_name="app", user_id="u", session_id="same")
    assert stale is not None
    await service.delete_session(app_name="app", user_id="u", session_id="same")
    again = await service.create_session(app_name="app", user_id="u", session_id="same")
    for n in range(more_events):
        await service.append_event(again, _event({"new": n}))
    with pytest.raises(StaleSessionError):
        await service.append_event(stale, _event({"lost": True}))
    assert await service.refresh_session(kept) is True
    assert [e.id for e in kept.events] == [e.id for e in again.events]
    assert kept.state == again.state and "old" not in kept.state
    await service.append_event(kept, _event({"after": 1}))  # the refreshed copy is current
    stored = await service.get_session(app_name="app", user_id="u", session_id="same")
    assert stored is not None and len(stored.events) == more_events + 1


async def test_a_listed_copy_is_told_apart_from_a_session_created_again(
    service: BaseSessionService,
) -> None:
    # Level with the new session (version 1 both): only the creation stamp tells them apart.
    kept = await service.create_session(app_name="app", user_id="u", session_id="same")
    await service.append_event(kept, _event({"old": 1}))
    (listed,) = (await service.list_sessions(app_name="app", user_id="u")).sessions
    await service.delete_session(app_name="app", user_id="u", session_id="same")
    again = await service.create_session(app_name="app", user_id="u", session_id="same")
    await service.append_event(again, _event({"new": 1}))
    with pytest.raises(StaleSessionError):
        await service.append_event(listed, _event({"lost": True}))
    stored = await service.get_session(app_name="app", user_id="u", session_id="same")
    assert stored is not None and stored.state == {"new": 1}


async def test_delete_removes_the_events_too(service: BaseSessionService) -> None:
    s = await service.create_session(app_name="app", user_id="u", session_id="again")
    await service.append_event(s, _event({"x": 1}))
    await service.delete_session(app_name="app", user_id="u", session_id="again")
    fresh = await service.create_session(app_name="app", user_id="u", session_id="again")
    assert fresh.events == [] and fresh.state == {}
    got = await service.get_session(app_name="app", user_id="u", session_id="again")
    assert got is not None and got.events == []
