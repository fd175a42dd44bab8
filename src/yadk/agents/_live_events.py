"""Events tools hand up while they run (``ToolContext.publish``).

A tool that runs an agent (a single-turn sub-agent) must have that agent's events stored as they
happen: the agent's next model call reads its own tool calls back from the session. The flow
runs such calls in a task and yields each published event at once; the runner stores it when the
flow's generator is resumed, and only then does ``publish`` return.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncGenerator, Coroutine
from typing import Any, Generic, TypeVar

from yadk.events import Event

__all__ = ["LiveEvents"]

T = TypeVar("T")


class LiveEvents(Generic[T]):
    """Drives one coroutine whose tools publish events; ``result`` is its value once done."""

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._queue: deque[tuple[Event, asyncio.Future[None]]] = deque()
        self._wake: asyncio.Future[None] | None = None
        self.result: T

    async def publish(self, event: Event) -> None:
        stored: asyncio.Future[None] = self._loop.create_future()
        self._queue.append((event, stored))
        if self._wake is not None and not self._wake.done():
            self._wake.set_result(None)
        await stored

    async def drive(self, coro: Coroutine[Any, Any, T]) -> AsyncGenerator[Event, None]:
        """Run ``coro`` in a task, yielding what it publishes; its exception is raised here."""
        task = asyncio.ensure_future(coro)
        try:
            while True:
                while self._queue:
                    event, stored = self._queue.popleft()
                    yield event  # the runner stores it before asking for the next one
                    if not stored.done():
                        stored.set_result(None)
                if task.done():
                    break
                wake: asyncio.Future[Any] = self._loop.create_future()
                self._wake = wake
                await asyncio.wait((task, wake), return_when=asyncio.FIRST_COMPLETED)
            self.result = task.result()
        finally:
            if not task.done():  # the caller stopped listening: the calls stop too
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
