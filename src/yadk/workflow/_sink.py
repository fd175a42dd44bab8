"""The one ordered stream every node of an invocation writes its events to.

A node's ``emit`` returns once the runner has taken the event (and appended it to the session),
so a node that goes on (or a node that starts after it) reads the state that event wrote.
"""

from __future__ import annotations

import asyncio
from typing import Any

from yadk.events import Event

__all__ = ["Sink"]

_DONE: Any = object()


class Sink:
    def __init__(self) -> None:
        self._queue: asyncio.Queue[tuple[Event, asyncio.Future[None]] | Any] = asyncio.Queue()

    async def emit(self, event: Event) -> None:
        taken: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((event, taken))
        await taken

    def close(self) -> None:
        """No more events: the reader's ``next`` returns None once it has taken the rest."""
        self._queue.put_nowait(_DONE)

    async def next(self) -> tuple[Event, asyncio.Future[None]] | None:
        item = await self._queue.get()
        return None if item is _DONE else item
