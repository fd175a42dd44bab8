"""The HTTP connection protocol of ``yadk serve``: uvicorn's httptools protocol, with the
timeouts and caps uvicorn does not have.

uvicorn closes a kept-alive connection that stays silent between requests, but nothing else: a
new connection that never sends, or sends its headers a byte at a time, stays open for ever, and
any number of them may be open. ``LimitedHttp`` wraps uvicorn's protocol (passing every event on)
and adds, from the app's ``Limits``:

- a connection cap: one connection over ``max_connections`` is answered 503 and closed;
- a header timeout: a request's headers must be complete ``header_timeout`` after its first
  byte (or after the connection opened), else 408 and close;
- a header size cap: more than ``max_header_bytes`` before the end of the headers gets 431;
- an idle timeout: ``idle_timeout`` after a response, a connection with no new request closes.

"Headers complete" is the app's word: the request reached it (``Connection.request_started``,
called by ``Guard``, which finds the connection in ``CURRENT``: uvicorn starts each request's
task while this protocol passes the bytes on, so the task inherits the context set here). The
body's timeout and the write timeout are enforced by ``Guard``, which sees the body and the
response.

Use it with ``uvicorn.Config(app, http="yadk.serve._connections:LimitedHttp")``; the limits come
from the lifespan state ``create_app`` sets (defaults without it).
"""

from __future__ import annotations

import asyncio
import json
from contextvars import ContextVar
from typing import Any, cast

from yadk.serve._limits import LIMITS_STATE, Limits

__all__ = ["CURRENT", "Connection", "LimitedHttp"]

CURRENT: ContextVar[Connection | None] = ContextVar("yadk_serve_connection", default=None)
"""The connection a request arrived on, in that request's task (None outside ``LimitedHttp``)."""

_OPEN = "yadk.serve.open_connections"
_END_OF_HEAD = b"\r\n\r\n"
_HEAD, _ASKED, _IDLE = "head", "asked", "idle"


class Connection:
    """What the app may tell, or do to, the connection its request arrived on."""

    def __init__(self, protocol: LimitedHttp) -> None:
        self._protocol = protocol

    def request_started(self) -> None:
        """The request's headers are complete (it reached the app): its header timer stops."""
        self._protocol.phase = _ASKED
        self._protocol.disarm()

    def response_done(self) -> None:
        """The response is sent: the connection is idle until the next request's first byte."""
        self._protocol.became_idle()

    def abort(self) -> None:
        """Drop the connection now, unsent data included (a client that stopped reading)."""
        transport = self._protocol.transport
        if transport is not None:
            transport.abort()


class _Count:
    """Open connections of one server process (shared through the lifespan state)."""

    def __init__(self) -> None:
        self.open = 0


class LimitedHttp(asyncio.Protocol):
    """uvicorn's httptools protocol with a connection cap, header and idle timeouts."""

    def __init__(
        self,
        config: Any,
        server_state: Any,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        limits = app_state.get(LIMITS_STATE)
        self.limits = limits if isinstance(limits, Limits) else Limits()
        self.count: _Count = app_state.setdefault(_OPEN, _Count())
        # Imported here: the app (Guard) imports this module under any ASGI server.
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

        self.inner = HttpToolsProtocol(
            config=config, server_state=server_state, app_state=app_state, _loop=_loop
        )
        self.loop = _loop or asyncio.get_running_loop()
        self.transport: asyncio.Transport | None = None
        self.connection = Connection(self)
        self.refused = False
        self.phase = _HEAD
        self.head_bytes = 0
        self.tail = b""
        self.timer: asyncio.TimerHandle | None = None

    # -- asyncio.Protocol ------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses, but have its methods.
        self.transport = transport = cast(asyncio.Transport, transport)
        if self.count.open >= self.limits.max_connections:
            self.refused = True
            _answer_and_close(
                transport,
                503,
                f"Too many connections: the server holds {self.limits.max_connections}"
                " (--max-connections); retry shortly.",
            )
            return
        self.count.open += 1
        self.inner.connection_made(transport)
        self.arm(self.limits.header_timeout, self.head_timed_out)

    def data_received(self, data: bytes) -> None:
        if self.refused:
            return
        if self.phase == _IDLE:
            self.phase = _HEAD
            self.head_bytes = 0
            self.tail = b""
            self.arm(self.limits.header_timeout, self.head_timed_out)
        if self.phase == _HEAD and not self.count_head(data):
            return
        token = CURRENT.set(self.connection)
        try:
            self.inner.data_received(data)
        finally:
            CURRENT.reset(token)

    def eof_received(self) -> bool | None:
        if not self.refused:
            self.inner.eof_received()
        return None  # close the transport (as uvicorn's protocol does)

    def connection_lost(self, exc: Exception | None) -> None:
        self.disarm()
        if self.refused:
            return
        self.count.open -= 1
        self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        if not self.refused:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if not self.refused:
            self.inner.resume_writing()

    # -- the limits ------------------------------------------------------------------------

    def count_head(self, data: bytes) -> bool:
        """Count the bytes of the request's head in ``data``; False (and 431) past the cap."""
        seen = self.tail + data
        # Empty lines before a request line are allowed: the head starts at its first byte.
        start = len(seen) - len(seen.lstrip(b"\r\n")) if self.head_bytes == 0 else 0
        end = seen.find(_END_OF_HEAD, start)
        size = self.head_bytes + (len(data) if end < 0 else end + 4 - len(self.tail))
        if size > self.limits.max_header_bytes:
            self.cut(
                431,
                f"Request headers too large: the limit is {self.limits.max_header_bytes} bytes.",
            )
            return False
        if end < 0:
            self.head_bytes = size
            self.tail = seen[-3:]
        else:
            self.phase = _ASKED  # until the app has it: the header timer still runs
        return True

    def became_idle(self) -> None:
        self.phase = _IDLE
        self.arm(self.limits.idle_timeout, self.idle_timed_out)

    def head_timed_out(self) -> None:
        self.timer = None
        if self.head_bytes or self.tail or self.phase == _ASKED:
            self.cut(
                408,
                f"Request headers not received within {self.limits.header_timeout:g} s;"
                " the connection is closed.",
            )
        elif self.transport is not None:
            self.transport.close()  # a connection that never said anything

    def idle_timed_out(self) -> None:
        self.timer = None
        if self.phase == _IDLE and self.transport is not None:
            self.transport.close()

    def cut(self, status: int, detail: str) -> None:
        self.disarm()
        self.phase = _ASKED
        if self.transport is not None and not self.transport.is_closing():
            _answer_and_close(self.transport, status, detail)

    def arm(self, delay: float, callback: Any) -> None:
        self.disarm()
        self.timer = self.loop.call_later(delay, callback)

    def disarm(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


_REASONS = {
    408: "Request Timeout",
    431: "Request Header Fields Too Large",
    503: "Service Unavailable",
}


def _answer_and_close(transport: asyncio.Transport, status: int, detail: str) -> None:
    """Answer outside any request (none reached the app) and close the connection."""
    body = json.dumps({"detail": detail}).encode()
    head = (
        f"HTTP/1.1 {status} {_REASONS[status]}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    ).encode()
    transport.write(head + body)
    transport.close()
