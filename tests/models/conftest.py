"""A real HTTP server on loopback that records requests and plays canned replies.

Every test here runs with real model requests forbidden and the provider variables cleared, so
nothing can reach the public network; the ``server`` fixture allows requests (to loopback only).
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

import yadk.models
from yadk.models import _transport, override_allow_model_requests

_PROVIDER_VARS = (
    "GOOGLE_API_KEY",
    "GEMINI_API_KEY",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "YADK_GEMINI_BASE_URL",
    "YADK_MODEL_TIMEOUT",
    "YADK_MODEL_RETRIES",
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


class FakeServer:
    """Replies are served in the order queued; with none queued the server answers 500."""

    def __init__(self, protocol: str = "HTTP/1.0") -> None:
        self.requests: list[Recorded] = []
        self.replies: deque[Reply] = deque()
        self.release = threading.Event()
        handler = _handler(self)
        handler.protocol_version = protocol
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
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
    ) -> None:
        """Queue a reply; ``drop_connection`` closes a kept-alive connection without saying so."""
        self.replies.append(Reply(status, body, raw, dict(headers or {}), delay, drop_connection))

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
            if reply.delay:
                server.release.wait(reply.delay)
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
        _transport._pool.close_all()  # lets kept-alive handler threads finish
        fake.release.set()
        fake.httpd.shutdown()
        fake.httpd.server_close()
        thread.join()
    assert yadk.models.ALLOW_MODEL_REQUESTS is False  # the override was undone
