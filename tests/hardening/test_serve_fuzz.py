"""Fuzzing a real ``yadk serve`` (uvicorn with yadk's protocol and limits, a SQLite store, on
127.0.0.1) over raw sockets: malformed request lines, hostile ``Host`` headers, random bodies
(NUL, lone surrogates, odd JSON) to every route, and slow clients left hanging meanwhile.

No answer is a 5xx or carries a traceback, nothing is logged as a crash, every slow client is
cut off, and the server answers ``/health`` and runs a turn afterwards. Derandomized and
bounded (a few hundred requests, seconds); ``YADK_FUZZ_EXAMPLES`` raises the budget.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from tests.serve.live import Live, http, live_server, read_until_closed

from yadk.serve._limits import Limits
from yadk.sessions import SqliteSessionService

pytestmark = pytest.mark.slow

AGENTS = Path(__file__).parents[1] / "serve" / "agents"
EXAMPLES = int(os.environ.get("YADK_FUZZ_EXAMPLES", "150"))
S = "/apps/echo/users/u1/sessions"

ROUTES = [
    ("GET", "/health"),
    ("GET", "/list-apps"),
    ("GET", "/list-apps?detailed=true"),
    ("GET", "/version"),
    ("POST", "/run"),
    ("POST", "/run_sse"),
    ("GET", "/apps/{app}/users/{user}/sessions"),
    ("POST", "/apps/{app}/users/{user}/sessions"),
    ("GET", "/apps/{app}/users/{user}/sessions/{session}"),
    ("POST", "/apps/{app}/users/{user}/sessions/{session}"),
    ("PATCH", "/apps/{app}/users/{user}/sessions/{session}"),
    ("DELETE", "/apps/{app}/users/{user}/sessions/{session}"),
    ("GET", "/apps/{app}/users/{user}/sessions/{session}/artifacts"),
    ("POST", "/apps/{app}/users/{user}/sessions/{session}/artifacts"),
    ("GET", "/apps/{app}/users/{user}/sessions/{session}/artifacts/{name}"),
    ("DELETE", "/apps/{app}/users/{user}/sessions/{session}/artifacts/{name}"),
]

hostile_text = st.one_of(
    st.sampled_from(
        ["echo", "u1", "s1", "..", "%2e%2e", "a%00b", "%0d%0aX: y", "%ff%fe", "\u00e9", "x" * 300]
    ),
    st.text(min_size=1, max_size=20),
)
json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    st.sampled_from(["\u0000", "\ud800", "\udfff", "a\ud83d\ude00", "\\u0000"]),
)
keys = st.one_of(st.text(max_size=6), st.sampled_from(["\ud800", "k\u0000", "\udcff"]))
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(keys, inner, max_size=3)),
    max_leaves=10,
)
ids = st.one_of(st.just("s1"), hostile_text)
run_bodies = st.fixed_dictionaries(
    {
        "appName": st.sampled_from(["echo", "echo", "nope"]),
        "userId": st.just("u1") | hostile_text,
        "sessionId": ids,
    },
    optional={
        "newMessage": st.fixed_dictionaries(
            {"role": st.just("user"), "parts": st.lists(st.fixed_dictionaries({"text": json_scalars}), max_size=2)}
        ),
        "stateDelta": st.dictionaries(keys, json_values, max_size=3),
        "streaming": st.booleans(),
    },
)  # fmt: skip
session_bodies = st.fixed_dictionaries(
    {},
    optional={
        "sessionId": ids,
        "state": st.dictionaries(keys, json_values, max_size=3),
        "stateDelta": st.dictionaries(keys, json_values, max_size=3),
        "filename": json_scalars,
        "artifact": st.fixed_dictionaries({"text": json_scalars}),
    },
)


def _encode(value: Any) -> bytes:
    # json.dumps escapes lone surrogates and NUL as \\uXXXX: what a hostile client sends.
    return json.dumps(value).encode("ascii")


RUN = {"appName": "echo", "userId": "u1", "sessionId": "s1"}


def _post(path: str, body: Any, *, method: str = "POST") -> bytes:
    data = _encode(body)
    return (
        f"{method} {path} HTTP/1.1\r\nHost: {{served}}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n"
    ).encode() + data


@st.composite
def route_requests(draw: st.DrawFn) -> bytes:
    method, path = draw(st.sampled_from(ROUTES))
    for name in ("app", "user", "session", "name"):
        usual = {"app": "echo", "user": "u1", "session": "s1", "name": "a.txt"}[name]
        text = usual if draw(st.integers(0, 3)) else ""
        text = text or quote(draw(hostile_text), safe="%")
        path = path.replace("{" + name + "}", text)
    body = b""
    if method in ("POST", "PATCH"):
        kind = draw(st.integers(0, 3))
        if kind == 0:
            body = draw(st.binary(max_size=80))
        elif kind == 1:
            body = _encode(draw(json_values))
        else:
            body = _encode(draw(run_bodies if path.startswith("/run") else session_bodies))
    host = draw(st.sampled_from(["{served}"] * 8 + ["evil.example", "", "{served}x", "[::1]:1"]))
    lines = [f"{method} {path} HTTP/1.1".encode("utf-8", "surrogatepass")]
    if host != "" or draw(st.booleans()):
        lines.append(b"Host: " + host.encode())
    lines += [b"Content-Type: application/json", b"Content-Length: %d" % len(body)]
    if draw(st.booleans()):
        lines.append(b"Origin: " + draw(st.sampled_from([b"http://evil.example", b"null"])))
    lines.append(b"Connection: close")
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


malformed = st.one_of(
    st.binary(min_size=1, max_size=120),
    st.builds(
        lambda method, target, version, extra: method + b" " + target + b" " + version + extra,
        st.sampled_from([b"GET", b"POST", b"G\x00T", b"", b"BREW", b"get", b"GET GET"]),
        st.one_of(st.binary(max_size=40), st.sampled_from([b"/", b"/health", b"*", b"//x", b"/%"])),
        st.sampled_from([b"HTTP/1.1", b"HTTP/1.0", b"HTTP/9.9", b"HTTP/1.1\n", b"", b"http/1.1"]),
        st.one_of(
            st.just(b"\r\n\r\n"),
            st.just(b"\r\nHost: {served}\r\nContent-Length: -1\r\n\r\n"),
            st.just(b"\r\nHost: {served}\r\nContent-Length: 99999999999999999999\r\n\r\n"),
            st.just(b"\r\nHost: {served}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
            st.just(b"\r\nHost: {served}\r\nHost: evil.example\r\n\r\n"),
            st.just(b"\r\nHost: " + b"h" * 70000 + b"\r\n\r\n"),
            st.binary(max_size=60).map(lambda b: b"\r\n" + b + b"\r\n\r\n"),
        ),
    ),
)


class Crashes(logging.Handler):
    """Every record at ERROR or above (a crash the server logged)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def crashes() -> Iterator[Crashes]:
    handler = Crashes()
    loggers = [logging.getLogger(n) for n in ("yadk.serve", "uvicorn.error", "asyncio")]
    for logger in loggers:
        logger.addHandler(handler)
    yield handler
    for logger in loggers:
        logger.removeHandler(handler)


