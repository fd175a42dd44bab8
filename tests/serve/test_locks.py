"""SessionLocks with a store's cross-process locks: the same wait, the same 409, nothing leaked."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.serve.conftest import message

from yadk.sessions._turns import SessionBusy, SessionLocks

KEY = ("app", "u", "s")


class FakeTurnLocks:
    """Cross-process locks as a store gives them: re-entrant per process, ``held_elsewhere``
    marks keys another process holds; ``delay`` makes ``try_lock`` take that long."""

    def __init__(self, *, delay: float = 0.0) -> None:
        self.held: dict[tuple[str, str, str], int] = {}
        self.held_elsewhere: set[tuple[str, str, str]] = set()
        self.delay = delay
        self.tries = 0

    async def try_lock(self, key: tuple[str, str, str]) -> bool:
        self.tries += 1
        await asyncio.sleep(self.delay)
        if key in self.held_elsewhere:
            return False
        self.held[key] = self.held.get(key, 0) + 1
        return True

    async def unlock(self, key: tuple[str, str, str]) -> None:
        self.held[key] -= 1
        if not self.held[key]:
            del self.held[key]


async def test_the_shared_lock_is_held_for_the_turn_and_released_after() -> None:
    shared = FakeTurnLocks()
    locks = SessionLocks(wait=1.0, shared=shared)
    async with locks.hold(KEY):
        assert shared.held == {KEY: 1}
    await locks.drain()
    assert shared.held == {} and len(locks) == 0


async def test_a_session_held_by_another_process_is_busy_after_the_wait() -> None:
    shared = FakeTurnLocks()
    shared.held_elsewhere.add(KEY)
    locks = SessionLocks(wait=0.2, shared=shared)
    started = asyncio.get_running_loop().time()
    with pytest.raises(SessionBusy):
        await locks.acquire(KEY)
    waited = asyncio.get_running_loop().time() - started
    assert 0.2 <= waited < 2.0
    assert shared.tries > 3  # polled, not tried once
    assert len(locks) == 0  # the in-process lock was given back
    shared.held_elsewhere.clear()
    async with locks.hold(KEY):  # and the session can be taken once the other process is done
        assert shared.held == {KEY: 1}


async def test_waiting_turns_of_one_process_take_the_shared_lock_one_after_another() -> None:
    shared = FakeTurnLocks()
    locks = SessionLocks(wait=5.0, shared=shared)
    inside = 0

    async def turn() -> None:
        nonlocal inside
        async with locks.hold(KEY):
            inside += 1
            assert inside == 1
            assert shared.held[KEY] >= 1
            await asyncio.sleep(0.01)
            inside -= 1

    await asyncio.gather(*(turn() for _ in range(5)))
    await locks.drain()
    assert shared.held == {}


class SlowUnlocks(FakeTurnLocks):
    """``unlock`` takes ``unlock_delay`` seconds (a round trip), or fails with ``error``."""

    def __init__(self, *, unlock_delay: float = 0.0, error: Exception | None = None) -> None:
        super().__init__()
        self.unlock_delay = unlock_delay
        self.error = error

    async def unlock(self, key: tuple[str, str, str]) -> None:
        await asyncio.sleep(self.unlock_delay)
        if self.error is not None:
            raise self.error
        await super().unlock(key)


async def test_released_returns_once_the_shared_lock_is_released() -> None:
    """What ``POST /run`` awaits before answering: the client's next turn, sent to another
    process at once, must find the session free."""
    shared = SlowUnlocks(unlock_delay=0.05)
    locks = SessionLocks(wait=1.0, shared=shared)
    await locks.acquire(KEY)
    await locks.released(KEY)
    assert shared.held == {} and len(locks) == 0


async def test_released_logs_an_unlock_that_fails_and_returns(
    caplog: pytest.LogCaptureFixture,
) -> None:
    locks = SessionLocks(wait=1.0, shared=SlowUnlocks(error=RuntimeError("connection gone")))
    await locks.acquire(KEY)
    await locks.released(KEY)  # the turn is stored; its answer must still go out
    assert len(locks) == 0
    assert "turn lock of session 's' not released cleanly: connection gone" in caplog.text


async def test_a_caller_cancelled_while_trying_leaves_no_lock_held() -> None:
    shared = FakeTurnLocks(delay=0.05)
    locks = SessionLocks(wait=5.0, shared=shared)
    attempt = asyncio.ensure_future(locks.acquire(KEY))
    await asyncio.sleep(0.01)  # inside try_lock, which will succeed after the caller is gone
    attempt.cancel()
    with pytest.raises(asyncio.CancelledError):
        await attempt
    await asyncio.sleep(0.1)
    assert shared.held == {} and len(locks) == 0


async def test_an_app_on_a_shared_store_takes_its_turn_locks(
    make_client: Callable[..., Any], tmp_path: Path
) -> None:
    from yadk.sessions._file_locks import FileTurnLocks

    running = make_client(session_service=None, artifact_service=None, db=str(tmp_path / "s.db"))
    locks = running.app.state.served.locks
    assert isinstance(locks.shared, FileTurnLocks)
    async with running as client:
        created = await client.post("/apps/echo/users/u1/sessions", json={"sessionId": "s1"})
        assert created.status_code == 200
        assert (await client.post("/run", json=message("hi"))).status_code == 200
    assert (tmp_path / "s.db-turns").exists()
    assert locks.shared._held == {}  # every turn's lock released by shutdown
    in_memory = make_client(session_service=None, db=":memory:")
    assert in_memory.app.state.served.locks.shared is None


@pytest.mark.parametrize("route", ["/run", "/run_sse"])
async def test_a_turn_s_answer_ends_after_its_shared_lock_is_released(
    make_client: Callable[..., Any], tmp_path: Path, route: str
) -> None:
    """A client that sends its next turn to another replica as soon as it has the whole answer
    must find the session free: the unlock (here a slow one) comes before the answer's end."""
    running = make_client(session_service=None, artifact_service=None, db=str(tmp_path / "s.db"))
    shared = SlowUnlocks(unlock_delay=0.05)
    running.app.state.served.locks.shared = shared
    async with running as client:
        created = await client.post("/apps/echo/users/u1/sessions", json={"sessionId": "s1"})
        assert created.status_code == 200
        for text in ("hi", "again"):
            answer = await client.post(route, json=message(text))
            assert answer.status_code == 200
            assert shared.held == {}
