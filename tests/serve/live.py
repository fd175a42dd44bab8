"""A real uvicorn server on 127.0.0.1, in a thread of the test process, configured as
``yadk serve`` configures it (the ``LimitedHttp`` protocol), with limits the test chooses; and a
raw socket client to say exactly what a hostile client says."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from yadk.artifacts import InMemoryArtifactService
from yadk.serve import create_app
from yadk.serve._hosts import allowed_hosts
from yadk.serve._limits import Limits
from yadk.sessions import InMemorySessionService

BOUND = 20.0  # seconds: a wait for the server that takes longer is a failure


class Live:
    def __init__(self, server: uvicorn.Server, port: int) -> None:
        self.server = server
        self.port = port
        self.url = f"http://127.0.0.1:{port}"

    def connect(self, *, rcvbuf: int | None = None) -> socket.socket:
        sock = socket.socket()
        if rcvbuf is not None:  # before connecting: the window the server may fill
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.settimeout(BOUND)
        sock.connect(("127.0.0.1", self.port))
        return sock


def read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (``BOUND`` at most)."""
    chunks = []
    deadline = time.monotonic() + BOUND
    while True:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def wait_for(check: Any, *, what: str) -> Any:
    """Poll ``check()`` until it returns something true, for ``BOUND`` seconds at most."""
    deadline = time.monotonic() + BOUND
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {BOUND:g} s")
        time.sleep(0.02)


@contextmanager
def live_server(
    agents: Path, *, limits: Limits | None = None, check_hosts: bool = False, **options: Any
) -> Iterator[Live]:
    """The app of ``create_app(agents, **options)`` served; with ``check_hosts``, answering
    only the ``Host`` names ``yadk serve`` answers on loopback."""
    options.setdefault("session_service", InMemorySessionService())
    options.setdefault("artifact_service", InMemoryArtifactService())
    limits = limits or Limits()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = int(listener.getsockname()[1])
    if check_hosts:
        options["hosts"] = allowed_hosts("127.0.0.1", port)
    app = create_app(agents, limits=limits, **options)
    config = uvicorn.Config(
        app,
        log_level="warning",
        http="yadk.serve._connections:LimitedHttp",
        ws="none",
        timeout_keep_alive=60,  # the protocol's idle timeout acts first
        timeout_graceful_shutdown=1,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    try:
        wait_for(lambda: server.started, what="the server starting")
        yield Live(server, port)
    finally:
        server.should_exit = True
        thread.join(timeout=BOUND)
        listener.close()


def http(live: Live) -> httpx.Client:
    return httpx.Client(base_url=live.url, timeout=BOUND)
