"""``POST /run`` (the invocation's events as one JSON list) and ``POST /run_sse`` (the events
as server-sent events, partial ones too with ``streaming: true``).

Both take the session's lock first: a second turn on a busy session waits, then gets 409. A
client that disconnects cancels its invocation, on either route and whether or not the turn has
sent anything yet; events already stored stay stored. On ``/run_sse`` the lock is released when
the turn ends, not when the client has read it all.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable
from typing import Any, TypeVar

from fastapi import APIRouter, Request
from fastapi.responses import Response

from yadk.errors import SessionStoreError
from yadk.events import Event
from yadk.runner import Runner
from yadk.serve._invocations import Invocation
from yadk.serve._json import json_response
from yadk.serve._problems import Problem
from yadk.serve._served import Served, busy_detail
from yadk.serve._sse import EventStream, frame
from yadk.serve._wire import RunAgentRequest, event_json
from yadk.sessions import SessionBusy

__all__ = ["run_routes"]

T = TypeVar("T")

_EVENTS: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The invocation's events",
        "content": {"application/json": {"schema": {"type": "array", "items": {"type": "object"}}}},
    }
}
_STREAM: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "One `data:` line of event JSON per event",
        "content": {"text/event-stream": {"schema": {"type": "string"}}},
    }
}


def run_routes(served: Served) -> APIRouter:
    router = APIRouter(tags=["run"])

    def target(req: RunAgentRequest) -> tuple[Runner, tuple[str, str, str]]:
        name = req.app_name
        if not name:
            if len(served.apps.names) != 1:
                raise Problem(400, "appName is required: this server serves more than one app")
            name = served.apps.names[0]
        runner = served.runner(name)
        return runner, (name, req.user_id, req.session_id)

    @router.post("/run", responses=_EVENTS)
    async def run_agent(req: RunAgentRequest, request: Request) -> Response:
        runner, key = target(req)
        async with served.locked(key):
            invocation = Invocation(runner, req, streaming=False)
            events = await _until_disconnect(request, _collect(invocation))
        if events is _GONE:
            return Response(status_code=499)
        assert isinstance(events, list)
        return json_response([event_json(event) for event in events])

    @router.post("/run_sse", responses=_STREAM, response_class=Response, response_model=None)
    async def run_agent_sse(req: RunAgentRequest, request: Request) -> Response:
        runner, key = target(req)
        try:
            await runner.locks.acquire(key)
        except SessionBusy:
            raise Problem(409, busy_detail(key[2], runner.locks.wait)) from None
        invocation = Invocation(runner, req, streaming=req.streaming)
        stream = EventStream(_frames(invocation), on_close=lambda: runner.locks.released(key))
        stream.start()
        try:
            # Without partial events the first frame comes when the model has answered: a
            # client gone meanwhile must cancel the turn now, not when the stream would start.
            first = await _until_disconnect(request, stream.first())
        except BaseException:
            await stream.close()
            raise
        if first is _GONE:
            await stream.close()
            return Response(status_code=499)
        if isinstance(first, (Problem, SessionStoreError)):
            # e.g. no such session (404), a store that cannot be written (503): a plain
            # answer, not a stream
            await stream.close()
            raise first
        return stream

    return router


async def _collect(invocation: Invocation) -> list[Event]:
    return [event async for event in invocation.events_async()]


async def _frames(invocation: Invocation) -> AsyncIterator[bytes]:
    async for event in invocation.events_async():
        for part in _split_artifact_delta(event):
            yield frame(part)


def _split_artifact_delta(event: Event) -> list[dict[str, Any]]:
    """As google-adk's ``/run_sse``: an event with content and an artifact change goes out as
    the content (artifact change cleared) followed by an action-only copy without content."""
    data = event_json(event)
    if not (event.actions.artifact_delta and event.content and event.content.parts):
        return [data]
    content_only = {**data, "actions": {**data["actions"], "artifactDelta": {}}}
    action_only = {key: value for key, value in data.items() if key != "content"}
    action_only.pop("longRunningToolIds", None)
    return [content_only, action_only]


_GONE = object()


async def _until_disconnect(request: Request, work: Awaitable[T]) -> T | object:
    """Run ``work`` unless the client disconnects first (then cancel it and return _GONE)."""
    task: asyncio.Task[T] = asyncio.ensure_future(work)
    watcher = asyncio.ensure_future(_disconnected(request))
    try:
        await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        watcher.cancel()
        if not task.done():  # the client went away, or the server is shutting down
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass
    if task.cancelled():
        return _GONE
    return task.result()


async def _disconnected(request: Request) -> None:
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            return
