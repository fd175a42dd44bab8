"""The contents cache: a turn folds only new events, and the request stays what
``build_contents`` makes of the whole history, whatever happened to the session underneath."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_contents_multi_agent import CASES, ev, fcall, fresp, text

from yadk import LlmAgent, Runner
from yadk.agents._contents import build_contents
from yadk.agents._contents_cache import session_contents
from yadk.models import ScriptedModel
from yadk.sessions import BaseSessionService, InMemorySessionService, Session, SqliteSessionService
from yadk.types import Content


def _dump(contents: list[Content]) -> list[dict[str, object]]:
    return [c.model_dump(mode="json", exclude_none=True) for c in contents]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_folding_one_event_at_a_time_matches_build_contents(case: tuple[object, ...]) -> None:
    _, agent, branch, include, events, _expected = case
    assert isinstance(agent, str) and isinstance(include, str) and isinstance(events, list)
    assert branch is None or isinstance(branch, str)
    session = Session(id="s", app_name="a", user_id="u")
    for event in events:
        session.events.append(event)
        got = session_contents(session, agent_name=agent, branch=branch, include_contents=include)
        want = build_contents(
            session.events, agent_name=agent, branch=branch, include_contents=include
        )
        assert _dump(got) == _dump(want)


def test_calls_answered_in_a_later_turn_are_paired_as_without_the_cache() -> None:
    session = Session(id="s", app_name="a", user_id="u")
    history = [
        ev("user", "user", text("look it up")),
        ev("me", "model", fcall("lookup", "adk-1", q="x")),
        ev("me", "user", fresp("lookup", "adk-1", {"r": 1})),
        ev("me", "model", fcall("lookup", "c2", q="y")),
        ev("user", "user", text("meanwhile")),
        ev("user", "user", fresp("lookup", "c2", {"r": 2})),
        ev("me", "model", text("done")),
    ]
    for event in history:
        session.events.append(event)
        got = session_contents(session, agent_name="me", branch=None, include_contents="default")
        want = build_contents(
            session.events, agent_name="me", branch=None, include_contents="default"
        )
        assert _dump(got) == _dump(want)


def test_the_returned_list_is_the_callers_to_edit() -> None:
    session = Session(id="s", app_name="a", user_id="u", events=[ev("user", "user", text("hi"))])
    first = session_contents(session, agent_name="me", branch=None, include_contents="default")
    first.insert(0, Content(role="user", parts=[]))
    again = session_contents(session, agent_name="me", branch=None, include_contents="default")
    assert _dump(again) == [{"role": "user", "parts": [{"text": "hi"}]}]


def test_history_replaced_or_cut_is_folded_again() -> None:
    session = Session(id="s", app_name="a", user_id="u")
    session.events.extend([ev("user", "user", text("old 1")), ev("me", "model", text("old 2"))])
    session_contents(session, agent_name="me", branch=None, include_contents="default")
    # The same list cut and regrown to the same length: its last event is a different object.
    session.events[1:] = [ev("me", "model", text("new 2"))]
    got = session_contents(session, agent_name="me", branch=None, include_contents="default")
    assert [c.parts[0].text for c in got] == ["old 1", "new 2"]
    # A new list (a session read whole again).
    session.events = [ev("user", "user", text("fresh"))]
    got = session_contents(session, agent_name="me", branch=None, include_contents="default")
    assert [c.parts[0].text for c in got] == ["fresh"]


def test_none_continues_a_turn_whose_call_is_answered_turns_later() -> None:
    session = Session(id="s", app_name="a", user_id="u")
    history = [
        ev("user", "user", text("look it up")),
        ev("me", "model", fcall("lookup", "c1", q="x")),
        ev("user", "user", text("meanwhile")),
        ev("me", "model", text("waiting")),
        ev("user", "user", fresp("lookup", "c1", {"r": 1})),
        ev("user", "user", fresp("lookup", "nowhere", {"r": 2})),
    ]
    for event in history:
        session.events.append(event)
        got = session_contents(session, agent_name="me", branch=None, include_contents="none")
        want = build_contents(session.events, agent_name="me", branch=None, include_contents="none")
        assert _dump(got) == _dump(want)


def test_none_forgets_call_ids_of_history_replaced() -> None:
    session = Session(id="s", app_name="a", user_id="u")
    session.events.extend([ev("user", "user", text("go")), ev("me", "model", fcall("f", "c1"))])
    session_contents(session, agent_name="me", branch=None, include_contents="none")
    # Read whole again without the call: a posted-back result for c1 now answers nothing, so
    # the turn is the message before it, as build_contents says of the new list alone.
    session.events = [ev("user", "user", text("again")), ev("user", "user", fresp("f", "c1", {}))]
    got = session_contents(session, agent_name="me", branch=None, include_contents="none")
    want = build_contents(session.events, agent_name="me", branch=None, include_contents="none")
    assert _dump(got) == _dump(want)


@pytest.fixture(params=["memory", "sqlite"])
def service(request: pytest.FixtureRequest, tmp_path: Path) -> BaseSessionService:
    if request.param == "memory":
        return InMemorySessionService()
    return SqliteSessionService(tmp_path / "s.db")


async def _turn(runner: Runner, session_id: str, message: str) -> None:
    async for _ in runner.run_async(user_id="u", session_id=session_id, new_message=message):
        pass


def _texts(model: ScriptedModel) -> list[str]:
    return [p.text or "" for c in model.requests[-1].contents for p in c.parts]


async def test_another_writers_events_reach_the_next_request(service: BaseSessionService) -> None:
    model = ScriptedModel(turns=[{"text": f"answer {i}"} for i in range(3)])
    runner = Runner(
        app_name="app", agent=LlmAgent(name="bot", model=model), session_service=service
    )
    session = await service.create_session(app_name="app", user_id="u")
    await _turn(runner, session.id, "q0")
    other = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    assert other is not None
    await service.append_event(other, ev("user", "user", text("from elsewhere")))
    await _turn(runner, session.id, "q1")
    assert _texts(model) == ["q0", "answer 0", "from elsewhere", "q1"]
    await runner.close()


async def test_a_session_deleted_and_recreated_with_the_same_id_starts_over(
    service: BaseSessionService,
) -> None:
    model = ScriptedModel(turns=[{"text": f"answer {i}"} for i in range(4)])
    runner = Runner(
        app_name="app", agent=LlmAgent(name="bot", model=model), session_service=service
    )
    await service.create_session(app_name="app", user_id="u", session_id="s1")
    await _turn(runner, "s1", "q0")
    await _turn(runner, "s1", "q1")
    await service.delete_session(app_name="app", user_id="u", session_id="s1")
    await service.create_session(app_name="app", user_id="u", session_id="s1")
    await _turn(runner, "s1", "again")
    assert _texts(model) == ["again"]
    await runner.close()