def _exchange(live: Live, raw: bytes) -> bytes:
    with live.connect() as sock:
        try:
            sock.sendall(raw.replace(b"{served}", f"127.0.0.1:{live.port}".encode()))
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused before it had all (a head over the cap): the answer is still read
        return read_until_closed(sock)


def _check(answer: bytes) -> None:
    if not answer:
        return  # closed without a word (garbage the parser gave up on)
    status_line = answer.split(b"\r\n", 1)[0]
    assert status_line.startswith(b"HTTP/1.1 "), answer[:200]
    status = int(status_line.split()[1])
    assert status < 500 or status == 503, answer[:300]
    assert b"Traceback" not in answer and b'File "' not in answer, answer[:300]
    if status == 503:
        assert b"Too many connections" in answer or b"is not available" in answer, answer[:300]


def test_hostile_http_leaves_the_server_healthy(tmp_path: Path, crashes: Crashes) -> None:
    agents = tmp_path / "agents"
    shutil.copytree(AGENTS, agents, ignore=shutil.ignore_patterns("__pycache__"))
    store = SqliteSessionService(tmp_path / "s.db")
    limits = Limits(header_timeout=0.5, body_timeout=0.5, idle_timeout=0.5, send_timeout=2)
    with live_server(
        agents, session_service=store, limits=limits, busy_wait=0.2, check_hosts=True
    ) as live:
        with http(live) as client:
            client.post(S, json={"sessionId": "s1"}, headers={"Host": f"127.0.0.1:{live.port}"})
        # Slow clients, left hanging while the fuzzing goes on: each must be cut off.
        hanging = [live.connect() for _ in range(4)]
        hanging[1].sendall(b"GET /health HTTP/1.1\r\nHost: x")
        hanging[2].sendall(b"POST /run HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % live.port)
        hanging[3].sendall(
            b"POST /run HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Length: 50\r\n\r\n{" % live.port
        )

        budget = settings(
            max_examples=EXAMPLES,
            deadline=None,
            derandomize=True,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )

        @budget
        @given(route_requests())
        @example(_post("/run", {**RUN, "newMessage": {"parts": [{"text": "\udcff"}]}}))
        @example(_post("/run", {**RUN, "stateDelta": {"\ud800": 1}}))
        @example(_post(f"{S}/s1", {"stateDelta": {"k": "a\u0000b"}}, method="PATCH"))
        @example(_post(S, {"sessionId": "a\u0000b"}))
        @example(_post(f"{S}/a%00b", {}))
        def routes(raw: bytes) -> None:
            _check(_exchange(live, raw))

        @budget
        @given(malformed)
        def garbage(raw: bytes) -> None:
            _check(_exchange(live, raw))

        routes()
        garbage()
        for sock in hanging:
            with sock:
                answer = read_until_closed(sock)
            assert answer == b"" or answer.startswith(b"HTTP/1.1 408 Request Timeout"), answer
        with http(live) as client:
            served = {"Host": f"127.0.0.1:{live.port}"}
            assert client.get("/health").json() == {"status": "ok"}
            made = client.post(S, headers=served, json={"sessionId": "after"})
            assert made.status_code == 200, made.text
            turn = client.post(
                "/run",
                headers=served,
                json={
                    **RUN,
                    "sessionId": "after",
                    "newMessage": {"role": "user", "parts": [{"text": "still?"}]},
                },
            )
            assert turn.status_code == 200, turn.text
            said = [
                p.get("text") for e in turn.json() for p in e.get("content", {}).get("parts", [])
            ]
            assert said == ["echo: still?"], turn.text
    store.close_now()
    assert [r.getMessage() for r in crashes.records] == []
