"""The ASGI layer in front of every route: Host/Origin, bearer token, request size and time
limits, concurrency cap, access log.

Pure ASGI (no per-request objects beyond what is needed) so that it costs microseconds.

- Host and Origin: with a ``HostPolicy``, a request for another host name (DNS rebinding) or
  from a page of another site gets 403 (``/health`` answers whatever the host, for probes).
- Token: with ``token`` set, every route but ``/health`` (and CORS preflights) requires
  ``Authorization: Bearer TOKEN`` (the scheme in any case, RFC 7235); compared in constant time.
- Size: a body over ``max_body`` bytes gets 413, whether announced by ``Content-Length`` or
  streamed; the body is read (up to the limit) before the route sees it.
- Time: the body must arrive within ``limits.body_timeout`` (else 408 and the connection
  closes); a response the client does not read for ``limits.send_timeout`` drops the
  connection (the route sees a disconnect). Header and idle timeouts are the connection
  protocol's (``LimitedHttp``).
- Concurrency: past ``limits.max_concurrency`` requests in progress, 503.
- Access log: one line per request: client, method, path, status, milliseconds; the path with
  control characters escaped, so that a request cannot write lines of its own into the log.
- Crashes: an exception no route handled is logged with its traceback and answered with 500
  and ``{"detail": ...}``.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import re
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from yadk.serve._connections import CURRENT
from yadk.serve._hosts import HostPolicy
from yadk.serve._json import dumps
from yadk.serve._limits import Limits

__all__ = ["MAX_BODY", "ClientStalled", "Guard", "printable"]

MAX_BODY = 10 * 1024 * 1024
OPEN_PATHS = frozenset({"/health"})

access = logging.getLogger("yadk.serve.access")
logger = logging.getLogger("yadk.serve")

# Every C0 and C1 control character, DEL, the Unicode line and paragraph separators, lone
# surrogates (which no log stream can encode) and the backslash (so that an escape in the log
# cannot be mistaken for one the client sent).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\\\\\u2028\u2029\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return "\\\\" if code == 0x5C else f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` safe for one log line: control characters as ``\\xNN`` escapes."""
    return _UNSAFE.sub(_escape, text)


# A JSON string escape: an escaped backslash is one match, so ``\\\\u0000`` (a backslash,
# then the text u0000) is not taken for ``\\u0000``.
_JSON_ESCAPE = re.compile(rb"\\(?:u([0-9a-fA-F]{4})|.)", re.DOTALL)


def unstorable(body: bytes) -> str | None:
    """Why a JSON body holds text no session store keeps (a NUL character, which PostgreSQL
    refuses, or a lone surrogate, which is not Unicode and cannot be encoded), else None."""
    if b"\\u" not in body:  # raw NUL or surrogates cannot be valid JSON: the parser says so
        return None
    pending = -1  # where a high surrogate's escape ended, waiting for its low half
    for match in _JSON_ESCAPE.finditer(body):
        hex_digits = match.group(1)
        if pending >= 0 and (
            hex_digits is None
            or match.start() != pending
            or not 0xDC00 <= int(hex_digits, 16) <= 0xDFFF
        ):
            return _lone(body, pending - 6)
        if hex_digits is None:
            continue
        code = int(hex_digits, 16)
        if pending >= 0:
            pending = -1
        elif code == 0:
            return (
                f"The body holds \\u0000 (a NUL character) at byte {match.start()}, which no"
                " session store keeps: remove it."
            )
        elif 0xD800 <= code <= 0xDBFF:
            pending = match.end()
        elif 0xDC00 <= code <= 0xDFFF:
            return _lone(body, match.start())
    return _lone(body, pending - 6) if pending >= 0 else None


def _lone(body: bytes, at: int) -> str:
    escape = body[at : at + 6].decode("ascii").lower()
    return (
        f"The body holds {escape} at byte {at}, a lone surrogate (half of a UTF-16 pair), which"
        " is not Unicode text: send the whole pair, or the character itself in UTF-8."
    )


def _unstorable_target(scope: Scope) -> tuple[int, str, list[tuple[bytes, bytes]]] | None:
    if "\x00" in scope["path"] or b"%00" in scope.get("query_string", b""):
        detail = "The URL holds a NUL character (%00), which no session store keeps: remove it."
        return 400, detail, []
    return None


