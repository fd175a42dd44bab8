"""The web UI's routes, next to the api_server protocol: the page and its assets, and the
``/dev/...`` data the protocol does not carry (the agent tree, the current diagnostics, the exact
model requests of recent turns).

    GET /                                                     the page (index.html)
    GET /web/{file}                                           its ES modules and CSS
    GET /dev/apps/{app}/agent                                 agent tree, file:line of each part
    GET /dev/apps/{app}/diagnostics                           {"ok", "loaded", "diagnostics"}
    GET /dev/apps/{app}/users/{user}/sessions/{id}/requests   {"invocations": [...]}, briefly
    GET /dev/apps/{app}/users/{user}/sessions/{id}/requests/{invocation}   one, every request

The page and its assets hold no data, so they are served in front of the token check (a browser
cannot add a header to the address it opens); the ``/dev`` data routes sit behind it, with the
rest of the API.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from yadk.serve._devrequests import RequestRecorder
from yadk.serve._devtree import agent_tree

if TYPE_CHECKING:
    from yadk.config import LoadedAgent

__all__ = ["WEB_DIR", "DevApps", "WebPage", "dev_routes"]

WEB_DIR = Path(__file__).parent / "web"
ASSETS = frozenset({"app.js", "api.js", "agent.js", "boot.js", "chat.js", "dom.js", "events.js"})
ASSETS |= {"graph.js"}
ASSETS |= {"pending.js", "reload.js", "request.js", "state.js", "style.css", "trace.js", "usage.js"}
_TYPES = {".js": b"text/javascript; charset=utf-8", ".css": b"text/css; charset=utf-8"}


class DevApps(Protocol):
    """What the dev routes need to know about the served apps."""

    def app_names(self) -> list[str]:
        """The served apps, as ``/list-apps`` lists them."""

    def loaded(self, app: str) -> LoadedAgent | None:
        """The agent serving ``app`` now (the last good one after a failed reload)."""

    def root(self) -> Path:
        """The served folder: diagnostics name the files under it relative to it."""

    def diagnostics(self, app: str) -> list[dict[str, Any]]:
        """The problems of ``app``'s files as of the latest (re)load, as JSON: errors that keep
        the last good agent in place (or keep the app down), and warnings."""


def dev_routes(apps: DevApps, recorder: RequestRecorder) -> list[Route]:
    """The ``/dev/...`` data routes."""

    def unknown(app: str) -> Response | None:
        if app in apps.app_names():
            return None
        return JSONResponse({"detail": f"App not found: {app!r}"}, status_code=404)

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
        root = apps.root()
        found = [{**d, "location": _location(d, root)} for d in apps.diagnostics(app)]
        ok = not any(d.get("severity") == "error" for d in found)
        loaded = apps.loaded(app) is not None
        return JSONResponse({"app": app, "ok": ok, "loaded": loaded, "diagnostics": found})

    async def requests(request: Request) -> Response:
        params = request.path_params
        if (missing := unknown(params["app"])) is not None:
            return missing
        invocations = recorder.invocations(params["app"], params["user"], params["session"])
        return JSONResponse({"invocations": invocations})

    async def invocation(request: Request) -> Response:
        params = request.path_params
        if (missing := unknown(params["app"])) is not None:
            return missing
        found = recorder.invocation(
            params["app"], params["user"], params["session"], params["invocation"]
        )
        if found is None:
            return JSONResponse(
                {"detail": f"No recorded model calls for invocation {params['invocation']!r}."},
                status_code=404,
            )
        return JSONResponse(found)

    return [
        Route("/dev/apps/{app}/agent", agent, methods=["GET"]),
        Route("/dev/apps/{app}/diagnostics", diagnostics, methods=["GET"]),
        Route(
            "/dev/apps/{app}/users/{user}/sessions/{session}/requests", requests, methods=["GET"]
        ),
        Route(
            "/dev/apps/{app}/users/{user}/sessions/{session}/requests/{invocation}",
            invocation,
            methods=["GET"],
        ),
    ]


def _read_asset(name: str) -> tuple[bytes, bytes]:
    kind = _TYPES.get(Path(name).suffix, b"text/html; charset=utf-8")
    return (WEB_DIR / name).read_bytes(), kind


def _location(diagnostic: dict[str, Any], root: Path) -> str:
    """``file:line:col``, the file relative to the served folder when it is inside it."""
    line, column = diagnostic.get("line") or 0, diagnostic.get("column") or 0
    path = shown_path(str(diagnostic.get("path", "")), root)
    return f"{path}:{line}:{column}" if line else path


def shown_path(path: str, root: Path) -> str:
    """``path`` relative to ``root`` when it lies inside it (``.`` for ``root`` itself),
    else as given. Pure string work: no file system access."""
    if not path or not os.path.isabs(path):
        return path
    try:
        relative = os.path.relpath(os.path.normpath(path), os.path.normpath(root))
    except ValueError:  # another drive (Windows)
        return path
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return path
    return Path(relative).as_posix()


class WebPage:
    """ASGI: answers ``GET /`` and ``GET /web/{asset}`` from the package's files, passes every
    other request to ``app``. Assets are a fixed list, never a path taken from the URL."""

    def __init__(self, app: Any) -> None:
        self.app = app
        # A few small files, read once when the app is built (never on the event loop).
        self._files = {name: _read_asset(name) for name in ASSETS | {"index.html"}}

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] in ("GET", "HEAD"):
            path = scope["path"]
            name = "index.html" if path == "/" else path.removeprefix("/web/")
            if name == "index.html" or (path.startswith("/web/") and name in ASSETS):
                await self._file(name, scope, send)
                return
        await self.app(scope, receive, send)

    async def _file(self, name: str, scope: dict[str, Any], send: Any) -> None:
        body, kind = self._files[name]
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", kind),
                    (b"content-length", str(len(body)).encode()),
                    (b"cache-control", b"no-cache"),
                    (b"x-content-type-options", b"nosniff"),
                    (b"content-security-policy", _CSP),
                ],
            }
        )
        await send(
            {"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body}
        )


# The page runs only its own scripts and talks only to its own server.
_CSP = (
    b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
    b" connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
)
