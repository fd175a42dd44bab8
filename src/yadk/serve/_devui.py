"""The web UI's own routes, next to the api_server protocol: the page and its assets, and the
``/dev/...`` data the protocol does not carry (the agent tree, the current diagnostics, the exact
model requests of recent turns).

``web_routes(apps, recorder)`` returns Starlette routes that ``create_app`` mounts when it serves
the UI; ``apps`` is anything with the ``DevApps`` methods (the serve layer's app registry).

    GET /                                                     the page (index.html)
    GET /web/{file}                                           its ES modules and CSS
    GET /dev/apps/{app}/agent                                 agent tree, file:line of each part
    GET /dev/apps/{app}/diagnostics                           {"ok", "diagnostics": [...]}
    GET /dev/apps/{app}/users/{user}/sessions/{id}/requests   {"invocations": [...]}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from yadk.serve._devrequests import RequestRecorder
from yadk.serve._devtree import agent_tree

if TYPE_CHECKING:
    from yadk.config import Diagnostic, LoadedAgent

__all__ = ["WEB_DIR", "DevApps", "diagnostic_json", "web_routes"]

WEB_DIR = Path(__file__).parent / "web"
_NO_CACHE = {"Cache-Control": "no-cache"}


class DevApps(Protocol):
    """What the dev routes need to know about the served apps."""

    def app_names(self) -> list[str]:
        """The served apps, as ``/list-apps`` lists them."""

    def loaded(self, app: str) -> LoadedAgent | None:
        """The agent serving ``app`` now (the last good one after a failed reload)."""

    def diagnostics(self, app: str) -> list[Diagnostic]:
        """The problems of ``app``'s files as of the latest (re)load: errors that keep the last
        good agent in place, and warnings."""


def diagnostic_json(diagnostic: Diagnostic) -> dict[str, Any]:
    """A diagnostic as the page shows it: its fields plus ``location`` (``file:line:col``)."""
    return {**diagnostic.to_dict(), "location": diagnostic.location()}


def web_routes(apps: DevApps, recorder: RequestRecorder) -> list[BaseRoute]:
    """The page, its assets and the ``/dev/...`` data routes."""

    def unknown(app: str) -> Response | None:
        if app in apps.app_names():
            return None
        return JSONResponse({"detail": f"App not found: {app!r}"}, status_code=404)

    async def index(request: Request) -> Response:
        return FileResponse(WEB_DIR / "index.html", headers=_NO_CACHE)

    async def agent(request: Request) -> Response:
        app = request.path_params["app"]
        if (missing := unknown(app)) is not None:
            return missing
        loaded = apps.loaded(app)
        if loaded is None:
            return JSONResponse(
                {"detail": f"App {app!r} has no agent loaded: see its diagnostics."},
                status_code=503,
            )
        return JSONResponse({"app": app, "root": agent_tree(loaded)})

    async def diagnostics(request: Request) -> Response:
        app = request.path_params["app"]
        if (missing := unknown(app)) is not None:
            return missing
        found = apps.diagnostics(app)
        ok = not any(d.is_error for d in found)
        return JSONResponse(
            {"app": app, "ok": ok, "diagnostics": [diagnostic_json(d) for d in found]}
        )

    async def requests(request: Request) -> Response:
        params = request.path_params
        if (missing := unknown(params["app"])) is not None:
            return missing
        invocations = recorder.invocations(params["app"], params["user"], params["session"])
        return JSONResponse({"invocations": invocations})

    return [
        Route("/", index, methods=["GET"]),
        Mount("/web", app=StaticFiles(directory=WEB_DIR), name="web"),
        Route("/dev/apps/{app}/agent", agent, methods=["GET"]),
        Route("/dev/apps/{app}/diagnostics", diagnostics, methods=["GET"]),
        Route(
            "/dev/apps/{app}/users/{user}/sessions/{session}/requests", requests, methods=["GET"]
        ),
    ]
