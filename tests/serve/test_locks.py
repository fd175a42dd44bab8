"""SessionLocks with a store's cross-process locks: the same wait, the same 409, nothing leaked."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.manual_clock import ManualClock, until
from tests.serve.conftest import message

from yadk.sessions._turns import SessionBusy, SessionLocks

KEY = ("app", "u", "s")


class FakeTurnLocks:
    """Cross-process locks as a store gives them: re-entrant per process, ``held_elsewhere``
    marks keys another process holds; with a ``gate``, ``try_lock`` sets ``trying`` and answers
    once the gate opens (a round trip still on its way)."""

    def __init__(self, *, gate: asyncio.Event | None = None) -> None:
        self.held: dict[tuple[str, str, str], int] = {}
        self.held_elsewhere: set[tuple[str, str, str]] = set()
        self.gate = gate
        self.trying = asyncio.Event()
        self.tries = 0
        self.unlocks = 0

    async def try_lock(self, key: tuple[str, str, str]) -> bool:
        self.tries += 1
        self.trying.set()
        if self.gate is not None:
            await self.gate.wait()
        if key in self.held_elsewhere:
            return False
        self.held[key] = self.held.get(key, 0) + 1
        return True

    async def unlock(self, key: tuple[str, str, str]) -> None:
        self.unlocks += 1
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
    clock = ManualClock()
    locks = SessionLocks(wait=0.2, shared=shared, clock=clock)
    with pytest.raises(SessionBusy):
        await locks.acquire(KEY)
    # Polled, backing off from 2 ms to 50 ms, until the wait is spent.
    assert clock.sleeps == pytest.approx([0.002, 0.004, 0.008, 0.016, 0.032, 0.05, 0.05, 0.038])
    assert clock.now == pytest.approx(0.2)
    assert shared.tries == 9
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
            for _ in range(3):  # the others queue up meanwhile
                await asyncio.sleep(0)
            inside -= 1

    await asyncio.gather(*(turn() for _ in range(5)))
    await locks.drain()
    assert shared.held == {}


class SlowUnlocks(FakeTurnLocks):
    """``unlock`` takes ``unlock_turns`` turns of the event loop (a round trip), then waits
    for ``unlock_gate`` if given, or fails with ``error``."""

    def __init__(
        self,
        *,
        unlock_turns: int = 0,
        unlock_gate: asyncio.Event | None = None,
        error: Exception | None = None,
    ) -> None:
        super().__init__()
        self.unlock_turns = unlock_turns
        self.unlock_gate = unlock_gate
        self.unlocking = asyncio.Event()
        self.error = error

    async def unlock(self, key: tuple[str, str, str]) -> None:
        self.unlocking.set()
        for _ in range(self.unlock_turns):
            await asyncio.sleep(0)
        if self.unlock_gate is not None:
            await self.unlock_gate.wait()
        if self.error is not None:
            raise self.error
        await super().unlock(key)


async def test_released_returns_once_the_shared_lock_is_released() -> None:
    """What ``POST /run`` awaits before answering: the client's next turn, sent to another
    process at once, must find the session free."""
    gate = asyncio.Event()
    shared = SlowUnlocks(unlock_gate=gate)
    locks = SessionLocks(wait=1.0, shared=shared)
    await locks.acquire(KEY)
    released = asyncio.ensure_future(locks.released(KEY))
    await shared.unlocking.wait()
    await until(lambda: len(locks) == 0)  # this process's lock is free at once
    assert not released.done() and shared.held == {KEY: 1}
    gate.set()
    await released
    assert shared.held == {}


async def test_released_logs_an_unlock_that_fails_and_returns(
    caplog: pytest.LogCaptureFixture,
) -> None:
    locks = SessionLocks(wait=1.0, shared=SlowUnlocks(error=RuntimeError("connection gone")))
    await locks.acquire(KEY)
    await locks.released(KEY)  # the turn is stored; its answer must still go out
    assert len(locks) == 0
    assert "turn lock of session 's' not released cleanly: connection gone" in caplog.text


async def test_a_caller_cancelled_while_trying_leaves_no_lock_held() -> None:
    gate = asyncio.Event()
    shared = FakeTurnLocks(gate=gate)
    locks = SessionLocks(wait=5.0, shared=shared)
    attempt = asyncio.ensure_future(locks.acquire(KEY))
    await shared.trying.wait()  # inside try_lock, which will succeed after the caller is gone
    attempt.cancel()
    with pytest.raises(asyncio.CancelledError):
        await attempt
    gate.set()
    await until(lambda: shared.unlocks == 1)  # the late success is undone
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
    shared = SlowUnlocks(unlock_turns=20)
    running.app.state.served.locks.shared = shared
    async with running as client:
        created = await client.post("/apps/echo/users/u1/sessions", json={"sessionId": "s1"})
        assert created.status_code == 200
        for text in ("hi", "again"):
            answer = await client.post(route, json=message(text))
            assert answer.status_code == 200
            assert shared.held == {}
