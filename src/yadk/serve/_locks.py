"""Per-session serialization: one invocation at a time on a session, a bounded wait for the next.

Invocations on different sessions never wait for each other. A second turn on a busy session
waits up to ``wait`` seconds for the first to end, then gives up with ``SessionBusy`` (the server
answers 409), so no two invocations ever interleave their events in one session.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

__all__ = ["SessionBusy", "SessionLocks"]


class SessionBusy(Exception):
    """The session stayed busy for the whole wait."""


@dataclass
class _Entry:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


class SessionLocks:
    """Locks keyed by (app, user, session), created on demand and dropped when unused."""

    def __init__(self, *, wait: float) -> None:
        self.wait = wait
        self._entries: dict[tuple[str, str, str], _Entry] = {}

    def __len__(self) -> int:
        return len(self._entries)

    async def acquire(self, key: tuple[str, str, str]) -> None:
        """Take the session's lock, waiting at most ``wait`` seconds (else ``SessionBusy``);
        every successful ``acquire`` is paired with one ``release``."""
        entry = self._entries.get(key)
        if entry is None:
            entry = self._entries[key] = _Entry()
        entry.users += 1
        try:
            async with asyncio.timeout(self.wait):
                await entry.lock.acquire()
        except TimeoutError:
            self._drop(key, entry)
            raise SessionBusy from None
        except BaseException:
            self._drop(key, entry)
            raise

    def release(self, key: tuple[str, str, str]) -> None:
        entry = self._entries[key]
        entry.lock.release()
        self._drop(key, entry)

    @asynccontextmanager
    async def hold(self, key: tuple[str, str, str]) -> AsyncIterator[None]:
        await self.acquire(key)
        try:
            yield
        finally:
            self.release(key)

    def _drop(self, key: tuple[str, str, str], entry: _Entry) -> None:
        entry.users -= 1
        if entry.users == 0:
            del self._entries[key]
