"""Routes about the server and its apps: health, version, the app list, the agent card, and
``/dev/events`` (the reload results of ``--reload``, as server-sent events)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from yadk.serve._a2a_card import app_card
from yadk.serve._json import json_response
from yadk.serve._problems import Problem
from yadk.serve._served import Served
from yadk.serve._sse import EventStream, frame

__all__ = ["meta_routes"]

KEEPALIVE_SECONDS = 15.0


def meta_routes(served: Served, *, version: str) -> APIRouter:
    router = APIRouter(tags=["server"])

    @router.get("/health")
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    @router.get("/version")
    async def get_version() -> dict[str, str]:
        info = sys.version_info
        return {
            "version": version,
            "language": "python",
            "language_version": f"{info.major}.{info.minor}.{info.micro}",
        }

    @router.get("/list-apps")
    async def list_apps(detailed: bool = Query(False)) -> Response:
        if not detailed:
            return json_response(served.apps.names)
        return json_response({"apps": [_app_info(served, n) for n in served.apps.names]})

    @router.get("/.well-known/agent-card.json")
    async def agent_card(request: Request, app: str | None = Query(None)) -> Response:
        names = served.apps.names
        if app is None:
            if len(names) != 1:
                raise Problem(
                    400,
                    "This server serves several apps; choose one with ?app=NAME"
                    f" ({', '.join(names)})",
                )
            app = names[0]
        return json_response(await app_card(served, app, request))

    @router.get(
        "/dev/events",
        response_class=Response,
        response_model=None,
        responses={200: {"content": {"text/event-stream": {"schema": {"type": "string"}}}}},
    )
    async def dev_events() -> EventStream:
        if not served.apps.reload:
            raise Problem(404, "Reload events need the server started with --reload.")
        queue = served.apps.subscribe()
        hello = {"type": "hello", "apps": [a.status() for a in served.apps.by_name.values()]}
        stream = EventStream(
            _reload_frames(hello, queue), on_close=lambda: served.apps.unsubscribe(queue)
        )
        stream.start()
        return stream

    return router


async def _reload_frames(
    hello: dict[str, Any], queue: asyncio.Queue[dict[str, Any]]
) -> AsyncIterator[bytes]:
    yield frame(hello)
    while True:
        try:
            async with asyncio.timeout(KEEPALIVE_SECONDS):
                result = await queue.get()
        except TimeoutError:
            yield b": keep-alive\n\n"
            continue
        yield frame({"type": "reload", **result})


def _app_info(served: Served, name: str) -> dict[str, Any]:
    app = served.apps.by_name[name]
    info: dict[str, Any] = {"name": name, "language": "yaml"}
    if app.runner is not None:
        agent = app.runner.agent
        info["rootAgentName"] = agent.name
        info["description"] = agent.description or ""
    else:
        info.update({k: v for k, v in app.status().items() if k != "name"})
    return info
