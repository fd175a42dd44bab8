"""``create_web_app``: ``create_app`` with reload, plus the web UI (``yadk web``).

The layers, outermost first: the Host/Origin guard (DNS rebinding, CSRF), the page and its
assets, then the api_server app (token check, size limit) with the ``/dev`` data routes added.
Every agent the server loads, at start or on a reload, has its model calls recorded for the
Request panel before it serves a turn.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter

from yadk.serve import ServeOptions, create_app
from yadk.serve._devguard import HostOriginGuard, allowed_hosts
from yadk.serve._devrequests import RequestRecorder
from yadk.serve._devsessions import web_session_routes
from yadk.serve._devtraces import WebTracing, trace_routes
from yadk.serve._devui import WebPage, dev_routes

if TYPE_CHECKING:
    from yadk.artifacts import BaseArtifactService
    from yadk.config import LoadedAgent
    from yadk.memory import BaseMemoryService
    from yadk.models import BaseLlm
    from yadk.serve._served import Served
    from yadk.sessions import BaseSessionService

__all__ = ["ServedApps", "create_web_app"]


class ServedApps:
    """The ``DevApps`` view of what a server serves."""

    def __init__(self, served: Served) -> None:
        self.served = served
        path = served.apps.path  # built with the app, before the loop runs: stat it once here
        self._root = path.parent if path.is_file() else path

    def root(self) -> Path:
        return self._root

    def app_names(self) -> list[str]:
        return self.served.apps.names

    def loaded(self, app: str) -> LoadedAgent | None:
        found = self.served.apps.by_name.get(app)
        if found is None or found.reloader is None:
            return None
        return found.reloader.loaded

    def diagnostics(self, app: str) -> list[dict[str, Any]]:
        found = self.served.apps.by_name[app]
        if found.failure is not None:  # never loaded: every request gets 503
            return [d.to_dict() for d in found.failure.diagnostics] or [
                _problem(str(found.folder), found.failure.message)
            ]
        last = found.last_reload
        if last is not None and not last["ok"]:  # the last good agent keeps serving
            return list(last.get("diagnostics") or []) or [
                _problem(str(found.folder), str(last.get("error", "reload failed")))
            ]
        loaded = self.loaded(app)
        return [d.to_dict() for d in loaded.diagnostics] if loaded is not None else []


def _problem(path: str, message: str) -> dict[str, Any]:
    """A failure that is not about a place in a file (a model that does not resolve, a
    factory that raised) as a diagnostic of the agent folder."""
    return {
        "path": path,
        "line": 0,
        "column": 0,
        "rule": "load-failed",
        "severity": "error",
        "message": message,
        "hint": "",
    }


def create_web_app(
    path: str | os.PathLike[str],
    *,
    host: str,
    port: int,
    session_service: BaseSessionService | None = None,
    artifact_service: BaseArtifactService | None = None,
    memory_service: BaseMemoryService | None = None,
    token: str | None = None,
    model: BaseLlm | None = None,
    tracing: WebTracing | None = None,
    **create_app_options: Any,
) -> Any:
    """The ASGI app of ``yadk web``: the agents at ``path`` served with reload, and the UI at
    ``/``. Only requests addressed to ``host``:``port`` (or, for loopback, its other names)
    and sent by its own pages are answered. ``tracing`` holds the spans the Trace view shows
    (``start_web_tracing()``; none by default)."""
    recorder = RequestRecorder()
    traces = trace_routes(tracing if tracing is not None else WebTracing(None))

    def router(served: Served) -> APIRouter:
        routes = dev_routes(ServedApps(served), recorder)
        routes += web_session_routes(lambda: served.sessions, lambda: served.apps.names)
        routes += traces
        return APIRouter(routes=list(routes))

    options = ServeOptions(
        session_service=session_service,
        artifact_service=artifact_service,
        memory_service=memory_service,
        reload=True,
        token=token,
        model=model,
        on_agent=recorder.instrument,
        # A save should show in the page within half a second: apply changes every 0.1 s
        # (a poll that finds nothing only drains a queue).
        reload_interval=0.1,
        routers=[router],
    )
    api = create_app(path, options, **create_app_options)
    return HostOriginGuard(WebPage(api), hosts=allowed_hosts(host, port))
