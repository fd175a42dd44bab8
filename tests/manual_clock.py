"""A clock for code that waits (``yadk.sessions._turns.Clock``), moved by the test, not by time.

``advance(seconds)`` moves it and ends the timeouts it passes; a ``sleep`` moves it by the time
slept (the sleeper is the only thing the clock waits for), so a polling loop runs its whole
schedule at once and the test reads the pauses it took from ``sleeps``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager


class ManualClock:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []
        self._timeouts: list[tuple[float, asyncio.Timeout]] = []
        self._timeout_set = asyncio.Event()

    def time(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.advance(seconds)
        await asyncio.sleep(0)

    @asynccontextmanager
    async def timeout(self, seconds: float) -> AsyncIterator[asyncio.Timeout]:
        async with asyncio.timeout(None) as timeout:
            entry = (self.now + seconds, timeout)
            self._timeouts.append(entry)
            self._timeout_set.set()
            try:
                yield timeout
            finally:
                self._timeouts.remove(entry)

    def advance(self, seconds: float) -> None:
        self.now += seconds
        loop = asyncio.get_running_loop()
        for deadline, timeout in self._timeouts:
            if deadline <= self.now:
                timeout.reschedule(loop.time())  # fires at the loop's next turn

    async def waiting(self) -> None:
        """Return once some code waits under one of this clock's timeouts."""
        while not self._timeouts:
            self._timeout_set.clear()
            await self._timeout_set.wait()


async def until(condition: Callable[[], bool], *, turns: int = 1000) -> None:
    """Let the event loop run until ``condition()`` holds; fail after ``turns`` turns of it."""
    for _ in range(turns):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError(f"still false after {turns} turns of the event loop")
