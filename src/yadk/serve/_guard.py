"""The ASGI layer in front of every route: bearer token, request size limit, access log.

Pure ASGI (no per-request objects beyond what is needed) so that it costs microseconds.

- Token: with ``token`` set, every route but ``/health`` (and CORS preflights) requires
  ``Authorization: Bearer TOKEN``; compared in constant time.
- Size: a body over ``max_body`` bytes gets 413, whether announced by ``Content-Length`` or
  streamed; the body is read (up to the limit) before the route sees it.
- Access log: one line per request: client, method, path, status, milliseconds.
- Crashes: an exception no route handled is logged with its traceback and answered with 500
  and ``{"detail": ...}``.
"""

from __future__ import annotations

import hmac
import logging
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from yadk.serve._json import dumps

__all__ = ["MAX_BODY", "Guard"]

MAX_BODY = 10 * 1024 * 1024
OPEN_PATHS = frozenset({"/health"})

access = logging.getLogger("yadk.serve.access")
logger = logging.getLogger("yadk.serve")


class Guard:
    def __init__(self, app: ASGIApp, *, token: str | None = None, max_body: int = MAX_BODY) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode() if token else None
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 0

        async def send_logged(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            refusal = self._refusal(scope)
            if refusal is not None:
                await _answer(send_logged, *refusal)
                return
            if scope["method"] in ("POST", "PUT", "PATCH"):
                body = await self._read_body(scope, receive)
                if body is None:
                    await _answer(
                        send_logged,
                        413,
                        f"Request body too large: the limit is {self.max_body} bytes.",
                    )
                    return
                receive = _replay(body, receive)
            await self.app(scope, receive, send_logged)
        except Exception as exc:
            # A bug or a store failure: logged with its traceback; the client gets JSON, never
            # a traceback (and the server goes on).
            logger.exception("%s %s failed", scope["method"], scope["path"])
            if status == 0:
                await _answer(
                    send_logged,
                    500,
                    f"Internal server error ({type(exc).__name__}); the server log has the details.",
                )
        finally:
            if access.isEnabledFor(logging.INFO):
                _log_access(scope, status, (time.perf_counter() - started) * 1000)

    def _refusal(self, scope: Scope) -> tuple[int, str, list[tuple[bytes, bytes]]] | None:
        if self.expected is None or scope["path"] in OPEN_PATHS or scope["method"] == "OPTIONS":
            return None
        given = b""
        for name, value in scope["headers"]:
            if name == b"authorization":
                given = value
                break
        if hmac.compare_digest(given, self.expected):
            return None
        detail = (
            "Missing bearer token: send 'Authorization: Bearer TOKEN' with the server's --token."
            if not given
            else "Invalid bearer token."
        )
        return 401, detail, [(b"www-authenticate", b"Bearer")]

    async def _read_body(self, scope: Scope, receive: Receive) -> bytes | None:
        """The whole body, or None once it exceeds the limit."""
        for name, value in scope["headers"]:
            if name == b"content-length":
                try:
                    if int(value) > self.max_body:
                        return None
                except ValueError:
                    pass
                break
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()  # after the body: wait for the disconnect

    return replay


async def _answer(
    send: Send, status: int, detail: str, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = dumps({"detail": detail}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _log_access(scope: Scope, status: int, ms: float) -> None:
    client: Any = scope.get("client")
    host = f"{client[0]}:{client[1]}" if client else "-"
    path = scope["path"]
    query = scope.get("query_string", b"")
    if query:
        path = f"{path}?{query.decode('latin-1')}"
    access.info(
        '%s "%s %s" %d %.1fms',
        host,
        scope["method"],
        path,
        status,
        ms,
        extra={
            "fields": {
                "client": host,
                "method": scope["method"],
                "path": path,
                "status": status,
                "duration_ms": round(ms, 1),
            }
        },
    )
