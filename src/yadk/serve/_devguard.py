"""Host and Origin checks for the web UI's server: DNS-rebinding and CSRF protection.

The UI can make the server run agents and reload code, so a page from another site must not
reach it: not through a DNS name rebound to 127.0.0.1 (its requests carry that name in ``Host``),
and not through a cross-site form or fetch (its requests carry the other site in ``Origin``).
``HostOriginGuard`` refuses both with 403 before the app sees the request.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

__all__ = ["HostOriginGuard", "allowed_hosts"]

ASGIApp = Any
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def allowed_hosts(host: str, port: int) -> set[str]:
    """The ``Host`` values a server bound to ``host``:``port`` answers: the address itself and,
    for loopback or all-interfaces binds, the loopback names."""
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    names = {shown}
    if shown in _LOOPBACK_NAMES or host in ("0.0.0.0", "::"):
        names.update(_LOOPBACK_NAMES)
    return {f"{name}:{port}" for name in names} | ({*names} if port == 80 else set())


class HostOriginGuard:
    """ASGI middleware: only requests addressed to one of ``hosts`` (``name:port``), and, when
    they carry an ``Origin``, sent by a page of one of those hosts, reach ``app``."""

    def __init__(self, app: ASGIApp, *, hosts: Iterable[str]) -> None:
        self.app = app
        self.hosts = {h.lower() for h in hosts}
        self.origins = {f"http://{h}" for h in self.hosts} | {f"https://{h}" for h in self.hosts}

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "").lower()
        origin = headers.get("origin")
        if host not in self.hosts:
            problem = (
                f"Host {host or '(none)'!r} is not served here; open the UI at"
                f" http://{sorted(self.hosts)[0]}/ (requests for other host names are refused"
                " against DNS rebinding)."
            )
        elif origin is not None and origin.lower() not in self.origins:
            problem = (
                f"Origin {origin!r} may not use this server: only pages it serves may"
                " (cross-site requests are refused)."
            )
        else:
            await self.app(scope, receive, send)
            return
        await _refuse(scope, receive, send, problem)


async def _refuse(scope: dict[str, Any], receive: Any, send: Any, problem: str) -> None:
    if scope["type"] == "websocket":
        await send({"type": "websocket.close", "code": 1008, "reason": problem[:120]})
        return
    body = json.dumps({"detail": problem}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 403,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
