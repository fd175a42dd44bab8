"""The access log cannot be forged: newlines, NUL and other control characters in a request's
path are written escaped, on the request's one line."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.serve.live import live_server, read_until_closed

from yadk.serve._guard import printable
from yadk.serve._logs import configure_logging

FORGED = "2026-01-01 00:00:00,000 ERROR yadk.serve: forged"


@pytest.fixture
def log_stream() -> Iterator[io.StringIO]:
    stream = io.StringIO()
    names = ("yadk.serve", "yadk.runner")
    saved = {n: (logging.getLogger(n).handlers, logging.getLogger(n).propagate) for n in names}
    configure_logging("plain", stream=stream)
    try:
        yield stream
    finally:
        for name, (handlers, propagate) in saved.items():
            logging.getLogger(name).handlers = handlers
            logging.getLogger(name).propagate = propagate


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("/list-apps", "/list-apps"),
        ("/a\nb", "/a\\x0ab"),
        ("/a\r\nb", "/a\\x0d\\x0ab"),
        ("/nul\x00", "/nul\\x00"),
        ("/esc\x1b[31m", "/esc\\x1b[31m"),
        ("/del\x7f\x85", "/del\\x7f\\x85"),
        ("/sep\u2028\u2029", "/sep\\u2028\\u2029"),
        ("/lone\udcff", "/lone\\udcff"),
        ("/back\\x0a", "/back\\\\x0a"),
        ("/café", "/café"),
    ],
)
def test_printable(text: str, shown: str) -> None:
    assert printable(text) == shown


def test_a_path_with_newlines_and_nul_stays_on_its_line(
    apps_dir: Path, log_stream: io.StringIO
) -> None:
    path = "/x%0A" + FORGED.replace(" ", "%20") + "%00%0D"
    with live_server(apps_dir) as live, live.connect() as sock:
        sock.sendall(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode()
        )
        assert read_until_closed(sock).startswith(b"HTTP/1.1 400 Bad Request")
    lines = log_stream.getvalue().splitlines()
    access = [line for line in lines if "yadk.serve.access" in line]
    assert len(access) == 1, lines
    assert not any(line.startswith(FORGED) for line in lines)
    assert f'"GET /x\\x0a{FORGED}\\x00\\x0d" 400 ' in access[0]


def test_the_json_log_holds_the_escaped_path(apps_dir: Path) -> None:
    stream = io.StringIO()
    logger = logging.getLogger("yadk.serve.access")
    handler = logging.StreamHandler(stream)
    from yadk.serve._logs import JsonFormatter

    handler.setFormatter(JsonFormatter())
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        with live_server(apps_dir) as live, live.connect() as sock:
            sock.sendall(b"GET /a%0Ab HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            read_until_closed(sock)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(logging.NOTSET)
    (record,) = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert record["path"] == "/a\\x0ab"