class ClientStalled(OSError):
    """The client read nothing of the response for the send timeout; it was disconnected."""


class _BodyTimeout(Exception):
    pass


class Guard:
    def __init__(
        self,
        app: ASGIApp,
        *,
        token: str | None = None,
        max_body: int = MAX_BODY,
        hosts: HostPolicy | None = None,
        limits: Limits | None = None,
    ) -> None:
        self.app = app
        self.token = token.encode() if token else None
        self.max_body = max_body
        self.hosts = hosts
        self.limits = limits or Limits()
        self.in_progress = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 0
        connection = CURRENT.get()
        if connection is not None:
            connection.request_started()
        send_timeout = self.limits.send_timeout

        async def send_logged(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            try:
                async with asyncio.timeout(send_timeout):
                    await send(message)
            except TimeoutError:
                if connection is not None:
                    connection.abort()
                raise ClientStalled(
                    f"the client read nothing for {send_timeout:g} s; disconnected"
                ) from None
            if connection is not None and message["type"] == "http.response.body":
                if not message.get("more_body", False):
                    connection.response_done()

        counted = scope["path"] not in OPEN_PATHS
        try:
            refusal = self._refusal(scope)
            if refusal is not None:
                await _answer(send_logged, *refusal)
                return
            if counted:
                if self.in_progress >= self.limits.max_concurrency:
                    await _answer(
                        send_logged,
                        503,
                        f"The server is busy: {self.limits.max_concurrency} requests are in"
                        " progress (--max-concurrency); retry shortly.",
                        [(b"retry-after", b"1")],
                    )
                    return
                self.in_progress += 1
            try:
                if scope["method"] in ("POST", "PUT", "PATCH"):
                    try:
                        body = await self._read_body(scope, receive)
                    except _BodyTimeout:
                        await _answer(
                            send_logged,
                            408,
                            f"Request body not received within {self.limits.body_timeout:g} s;"
                            " the connection is closed.",
                            [(b"connection", b"close")],
                        )
                        return
                    if body is None:
                        await _answer(
                            send_logged,
                            413,
                            f"Request body too large: the limit is {self.max_body} bytes.",
                        )
                        return
                    problem = unstorable(body)
                    if problem is not None:
                        await _answer(send_logged, 400, problem)
                        return
                    receive = _replay(body, receive)
                await self.app(scope, receive, send_logged)
            finally:
                if counted:
                    self.in_progress -= 1
        except ClientStalled as exc:
            logger.warning("%s %s: %s", scope["method"], printable(scope["path"]), exc)
        except Exception as exc:
            # A bug or a store failure: logged with its traceback; the client gets JSON, never
            # a traceback (and the server goes on).
            logger.exception("%s %s failed", scope["method"], printable(scope["path"]))
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
        if scope["path"] in OPEN_PATHS:
            return None
        if self.hosts is not None:
            host, origin = "", None
            for name, value in scope["headers"]:
                if name == b"host":
                    host = value.decode("latin-1")
                elif name == b"origin":
                    origin = value.decode("latin-1")
            refused = self.hosts.refusal(host, origin)
            if refused is not None:
                return 403, refused, []
        if self.token is None or scope["method"] == "OPTIONS":
            return _unstorable_target(scope)
        given = b""
        for name, value in scope["headers"]:
            if name == b"authorization":
                given = value
                break
        scheme, _, credentials = given.strip().partition(b" ")
        if scheme.lower() == b"bearer" and hmac.compare_digest(credentials.strip(), self.token):
            return _unstorable_target(scope)
        detail = (
            "Missing bearer token: send 'Authorization: Bearer TOKEN' with the server's --token."
            if not given
            else "Invalid bearer token."
        )
        return 401, detail, [(b"www-authenticate", b"Bearer")]

    async def _read_body(self, scope: Scope, receive: Receive) -> bytes | None:
        """The whole body, or None once it exceeds the limit (``_BodyTimeout`` when it does not
        arrive in time)."""
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
        try:
            async with asyncio.timeout(self.limits.body_timeout):
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
        except TimeoutError:
            raise _BodyTimeout from None
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
    path = printable(path)
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
