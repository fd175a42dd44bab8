"""``yadk serve``'s limit options: validated, documented in ``--help``, and in force in the
server they start (a real process on 127.0.0.1)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.serve.conftest import AGENTS
from tests.serve.live import read_until_closed
from tests.serve.test_server import YADK, Server

pytestmark = pytest.mark.subprocess


@pytest.mark.parametrize(
    ("args", "message_end"),
    [
        (["--header-timeout", "0"], "--header-timeout 0.0: expected seconds, more than 0\n"),
        (["--body-timeout", "-1"], "--body-timeout -1.0: expected seconds, more than 0\n"),
        (["--idle-timeout", "nan"], "--idle-timeout nan: expected seconds, more than 0\n"),
        (["--send-timeout", "0"], "--send-timeout 0.0: expected seconds, more than 0\n"),
        (["--max-connections", "0"], "--max-connections 0: expected 1 or more\n"),
        (["--max-concurrency", "-3"], "--max-concurrency -3: expected 1 or more\n"),
    ],
)
def test_limits_out_of_range_are_usage_errors(
    apps_dir: Path, tmp_path: Path, args: list[str], message_end: str
) -> None:
    done = subprocess.run(
        [*YADK, "serve", str(apps_dir), *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "yadk serve: error: " + message_end


def test_help_names_every_limit_and_its_default() -> None:
    done = subprocess.run(
        [*YADK, "serve", "--help"], capture_output=True, text=True, timeout=60,
        env={**os.environ, "COLUMNS": "200"},
    )  # fmt: skip
    text = " ".join(done.stdout.split())
    for option, default in [
        ("--allow-host NAME", "'*' for any"),
        ("--header-timeout S", "(default 10;"),
        ("--body-timeout S", "(default 30;"),
        ("--idle-timeout S", "(default 5)"),
        ("--send-timeout S", "(default 30)"),
        ("--max-connections N", "(default 1000;"),
        ("--max-concurrency N", "(default 200;"),
    ]:
        assert option in text, option
        assert default in text.rsplit(option, 1)[1].split(" --", 1)[0], option


def test_the_options_are_in_force_in_the_server(tmp_path: Path) -> None:
    shutil.copytree(AGENTS, tmp_path / "agents", ignore=shutil.ignore_patterns("__pycache__"))
    server = Server(
        "agents", "--db", ":memory:", "--header-timeout", "0.5", "--body-timeout", "0.5",
        cwd=tmp_path,
    )  # fmt: skip
    try:
        import socket

        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as silent:
            assert read_until_closed(silent) == b""
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as slow:
            slow.sendall(
                f"POST /run HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n".encode()
                + b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
            )
            assert read_until_closed(slow).startswith(b"HTTP/1.1 408 Request Timeout\r\n")
    finally:
        log = server.stop()
    assert "Traceback" not in log
