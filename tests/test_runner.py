"""Runner: user message first, every event stored before it is yielded, sync and async."""

from __future__ import annotations

import pytest

from yadk import LlmAgent, Runner
from yadk.errors import SessionNotFoundError
from yadk.models import ScriptedModel
from yadk.sessions import InMemorySessionService


def agent(*texts: str) -> LlmAgent:
    return LlmAgent(name="bot", model=ScriptedModel(turns=[{"text": t} for t in texts]))


async def test_each_event_is_stored_before_it_is_yielded() -> None:
    service = InMemorySessionService()
    runner = Runner(app_name="app", agent=agent("hello"), session_service=service)
    session = await service.create_session(app_name="app", user_id="u")
    seen = 0
    async for event in runner.run_async(
        user_id="u", session_id=session.id, new_message="hi", state_delta={"topic": "greeting"}
    ):
        seen += 1
        stored = await service.get_session(app_name="app", user_id="u", session_id=session.id)
        assert stored is not None
        assert stored.events[-1].id == event.id
        assert len(stored.events) == seen
    stored = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    assert stored is not None
    assert [(e.author, e.text) for e in stored.events] == [("user", "hi"), ("bot", "hello")]
    assert stored.events[0].actions.state_delta == {"topic": "greeting"}
    assert stored.state == {"topic": "greeting"}
    assert len({e.invocation_id for e in stored.events}) == 1


async def test_unknown_session_is_a_clear_error() -> None:
    runner = Runner(app_name="app", agent=agent())
    with pytest.raises(SessionNotFoundError, match="Session 'ghost' not found"):
        async for _ in runner.run_async(user_id="u", session_id="ghost", new_message="hi"):
            pass


def test_sync_run_outside_a_loop() -> None:
    runner = Runner(app_name="app", agent=agent("one", "two"))
    session = runner.session_service.create_session_sync(app_name="app", user_id="u")  # type: ignore[attr-defined]
    assert [e.text for e in runner.run(user_id="u", session_id=session.id, new_message="a")] == [
        "a",
        "one",
    ]
    assert [e.text for e in runner.run(user_id="u", session_id=session.id, new_message="b")] == [
        "b",
        "two",
    ]


async def test_sync_run_inside_a_running_loop() -> None:
    runner = Runner(app_name="app", agent=agent("inner"))
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = runner.run(user_id="u", session_id=session.id, new_message="x")
    assert [e.text for e in events] == ["x", "inner"]


async def test_history_grows_across_invocations() -> None:
    model = ScriptedModel(turns=[{"text": "r1"}, {"text": "r2"}])
    runner = Runner(app_name="app", agent=LlmAgent(name="bot", model=model))
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    for message in ("m1", "m2"):
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message):
            pass
    assert [c.to_dict() for c in model.requests[1].contents] == [
        {"role": "user", "parts": [{"text": "m1"}]},
        {"role": "model", "parts": [{"text": "r1"}]},
        {"role": "user", "parts": [{"text": "m2"}]},
    ]


async def test_conversation_resumes_from_a_sqlite_file(tmp_path) -> None:
    from yadk.sessions import SqliteSessionService

    db = tmp_path / "s.db"
    model = ScriptedModel(turns=[{"text": "r1"}, {"text": "r2"}])
    first = Runner(
        app_name="app",
        agent=LlmAgent(name="bot", model=model),
        session_service=SqliteSessionService(db),
    )
    session = await first.session_service.create_session(
        app_name="app", user_id="u", session_id="s"
    )
    async for _ in first.run_async(user_id="u", session_id="s", new_message="m1"):
        pass
    second = Runner(
        app_name="app",
        agent=LlmAgent(name="bot", model=model),
        session_service=SqliteSessionService(db),
    )
    async for _ in second.run_async(user_id="u", session_id=session.id, new_message="m2"):
        pass
    assert [c.to_dict()["parts"][0]["text"] for c in model.requests[1].contents] == [
        "m1",
        "r1",
        "m2",
    ]


async def test_error_event_names_the_failing_sub_agent() -> None:
    from yadk import SequentialAgent

    def boom(callback_context) -> None:  # type: ignore[no-untyped-def]
        raise RuntimeError("kaput")

    first = LlmAgent(name="first", model=ScriptedModel(turns=[{"text": "ok"}]))
    second = LlmAgent(name="second", model=ScriptedModel(turns=[]), before_agent_callback=boom)
    runner = Runner(app_name="app", agent=SequentialAgent(name="pipe", sub_agents=[first, second]))
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="go")
    ]
    assert [(e.author, e.error_code) for e in events] == [
        ("user", None),
        ("first", None),
        ("second", "CALLBACK_ERROR"),
    ]
