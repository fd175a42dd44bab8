"""Size caps on one event and on a session's state, the same on every service: refused with
``SessionTooLargeError`` (a ``ValueError``) naming the cap and how to raise it, nothing
written; caps from the arguments, else the environment, else 1 MiB and 16 MiB."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from yadk import LlmAgent, Runner
from yadk.errors import SessionError, SessionTooLargeError
from yadk.events import Event, EventActions
from yadk.models import ScriptedModel
from yadk.sessions import (
    BaseSessionService,
    InMemorySessionService,
    PostgresSessionService,
    Session,
    SqliteSessionService,
)
from yadk.sessions._event_cache import EventCache
from yadk.sessions._limits import SizeLimits, StateSizes, plain_json, state_size
from yadk.types import Content, Part

KB = 1024


@pytest.fixture(params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def service(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[BaseSessionService]:
    caps = {"max_event_bytes": 10 * KB, "max_state_bytes": 25 * KB}
    if request.param == "memory":
        store: BaseSessionService = InMemorySessionService(**caps)
    elif request.param == "sqlite":
        store = SqliteSessionService(tmp_path / "sessions.db", **caps)
    else:
        store = PostgresSessionService(request.getfixturevalue("postgres_url"), **caps)
    yield store
    await store.aclose()


def _delta(**values: object) -> Event:
    return Event(author="agent", actions=EventActions(state_delta=dict(values)))


async def test_an_event_over_the_cap_is_refused_and_nothing_is_written(
    service: BaseSessionService,
) -> None:
    session = await service.create_session(app_name="app", user_id="u", session_id="s")
    said = Event(author="agent", content=Content(role="model", parts=[Part(text="x" * 11 * KB)]))
    with pytest.raises(SessionTooLargeError, match="bytes per event; nothing was stored") as err:
        await service.append_event(session, said)
    assert isinstance(err.value, ValueError)
    assert "over the session service's cap of 10,240 bytes" in err.value.message
    assert "YADK_MAX_EVENT_BYTES" in err.value.message
    with pytest.raises(SessionTooLargeError, match="written by agent `agent`"):
        await service.append_event(session, _delta(k="x" * 11 * KB))
    stored = await service.get_session(app_name="app", user_id="u", session_id="s")
    assert stored is not None and stored.events == [] and stored.state == {}
    assert session.events == [] and session.state == {}
    await service.append_event(session, _delta(k="small"))  # the copy is still current


async def test_state_over_the_cap_is_refused_whatever_its_scope(
    service: BaseSessionService,
) -> None:
    session = await service.create_session(app_name="app", user_id="u", session_id="s")
    await service.append_event(session, _delta(a="x" * 8 * KB))
    await service.append_event(session, _delta(**{"user:b": "x" * 8 * KB}))
    await service.append_event(session, _delta(a="y" * 8 * KB))  # replaces: same size
    with pytest.raises(SessionTooLargeError, match="The state of session 's' would be about"):
        await service.append_event(session, _delta(**{"app:c": "x" * 9 * KB}))
    stored = await service.get_session(app_name="app", user_id="u", session_id="s")
    assert stored is not None and sorted(stored.state) == ["a", "user:b"]
    assert len(stored.events) == 3
    # temp: keys are never stored, so they do not count.
    await service.append_event(session, _delta(**{"temp:big": "x" * 9 * KB}))


async def test_a_state_grown_by_many_small_appends_is_measured_as_a_whole(
    service: BaseSessionService,
) -> None:
    # The durable stores measure an append by the keys it writes, from the size they knew
    # after the last one: replaced keys must come off, or the cap would be reached early.
    session = await service.create_session(app_name="app", user_id="u", session_id="s")
    for i in range(40):  # 40 x 2 KB, but only 5 keys: about 10 KB
        await service.append_event(session, _delta(**{f"k{i % 5}": f"{i:02d}" * KB}))
    for i in range(7):
        await service.append_event(session, _delta(**{f"more{i}": "x" * 2 * KB}))
    with pytest.raises(SessionTooLargeError, match="would be about"):
        await service.append_event(session, _delta(last="x" * 2 * KB))
    # The same from a copy read afresh (measured whole).
    again = await service.get_session(app_name="app", user_id="u", session_id="s")
    assert again is not None
    with pytest.raises(SessionTooLargeError, match="would be about"):
        await service.append_event(again, _delta(last="x" * 2 * KB))


def test_the_size_known_after_appends_is_the_size_of_the_whole_state() -> None:
    sizes = StateSizes()
    session = Session(id="s", app_name="a", user_id="u", state={"a": 1, "b": [1, 2]})
    session.storage_version = 1
    deltas = [{"a": "xyz"}, {"c": {"d": "e"}, "temp:t": "x" * 100}, {"b": None}, {}]
    for delta in deltas:
        size = sizes.after(session, delta)
        if delta:
            assert size == state_size(session.state, delta, "temp:")
        session.state.update(delta)
        session.storage_version += 1
        sizes.remember(session, size)
    assert sizes.after(session, {"a": 2}) == state_size(session.state, {"a": 2}, "temp:")
    session.state = dict(session.state)  # read again: measured whole
    assert sizes.after(session, {}) is None


async def test_a_session_created_with_state_over_the_cap_is_refused(
    service: BaseSessionService,
) -> None:
    with pytest.raises(SessionTooLargeError, match="as created with that state"):
        await service.create_session(
            app_name="app", user_id="u", session_id="s", state={"k": "x" * 30 * KB}
        )
    assert await service.get_session(app_name="app", user_id="u", session_id="s") is None


def test_caps_come_from_arguments_then_environment_then_defaults() -> None:
    env = {"YADK_MAX_EVENT_BYTES": "2_000", "YADK_MAX_STATE_BYTES": "9000"}
    assert SizeLimits.resolve(environ={}) == SizeLimits(1024 * 1024, 16 * 1024 * 1024)
    assert SizeLimits.resolve(environ=env) == SizeLimits(2000, 9000)
    assert SizeLimits.resolve(5, None, environ=env) == SizeLimits(5, 9000)
    with pytest.raises(SessionError, match=r"YADK_MAX_STATE_BYTES='lots' is not a whole number"):
        SizeLimits.resolve(environ={"YADK_MAX_STATE_BYTES": "lots"})
    with pytest.raises(SessionError, match="max_event_bytes must be a positive number"):
        SizeLimits.resolve(0, environ={})


def test_the_estimate_counts_strings_exactly_and_converts_what_json_converts() -> None:
    assert plain_json({"k": "abc", "n": [1, None]}) == (
        {"k": "abc", "n": [1, None]},
        2 + (1 + 4 + 5) + (1 + 4 + 2 + 25 + 25),
    )
    assert plain_json((1, "a"))[0] == [1, "a"]
    assert plain_json({1: "x"})[0] == {"1": "x"}
    with pytest.raises(TypeError):
        plain_json({"k": object()})
    with pytest.raises(ValueError):
        plain_json(float("nan"))


def test_the_event_cache_is_bounded_by_the_text_it_keeps() -> None:
    cache = EventCache(max_bytes=1000)
    events = [Event(author="a")]
    cache.update(("a", "u", "1"), 1.0, 1, [], events, 600)
    cache.update(("a", "u", "2"), 1.0, 1, [], events, 300)
    assert cache.kept_bytes == 900
    cache.update(("a", "u", "3"), 1.0, 1, [], events, 300)  # over: the oldest goes
    assert cache.kept_bytes == 600
    assert cache.read(("a", "u", "1"), 1.0, 1) == (0, [])
    cache.update(("a", "u", "4"), 1.0, 1, [], events, 1001)  # larger than the whole budget
    assert cache.read(("a", "u", "4"), 1.0, 1) == (0, []) and cache.kept_bytes == 600
    _, kept = cache.read(("a", "u", "2"), 1.0, 1)
    cache.update(("a", "u", "2"), 1.0, 2, kept, events, 100)  # grows by what was appended
    assert cache.kept_bytes == 700


async def test_an_agent_event_over_the_cap_ends_the_turn_with_an_error_event() -> None:
    service = InMemorySessionService(max_event_bytes=10 * KB)
    model = ScriptedModel(turns=[{"text": "x" * 11 * KB}])
    runner = Runner(
        app_name="app", agent=LlmAgent(name="bot", model=model), session_service=service
    )
    session = await service.create_session(app_name="app", user_id="u", session_id="s")
    events = [e async for e in runner.run_async(user_id="u", session_id="s", new_message="hi")]
    assert events[-1].error_code is not None
    assert "over the session service's cap of 10,240 bytes per event" in (
        events[-1].error_message or ""
    )
    stored = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    assert stored is not None and [e.author for e in stored.events] == ["user", "bot"]
    assert stored.events[-1].error_code == events[-1].error_code
