"""A real HTTP server on loopback that records requests and plays canned replies.

Replies can be slow (``delay``), streamed in chunks (``chunks`` with ``interval``: SSE, a drip,
a huge body), or cut (``reset`` closes the connection without answering). The server notes every
client that went away while it waited or wrote (``disconnects``), so tests can see cancellation.

Every test here runs with real model requests forbidden and the provider variables cleared, so
nothing can reach the public network; the ``server`` fixture allows requests (to loopback only).
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

import yadk.models
from yadk.models import override_allow_model_requests

_PROVIDER_VARS = (
    "GOOGLE_API_KEY",
    "GEMINI_API_KEY",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "YADK_GEMINI_BASE_URL",
    "GOOGLE_GEMINI_BASE_URL",
    "GOOGLE_GENAI_USE_VERTEXAI",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
    "GOOGLE_VERTEX_BASE_URL",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "YADK_MODEL_TIMEOUT",
    "YADK_MODEL_RETRIES",
    "YADK_MODEL_DEADLINE",
    "YADK_MODEL_MAX_RESPONSE_BYTES",
    "YADK_ALLOW_MODEL_REQUESTS",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "no_proxy",
)


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    client_port: int


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    raw: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    drop_connection: bool = False
    chunks: Iterable[bytes] | None = None
    interval: float = 0.0
    reset: bool = False
    content_type: str = "application/json"
    together: threading.Barrier | None = None


def sse(*events: Any, done: bool = False) -> list[bytes]:
    """Server-sent events, one chunk each: ``data: <json>`` and a blank line."""
    chunks = [f"data: {json.dumps(e)}\n\n".encode() for e in events]
    if done:
        chunks.append(b"data: [DONE]\n\n")
    return chunks


class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # 64 clients connect at once in the concurrency tests
    daemon_threads = True


class FakeServer:
    """Replies are served in the order queued; with none queued the server answers 500."""

    def __init__(self, protocol: str = "HTTP/1.0") -> None:
        self.requests: list[Recorded] = []
        self.replies: deque[Reply] = deque()
        self.release = threading.Event()
        self.disconnects = 0
        self.disconnected = threading.Event()
        self.bytes_sent = 0
        handler = _handler(self)
        handler.protocol_version = protocol
        self.httpd = _Server(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def reply(
        self,
        body: Any = None,
        *,
        status: int = 200,
        raw: bytes | None = None,
        headers: dict[str, str] | None = None,
        delay: float = 0.0,
        drop_connection: bool = False,
        chunks: Iterable[bytes] | None = None,
        interval: float = 0.0,
        reset: bool = False,
        content_type: str | None = None,
        together: threading.Barrier | None = None,
    ) -> None:
        """Queue a reply; ``drop_connection`` closes a kept-alive connection without saying so;
        ``chunks`` are written one by one, ``interval`` seconds apart, without a length;
        ``together``: answered only once every party of the barrier is waiting on it."""
        if content_type is None:
            content_type = "text/event-stream" if chunks is not None else "application/json"
        self.replies.append(
            Reply(
                status,
                body,
                raw,
                dict(headers or {}),
                delay,
                drop_connection,
                chunks,
                interval,
                reset,
                content_type,
                together,
            )
        )

    def note_disconnect(self) -> None:
        self.disconnects += 1
        self.disconnected.set()

    @property
    def bodies(self) -> list[Any]:
        return [r.body for r in self.requests]


def _handler(server: FakeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            data = self.rfile.read(length)
            try:
                body: Any = json.loads(data)
            except ValueError:
                body = data
            server.requests.append(
                Recorded(
                    "POST",
                    self.path,
                    {k.lower(): v for k, v in self.headers.items()},
                    body,
                    self.client_address[1],
                )
            )
            reply = server.replies.popleft() if server.replies else Reply(500, {"error": "none"})
            if reply.together is not None:
                reply.together.wait()
            if reply.reset:
                self.connection.setsockopt(
                    socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00"
                )
                self.close_connection = True
                return
            if reply.delay and not self._wait(reply.delay):
                server.note_disconnect()
                self.close_connection = True
                return
            if reply.chunks is not None:
                self._stream(reply)
                return
            payload = reply.raw if reply.raw is not None else json.dumps(reply.body).encode()
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(payload)
            except OSError:  # the client gave up (timeout tests)
                pass
            if reply.drop_connection:
                self.close_connection = True

        def _wait(self, seconds: float) -> bool:
            """Sleep ``seconds``; False as soon as the client closes its end."""
            end = time.monotonic() + seconds
            while not server.release.is_set():
                left = end - time.monotonic()
                if left <= 0:
                    return True
                readable, _, _ = select.select([self.connection], [], [], min(left, 0.02))
                if readable and not self.connection.recv(1, socket.MSG_PEEK):
                    return False
            return True

        def _stream(self, reply: Reply) -> None:
            self.close_connection = True
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.flush()
                for chunk in reply.chunks or ():
                    if reply.interval and not self._wait(reply.interval):
                        server.note_disconnect()
                        return
                    self.wfile.write(chunk)
                    self.wfile.flush()
                    server.bytes_sent += len(chunk)
            except OSError:  # the client went away mid-stream
                server.note_disconnect()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in _PROVIDER_VARS:
        monkeypatch.delenv(name, raising=False)
    with override_allow_model_requests(False):
        yield


@pytest.fixture
def server() -> Iterator[FakeServer]:
    yield from _serve(FakeServer())


@pytest.fixture
def keepalive_server() -> Iterator[FakeServer]:
    yield from _serve(FakeServer("HTTP/1.1"))


def _serve(fake: FakeServer) -> Iterator[FakeServer]:
    thread = threading.Thread(target=fake.httpd.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        with override_allow_model_requests(True):
            yield fake
    finally:
        fake.release.set()
        fake.httpd.shutdown()
        fake.httpd.server_close()
        thread.join()
    assert yadk.models.ALLOW_MODEL_REQUESTS is False  # the override was undone
