"""One ordered stream that code running under a generator writes its events to, the generator
handing them up as they come.

``emit`` returns once the consumer has taken the event (the runner appends it to the session
first), so code that goes on reads the state that event wrote. Used by every node of a workflow
invocation and by an agent's tool calls whose runs publish events (a single-turn sub-agent's,
``ToolContext.publish``).

``drive`` runs the coroutine in the consumer's own task: an event emitted there goes straight up
with no task switch, which is what keeps a workflow node cheap. Code running side by side (a
fan-out, tool calls run together) runs in tasks of its own; its events queue here until the
driver hands them up.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncGenerator, Coroutine, Generator
from typing import Any

from yadk.events import Event

__all__ = ["Sink"]


class _Emit:
    """Awaited by a node running in the driver's task: the driver yields ``event`` up."""

    __slots__ = ("event",)

    def __init__(self, event: Event) -> None:
        self.event = event

    def __await__(self) -> Generator[Any, None, None]:
        yield self


class Sink:
    def __init__(self) -> None:
        self._items: deque[tuple[Event, asyncio.Future[None]]] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._loop = asyncio.get_running_loop()
        self._driver: asyncio.Task[Any] | None = None

    async def emit(self, event: Event) -> None:
        if asyncio.current_task() is self._driver:
            await _Emit(event)
            return
        taken: asyncio.Future[None] = self._loop.create_future()
        self._items.append((event, taken))
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
        await taken

    async def drive(self, coro: Coroutine[Any, Any, Any]) -> AsyncGenerator[Event, None]:
        """Run ``coro`` in this task, yielding every event emitted while it runs; its
        exception, if any, is raised once its events are out."""
        self._driver = asyncio.current_task()
        finished = False
        try:
            send: BaseException | None = None
            while True:
                try:
                    step = coro.send(None) if send is None else coro.throw(send)
                except StopIteration:
                    finished = True
                    break
                except BaseException:
                    finished = True
                    raise
                send = None
                if isinstance(step, _Emit):
                    yield step.event
                    continue
                if step is None:  # a bare yield (asyncio.sleep(0)): let the loop run once
                    await asyncio.sleep(0)
                    continue
                # The coroutine waits on a future; meanwhile hand up what side tasks emit.
                try:
                    async for event in self._until(step):
                        yield event
                except asyncio.CancelledError as exc:
                    send = exc
        finally:
            if not finished:
                await _abandon(coro)
            self._driver = None

    async def _until(self, future: asyncio.Future[Any]) -> AsyncGenerator[Event, None]:
        while True:
            while self._items:
                event, taken = self._items.popleft()
                try:
                    yield event
                finally:
                    if not taken.done():
                        taken.set_result(None)
            if future.done():
                return
            gate: asyncio.Future[None] = self._loop.create_future()
            self._waiter = gate

            def opened(_: Any, gate: asyncio.Future[None] = gate) -> None:
                if not gate.done():
                    gate.set_result(None)

            future.add_done_callback(opened)
            try:
                await gate
            finally:
                future.remove_done_callback(opened)
                self._waiter = None


async def _abandon(coro: Coroutine[Any, Any, Any]) -> None:
    """Cancel a coroutine the driver stops driving (the consumer went away), letting its
    cleanup (cancelling side tasks) run to the end."""
    send: BaseException = asyncio.CancelledError()
    while True:
        try:
            step = coro.throw(send)
        except BaseException:
            return
        if isinstance(step, asyncio.Future):
            try:
                await asyncio.shield(step)
            except BaseException:
                pass
        send = asyncio.CancelledError()
