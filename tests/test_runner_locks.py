"""The runner's per-session turn locks: one turn at a time on a session, none across sessions,
shared by the runners given one ``SessionLocks``, bounded by a wait on an injectable clock."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from tests.manual_clock import ManualClock

from yadk import LlmAgent, Runner
from yadk.models import ScriptedModel
from yadk.sessions import InMemorySessionService, SessionBusy, SessionLocks, SqliteSessionService


def runner(*texts: str, **options: object) -> Runner:
    agent = LlmAgent(name="helper", model=ScriptedModel([{"text": t} for t in texts]))
    return Runner(agent=agent, app_name="app", **options)  # type: ignore[arg-type]


async def texts_of(r: Runner, session_id: str) -> list[str]:
    session = await r.session_service.get_session(
        app_name="app", user_id="u", session_id=session_id
    )
    assert session is not None
    return [e.content.parts[0].text or "" for e in session.events if e.content]


async def one_turn(r: Runner, session_id: str, text: str) -> None:
    async for _ in r.run_async(user_id="u", session_id=session_id, new_message=text):
        pass


async def test_two_turns_on_one_session_run_one_after_the_other() -> None:
    clock = ManualClock()
    r = runner("first answer", "second answer", session_locks=SessionLocks(wait=5, clock=clock))
    await r.session_service.create_session(app_name="app", user_id="u", session_id="s")
    holding, go = asyncio.Event(), asyncio.Event()
    entered: list[str] = []

    async def first() -> None:
        async with r.turn("u", "s"):
            entered.append("first")
            holding.set()
            await go.wait()
            await one_turn(r, "s", "one")

    async def second() -> None:
        async with r.turn("u", "s"):
            entered.append("second")
            await one_turn(r, "s", "two")

    a = asyncio.create_task(first())
    await holding.wait()
    b = asyncio.create_task(second())
    await clock.waiting()  # the second turn waits for the session
    assert entered == ["first"]
    go.set()
    await asyncio.gather(a, b)
    assert entered == ["first", "second"]
    assert await texts_of(r, "s") == ["one", "first answer", "two", "second answer"]
    assert len(r.locks) == 0  # nothing left behind


async def test_turns_on_different_sessions_do_not_wait_for_each_other() -> None:
    r = runner("x", session_locks=SessionLocks(wait=5, clock=ManualClock()))
    async with r.turn("u", "s1"):
        async with r.turn("u", "s2"):
            assert len(r.locks) == 2
        async with r.turn("other user", "s1"):
            assert len(r.locks) == 2


async def test_a_session_still_busy_after_the_wait_is_refused() -> None:
    clock = ManualClock()
    r = runner("x", session_locks=SessionLocks(wait=5, clock=clock))
    async with r.turn("u", "s"):

        async def late() -> None:
            async with r.turn("u", "s", wait=2):
                pass

        waiting = asyncio.create_task(late())
        await clock.waiting()
        clock.advance(2)
        with pytest.raises(SessionBusy):
            await waiting
    async with r.turn("u", "s"):  # free again once the first turn ended
        pass


async def test_runners_given_one_set_of_locks_share_them() -> None:
    clock = ManualClock()
    locks = SessionLocks(wait=1, clock=clock)
    store = InMemorySessionService()
    one = runner("x", session_service=store, session_locks=locks)
    two = runner("y", session_service=store, session_locks=locks)
    assert one.locks is two.locks is locks
    async with one.turn("u", "s"):

        async def other() -> None:
            async with two.turn("u", "s"):
                pass

        waiting = asyncio.create_task(other())
        await clock.waiting()
        clock.advance(1)
        with pytest.raises(SessionBusy):
            await waiting


async def test_a_runner_on_a_shared_store_takes_its_cross_process_locks(tmp_path: Path) -> None:
    store = SqliteSessionService(tmp_path / "s.db")
    r = runner("x", session_service=store)
    assert r.locks.shared is store.turn_locks()
    assert r.locks.wait == Runner.turn_wait
    async with r.turn("u", "s"):
        pass
    await r.close()  # drains the unlocks the runner's own locks started
    await store.aclose()


async def test_the_engine_docs_example_runs_a_turn_under_the_lock(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = (Path(__file__).parent.parent / "docs" / "engine.md").read_text()
    section = text.split("### One turn at a time on a session", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    scope: dict[str, object] = {}
    exec(code, scope)
    r = scope["runner"]
    assert isinstance(r, Runner)
    await r.session_service.create_session(app_name="app", user_id="u", session_id="s")
    await scope["one_turn"]("hello")  # type: ignore[operator]
    assert "helper" in capsys.readouterr().out
    async with r.turn("u", "s"):
        task = asyncio.create_task(scope["one_turn"]("again"))  # type: ignore[operator]
        r.locks.clock = clock = ManualClock()
        await clock.waiting()
        clock.advance(5)
        await task
    assert "another turn is still running on session s" in capsys.readouterr().out
