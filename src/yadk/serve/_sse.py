"""Server-sent events: ``data: JSON`` frames from a producer task, with clean cancellation.

The producer runs as its own task and hands frames over through a queue that does not make it
wait for the client: a client that reads slowly, or stops reading, does not keep the turn (and
its session's lock) running; its frames wait in memory until it reads them or the send timeout
drops it. When the client disconnects, the producer is cancelled at its next await; whatever it
already stored stays stored. ``on_close`` runs exactly once, however the stream ends (used to
release the session's lock): as soon as the producer ends, before the end of the stream is
sent, so a client that has the whole stream finds the session free.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from starlette.responses import Response
from starlette.types import Message, Receive, Scope, Send

from yadk.serve._json import dumps

__all__ = ["EventStream", "frame"]

_END = object()
HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache"),
    (b"x-accel-buffering", b"no"),
]


def frame(data: Any) -> bytes:
    """One SSE frame: a single ``data:`` line holding compact JSON, then a blank line."""
    return f"data: {dumps(data)}\n\n".encode()


class EventStream(Response):
    """An ASGI response streaming the frames ``source`` yields.

    ``source`` is started at once by ``start()`` (so the first frame, or an error before it, is
    known before the response starts); an exception it raises after the start becomes a final
    ``data: {"error": ...}`` frame.
    """

    def __init__(
        self,
        source: AsyncIterator[bytes],
        *,
        on_close: Callable[[], Awaitable[None] | None] = lambda: None,
    ) -> None:
        super().__init__(media_type="text/event-stream")
        self._source = source
        self._on_close = on_close
        self._queue: asyncio.Queue[object] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._closing: asyncio.Future[None] | None = None
        self._peeked: object | None = None
        self.disconnected = False

    def start(self) -> None:
        self._task = asyncio.create_task(self._produce())

    async def first(self) -> object:
        """Wait for the first item (a frame, an exception, or the end) without consuming it."""
        item = await self._queue.get()
        self._peeked = item
        return item

    async def _produce(self) -> None:
        try:
            async for chunk in self._source:
                self._queue.put_nowait(chunk)
        except Exception as exc:
            self._queue.put_nowait(exc)
        finally:
            try:
                await self._release()
            finally:
                self._queue.put_nowait(_END)

    async def _release(self) -> None:
        """Run ``on_close`` once, to its end even if the caller is cancelled meanwhile."""
        if self._closing is None:
            self._closing = asyncio.ensure_future(self._run_on_close())
        await asyncio.shield(self._closing)

    async def _run_on_close(self) -> None:
        closing = self._on_close()
        if inspect.isawaitable(closing):
            await closing

    async def close(self) -> None:
        """Cancel the producer (if still running) and run ``on_close`` once."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
        await self._release()

    async def _next(self) -> object:
        peeked = self._peeked
        if peeked is not None:
            self._peeked = None
            return peeked
        return await self._queue.get()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        watcher = asyncio.create_task(self._watch_disconnect(receive))
        try:
            await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
            while True:
                item = await self._next()
                if item is _END:
                    break
                if isinstance(item, BaseException):
                    body = frame({"error": f"{type(item).__name__}: {item}"})
                else:
                    assert isinstance(item, bytes)
                    body = item
                await send({"type": "http.response.body", "body": body, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:  # the client went away while we wrote
            self.disconnected = True
        finally:
            watcher.cancel()
            await self.close()

    async def _watch_disconnect(self, receive: Receive) -> None:
        while True:
            message: Message = await receive()
            if message["type"] == "http.disconnect":
                self.disconnected = True
                if self._task is not None:
                    self._task.cancel()
                # Unblock the writer if it waits for a frame that will never come.
                self._queue.put_nowait(_END)
                return
