"""``create_app``: the ASGI app that serves a folder of agents over google-adk's api_server
protocol.

The CORS middleware is imported only when ``--allow-origin`` is given.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import Response

from yadk import __version__
from yadk.artifacts import InMemoryArtifactService
from yadk.errors import SessionStoreError, SessionTooLargeError
from yadk.serve._a2a_routes import a2a_routes
from yadk.serve._apps import Apps
from yadk.serve._artifacts import artifact_routes
from yadk.serve._docs_page import add_docs_page
from yadk.serve._guard import Guard, printable
from yadk.serve._hosts import HostPolicy
from yadk.serve._json import json_response
from yadk.serve._limits import LIMITS_STATE, Limits
from yadk.serve._meta import meta_routes
from yadk.serve._options import BUSY_WAIT, RouterFactory, ServeOptions
from yadk.serve._problems import Problem, problem_body
from yadk.serve._run import run_routes
from yadk.serve._served import Served
from yadk.serve._sessions import session_routes
from yadk.sessions import SessionLocks
from yadk.stores import DEFAULT_DB, open_stores

__all__ = ["BUSY_WAIT", "RouterFactory", "ServeOptions", "create_app"]

logger = logging.getLogger("yadk.serve")


def create_app(
    path: str | os.PathLike[str], options: ServeOptions | None = None, **changes: Any
) -> Any:
    """The ASGI app serving the agents at ``path`` (an agent folder, or a folder of them), as
    ``options`` say (``ServeOptions``; its defaults when ``None``). Keywords change single
    fields: ``create_app(path, token="s3cret")`` is
    ``create_app(path, ServeOptions(token="s3cret"))``.

    When several processes share the store (replicas, workers), a turn also takes the store's
    cross-process lock on its session (``BaseSessionService.turn_locks``), within the same wait.
    """
    options = dataclasses.replace(options or ServeOptions(), **changes)
    session_service = options.session_service
    artifact_service = options.artifact_service
    memory_service = options.memory_service
    opened = None
    if session_service is None:
        opened = open_stores(DEFAULT_DB if options.db is None else options.db)
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
        reload=options.reload,
        watcher=options.watcher,
        model=options.model,
        on_agent=options.on_agent,
        poll_interval=options.reload_interval,
        locks=SessionLocks(wait=options.busy_wait, shared=session_service.turn_locks()),
    )
    limits = options.limits or Limits()
    policy = None
    if options.hosts is not None:
        policy = HostPolicy(
            options.hosts,
            origins=options.allow_origins,
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
        *options.routers,
    ):
        app.include_router(factory(served))
    if options.allow_origins:
        from starlette.middleware.cors import CORSMiddleware

        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(options.allow_origins),
            allow_methods=["GET", "POST", "PATCH", "DELETE", "OPTIONS"],
            allow_headers=["authorization", "content-type"],
        )
    app.add_middleware(
        Guard, token=options.token, max_body=options.max_body, hosts=policy, limits=limits
    )
    add_docs_page(app)
    return app
