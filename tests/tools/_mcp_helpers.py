"""Starting the test MCP server (stdio or HTTP on 127.0.0.1) and checking its processes."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

SERVER = Path(__file__).with_name("mcp_server.py")


def alive(pid: int) -> bool:
    """Whether ``pid`` is a running (not zombie) process."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status


def wait_dead(pid: int, seconds: float = 15.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return not alive(pid)


def pids(folder: Path) -> list[int]:
    return sorted(int(p.name) for p in folder.iterdir())


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def http_server(
    transport: str = "http", *, port: int | None = None, require_authorization: str | None = None
) -> Iterator[str]:
    """The test server on 127.0.0.1 in a subprocess; yields its URL and stops it afterwards.
    ``require_authorization``: the one ``Authorization`` value it accepts (else 401)."""
    port = port or free_port()
    env = {**os.environ}
    if require_authorization is not None:
        env["MCP_REQUIRE_AUTHORIZATION"] = require_authorization
    process = subprocess.Popen(
        [sys.executable, str(SERVER), transport, str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"test MCP server did not start (exit {process.poll()})")
            time.sleep(0.05)
        path = "/mcp" if transport == "http" else "/sse"
        yield f"http://127.0.0.1:{port}{path}"
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
