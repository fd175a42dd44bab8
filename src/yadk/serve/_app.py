"""``create_app``: the ASGI app that serves a folder of agents over google-adk's api_server
protocol."""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import Response

from yadk.agents import BaseAgent
from yadk.artifacts import BaseArtifactService, InMemoryArtifactService
from yadk.errors import SessionStoreError, SessionTooLargeError
from yadk.memory import BaseMemoryService
from yadk.models import BaseLlm
from yadk.reload import ChangeSource, WatchfilesChanges
from yadk.serve._a2a_routes import a2a_routes
from yadk.serve._apps import Apps
from yadk.serve._artifacts import artifact_routes
from yadk.serve._docs_page import add_docs_page
from yadk.serve._guard import MAX_BODY, Guard, printable
from yadk.serve._hosts import HostPolicy
from yadk.serve._json import json_response
from yadk.serve._limits import LIMITS_STATE, Limits
from yadk.serve._meta import meta_routes
from yadk.serve._problems import Problem, problem_body
from yadk.serve._run import run_routes
from yadk.serve._served import Served
from yadk.serve._sessions import session_routes
from yadk.sessions import BaseSessionService, SessionLocks

__all__ = ["BUSY_WAIT", "DEFAULT_DB", "RouterFactory", "create_app"]

logger = logging.getLogger("yadk.serve")

DEFAULT_DB = str(Path(".yadk") / "sessions.db")
BUSY_WAIT = 10.0

RouterFactory = Callable[[Served], APIRouter]
"""Builds extra routes (e.g. the web UI's ``/dev/*``) from what the server serves."""


def create_app(
    path: str | os.PathLike[str],
    *,
    session_service: BaseSessionService | None = None,
    artifact_service: BaseArtifactService | None = None,
    memory_service: BaseMemoryService | None = None,
    reload: bool = False,
    token: str | None = None,
    allow_origins: Sequence[str] = (),
    hosts: Iterable[str] | None = None,
    limits: Limits | None = None,
    busy_wait: float = BUSY_WAIT,
    max_body: int = MAX_BODY,
    routers: Iterable[RouterFactory] = (),
    watcher: Callable[[], ChangeSource] = WatchfilesChanges,
    model: BaseLlm | None = None,
    on_agent: Callable[[BaseAgent], None] | None = None,
    reload_interval: float = 0.25,
    db: str | os.PathLike[str] | None = None,
) -> Any:
    """The ASGI app serving the agents at ``path`` (an agent folder, or a folder of them).

    Sessions go to ``session_service`` (default: the SQLite file ``.yadk/sessions.db``, with
    artifacts in ``.yadk/artifacts`` and memory in ``.yadk/sessions.memory.db``);
    ``memory_service`` is what ``load_memory``/``preload_memory`` and ``add_session_to_memory``
    use (default: that file when sessions default, else none). ``reload`` re-validates and swaps an app's agent when its
    files change, and streams the results at ``GET /dev/events``. ``token`` requires
    ``Authorization: Bearer TOKEN`` on every route but ``/health``; ``allow_origins`` enables
    CORS for those origins only. ``hosts`` are the ``Host`` values answered (``name:port``,
    ``*`` for any; default: no check): a request for another (DNS rebinding) or with an
    ``Origin`` neither of these hosts nor in ``allow_origins`` gets 403. ``limits`` are the
    timeouts and caps (``Limits``: the body's and the write's are enforced here, the
    connection's by ``yadk.serve._connections.LimitedHttp``, which finds them in the lifespan
    state). A turn on a busy session waits up to ``busy_wait`` seconds,
    then gets 409. ``routers`` add routes (each factory receives the ``Served`` state).
    ``model`` replaces every agent's model; ``on_agent`` is called with each agent loaded (at
    start or by a reload) before it serves. ``reload_interval`` is how often (seconds) the
    watchers' changes are applied. ``db`` names the store to open when no ``session_service``
    is given (a ``--db`` value: a SQLite path, ``postgresql://...``, ``:memory:``); a store the
    app opens is closed at shutdown.

    When several processes share the store (replicas, workers), a turn also takes the store's
    cross-process lock on its session (``BaseSessionService.turn_locks``), within the same wait.
    """
    from yadk import __version__

    opened = None
    if session_service is None:
        from yadk.stores import open_stores

        opened = open_stores(DEFAULT_DB if db is None else db)
        session_service = opened.sessions
        if artifact_service is None:
            artifact_service = opened.artifacts
        if memory_service is None:
            memory_service = opened.memory
    if artifact_service is None:
        artifact_service = InMemoryArtifactService()
    apps = Apps(
        path,
        session_service=session_service,
        artifact_service=artifact_service,
        memory_service=memory_service,
        reload=reload,
        watcher=watcher,
        model=model,
        on_agent=on_agent,
        poll_interval=reload_interval,
        locks=SessionLocks(wait=busy_wait, shared=session_service.turn_locks()),
    )
    limits = limits or Limits()
    policy = None
    if hosts is not None:
        policy = HostPolicy(
            hosts,
            origins=allow_origins,
            host_fix="send the address the server was started for, or start it with"
            " --allow-host NAME",
            origin_fix=" or those named by --allow-origin",
        )
    served = Served(apps)
    stoppers: list[Callable[[], Awaitable[None]]] = []

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[dict[str, Any]]:
        await session_service.prepare()  # not in the first request that reads a session
        await apps.start()
        try:
            yield {LIMITS_STATE: limits}
        finally:
            for stop in stoppers:
                await stop()
            await apps.stop()
            await apps.locks.drain()
            if opened is not None:
                await opened.aclose()

    app = FastAPI(
        title="yadk",
        version=__version__,
        description="yadk agents over google-adk's api_server protocol.",
        lifespan=lifespan,
        # FastAPI's pages load their scripts from a CDN: /docs is served offline instead.
        docs_url=None,
        redoc_url=None,
    )
    app.state.served = served

    @app.exception_handler(Problem)
    async def answer_problem(_: Request, problem: Exception) -> Response:
        assert isinstance(problem, Problem)
        return json_response(problem_body(problem), problem.status)

    @app.exception_handler(SessionStoreError)
    async def answer_store_error(request: Request, error: Exception) -> Response:
        # Full, read-only, locked too long, unreachable: the store's message says which, and
        # what the operator can do; nothing the client sent was wrong.
        assert isinstance(error, SessionStoreError)
        logger.warning("%s %s: %s", request.method, printable(request.url.path), error.message)
        return json_response({"detail": f"The session store cannot be used: {error.message}"}, 503)

    @app.exception_handler(SessionTooLargeError)
    async def answer_too_large(_: Request, error: Exception) -> Response:
        assert isinstance(error, SessionTooLargeError)
        return json_response({"detail": error.message}, 413)

    # Routes are matched in this order, one pattern after another: the turns, the requests that
    # come most often, first, so a turn is not matched against every other pattern before its own.
    for factory in (
        run_routes,
        lambda s: a2a_routes(s, on_stop=stoppers.append),
        lambda s: meta_routes(s, version=__version__),
        session_routes,
        artifact_routes,
        *routers,
    ):
        app.include_router(factory(served))
    if allow_origins:
        from starlette.middleware.cors import CORSMiddleware

        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(allow_origins),
            allow_methods=["GET", "POST", "PATCH", "DELETE", "OPTIONS"],
            allow_headers=["authorization", "content-type"],
        )
    app.add_middleware(Guard, token=token, max_body=max_body, hosts=policy, limits=limits)
    add_docs_page(app)
    return app
