"""Host and Origin checks for the web UI's server: DNS-rebinding and CSRF protection.

The UI can make the server run agents and reload code, so a page from another site must not
reach it. ``HostOriginGuard`` applies the server's ``HostPolicy`` (the check ``yadk serve``
applies too) and refuses with 403 before the app sees the request.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from yadk.serve._hosts import HostPolicy, allowed_hosts

__all__ = ["HostOriginGuard", "allowed_hosts"]

ASGIApp = Any


class HostOriginGuard:
    """ASGI middleware: only requests addressed to one of ``hosts`` (``name:port``), and, when
    they carry an ``Origin``, sent by a page of one of those hosts, reach ``app``."""

    def __init__(self, app: ASGIApp, *, hosts: Iterable[str]) -> None:
        self.app = app
        names = sorted(h.lower() for h in hosts)
        self.policy = HostPolicy(names, host_fix=f"open the UI at http://{names[0]}/")

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        host, origin = "", None
        for name, value in scope["headers"]:
            if name == b"host":
                host = value.decode("latin-1")
            elif name == b"origin":
                origin = value.decode("latin-1")
        problem = self.policy.refusal(host, origin)
        if problem is None:
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
