"""Per-session serialization: one invocation at a time on a session, a bounded wait for the next.

Invocations on different sessions never wait for each other. A second turn on a busy session
waits up to ``wait`` seconds for the first to end, then gives up with ``SessionBusy`` (the server
answers 409), so no two invocations ever interleave their events in one session.

Within the process an ``asyncio.Lock`` per session does it. When the store is shared by several
processes (``yadk serve`` replicas or ``--workers`` on PostgreSQL or one SQLite file), the store's
``TurnLocks`` are taken as well, after the in-process lock and within the same wait: they are
polled (``try_lock``, backing off from 2 ms to 50 ms), so a wait never holds a connection.
``POST /run`` answers only once the store's lock is released: a client that sends its next turn
to another process as soon as it has the answer would otherwise find the session still locked
and wait a poll (2 ms or more, and a round trip to the store) on most turns.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import Protocol

from yadk.sessions._base import TurnLocks

__all__ = ["Clock", "LoopClock", "SessionBusy", "SessionLocks"]

logger = logging.getLogger("yadk.serve")

_Key = tuple[str, str, str]
_FIRST_POLL = 0.002
_LAST_POLL = 0.05


class SessionBusy(Exception):
    """The session stayed busy for the whole wait."""


class Clock(Protocol):
    """The time ``SessionLocks`` reads, and its two ways of waiting; tests give a manual one, so
    a wait's end is a step of the test rather than real seconds."""

    def time(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...

    def timeout(self, seconds: float) -> AbstractAsyncContextManager[object]: ...


class LoopClock:
    """The running event loop's clock: ``loop.time()``, ``asyncio.sleep``, ``asyncio.timeout``."""

    def time(self) -> float:
        return asyncio.get_running_loop().time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    def timeout(self, seconds: float) -> AbstractAsyncContextManager[object]:
        return asyncio.timeout(seconds)


@dataclass
class _Entry:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


class SessionLocks:
    """Locks keyed by (app, user, session), created on demand and dropped when unused;
    ``shared`` adds the store's cross-process locks (see the module docstring); ``clock`` is
    what the wait is measured and spent on (the event loop's unless given)."""

    def __init__(
        self, *, wait: float, shared: TurnLocks | None = None, clock: Clock | None = None
    ) -> None:
        self.wait = wait
        self.shared = shared
        self.clock: Clock = clock or LoopClock()
        self._entries: dict[_Key, _Entry] = {}
        self._unlocking: set[asyncio.Task[None]] = set()

    def __len__(self) -> int:
        return len(self._entries)

    async def acquire(self, key: _Key, *, wait: float | None = None) -> None:
        """Take the session's lock, waiting at most ``wait`` seconds (default: the locks'
        ``wait``; else ``SessionBusy``); every successful ``acquire`` is paired with one
        ``release``."""
        if wait is None:
            wait = self.wait
        entry = self._entries.get(key)
        if entry is None:
            entry = self._entries[key] = _Entry()
        entry.users += 1
        deadline = self.clock.time() + wait
        try:
            async with self.clock.timeout(wait):
                await entry.lock.acquire()
        except TimeoutError:
            self._drop(key, entry)
            raise SessionBusy from None
        except BaseException:
            self._drop(key, entry)
            raise
        if self.shared is None:
            return
        try:
            await self._take_shared(self.shared, key, deadline)
        except BaseException:
            entry.lock.release()
            self._drop(key, entry)
            raise

    def release(self, key: _Key) -> asyncio.Future[None] | None:
        """Release the session's lock; the store's lock (if any) is released by the returned
        task, which a caller that answers a client awaits first (see ``released``)."""
        entry = self._entries[key]
        task = None
        if self.shared is not None:
            # The unlock may run after this process's next turn on the session took the lock
            # again: the store's locks are re-entrant per process, so it stays held once.
            task = asyncio.ensure_future(self.shared.unlock(key))
            self._unlocking.add(task)
            task.add_done_callback(self._unlocking.discard)
        entry.lock.release()
        self._drop(key, entry)
        return task

    async def released(self, key: _Key) -> None:
        """``release``, returning once the store's lock is released too: a client that sends
        its next turn to another process the moment it has this answer finds the session
        free, instead of polling until this process's unlock gets through."""
        task = self.release(key)
        if task is None:
            return
        try:
            await asyncio.shield(task)  # a cancelled caller leaves the unlock running
        except Exception as exc:  # the turn is done and stored: say so, answer anyway
            logger.warning("turn lock of session %r not released cleanly: %s", key[2], exc)

    async def drain(self) -> None:
        """Wait for the unlocks still on their way (at shutdown, before the store closes)."""
        while self._unlocking:
            await asyncio.gather(*self._unlocking, return_exceptions=True)

    @asynccontextmanager
    async def hold(self, key: _Key) -> AsyncIterator[None]:
        await self.acquire(key)
        try:
            yield
        finally:
            self.release(key)

    async def _take_shared(self, shared: TurnLocks, key: _Key, deadline: float) -> None:
        pause = _FIRST_POLL
        while not await _try_lock(shared, key):
            left = deadline - self.clock.time()
            if left <= 0:
                raise SessionBusy
            await self.clock.sleep(min(pause, left))
            pause = min(pause * 2, _LAST_POLL)

    def _drop(self, key: _Key, entry: _Entry) -> None:
        entry.users -= 1
        if entry.users == 0:
            del self._entries[key]


async def _try_lock(shared: TurnLocks, key: _Key) -> bool:
    """``shared.try_lock(key)``, which a cancelled caller (a client gone) never leaves held."""
    attempt = asyncio.ensure_future(shared.try_lock(key))
    try:
        return await asyncio.shield(attempt)
    except asyncio.CancelledError:

        def undo(done: asyncio.Future[bool]) -> None:
            if not done.cancelled() and done.exception() is None and done.result():
                task = asyncio.ensure_future(shared.unlock(key))
                task.add_done_callback(lambda t: t.cancelled() or t.exception())

        attempt.add_done_callback(undo)
        raise
