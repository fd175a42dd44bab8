"""Slow, silent and too many clients against a real server on 127.0.0.1 (``yadk serve``'s
protocol and limits, small timeouts): each is cut off after its timeout, with a clear answer
where one can still be given, and the server keeps serving the others."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from tests.serve.conftest import message
from tests.serve.live import Live, http, live_server, read_until_closed, wait_for

from yadk.serve._limits import Limits

S = "/apps/echo/users/u1/sessions"
SHORT = 0.3  # seconds: the timeout under test


def _status_and_detail(answer: bytes) -> tuple[str, str]:
    head, _, body = answer.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0].decode(), json.loads(body)["detail"]


def test_a_connection_that_never_speaks_is_closed(apps_dir: Path) -> None:
    with live_server(apps_dir, limits=Limits(header_timeout=SHORT)) as live:
        with live.connect() as silent:
            assert read_until_closed(silent) == b""
        with http(live) as client:
            assert client.get("/health").status_code == 200


def test_headers_sent_a_byte_at_a_time_get_408(apps_dir: Path) -> None:
    with live_server(apps_dir, limits=Limits(header_timeout=SHORT)) as live:
        with live.connect() as slow:
            slow.sendall(b"GET /list-apps HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a")
            answer = read_until_closed(slow)
        assert _status_and_detail(answer) == (
            "HTTP/1.1 408 Request Timeout",
            f"Request headers not received within {SHORT:g} s; the connection is closed.",
        )


def test_a_partial_body_gets_408(apps_dir: Path) -> None:
    with live_server(apps_dir, limits=Limits(body_timeout=SHORT)) as live:
        with live.connect() as slow:
            slow.sendall(
                b"POST /run HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b'Content-Length: 100\r\n\r\n{"appName": "ec'
            )
            answer = read_until_closed(slow)
        assert _status_and_detail(answer) == (
            "HTTP/1.1 408 Request Timeout",
            f"Request body not received within {SHORT:g} s; the connection is closed.",
        )


def test_an_idle_kept_alive_connection_is_closed(apps_dir: Path) -> None:
    with live_server(apps_dir, limits=Limits(idle_timeout=SHORT)) as live:
        with live.connect() as idle:
            idle.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            answer = read_until_closed(idle)
        assert answer.startswith(b"HTTP/1.1 200 OK\r\n")
        assert answer.endswith(b'{"status":"ok"}')


def test_a_partial_second_request_is_closed_by_the_idle_timeout(apps_dir: Path) -> None:
    with live_server(apps_dir, limits=Limits(header_timeout=60, idle_timeout=SHORT)) as live:
        with live.connect() as slow:
            slow.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /hea")
            answer = read_until_closed(slow)
        assert answer.startswith(b"HTTP/1.1 200 OK\r\n")
        assert answer.endswith(b'{"status":"ok"}')


def test_headers_over_the_cap_get_431(apps_dir: Path) -> None:
    with live_server(apps_dir, limits=Limits(max_header_bytes=1024)) as live:
        with live.connect() as big:
            big.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 2000)
            answer = read_until_closed(big)
        assert _status_and_detail(answer) == (
            "HTTP/1.1 431 Request Header Fields Too Large",
            "Request headers too large: the limit is 1024 bytes.",
        )


def test_a_connection_over_the_cap_gets_503_and_the_others_go_on(apps_dir: Path) -> None:
    with live_server(apps_dir, limits=Limits(max_connections=2)) as live:
        with live.connect() as one, live.connect() as two, live.connect() as three:
            assert _status_and_detail(read_until_closed(three)) == (
                "HTTP/1.1 503 Service Unavailable",
                "Too many connections: the server holds 2 (--max-connections); retry shortly.",
            )
            for sock in (one, two):
                sock.sendall(
                    b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                )
                assert read_until_closed(sock).startswith(b"HTTP/1.1 200 OK")
        with http(live) as client:  # the closed connections no longer count
            assert wait_for(lambda: client.get("/health").status_code == 200, what="health")


def test_requests_over_the_concurrency_cap_get_503(apps_dir: Path) -> None:
    with live_server(apps_dir, limits=Limits(max_concurrency=1)) as live, http(live) as client:
        client.post(S, json={"sessionId": "s1"})
        with live.connect() as busy:
            body = json.dumps(message("slow 30")).encode()
            busy.sendall(
                b"POST /run HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
            )
            refused = wait_for(
                lambda: (r := client.get("/list-apps")).status_code == 503 and r, what="503"
            )
            assert refused.headers["retry-after"] == "1"
            assert refused.json() == {
                "detail": "The server is busy: 1 requests are in progress (--max-concurrency);"
                " retry shortly."
            }
            assert client.get("/health").status_code == 200  # probes still answered
        # The turn's client left: it is cancelled, and the slot is free again.
        wait_for(lambda: client.get("/list-apps").status_code == 200, what="a free slot")


def _post_raw(sock: socket.socket, path: str, payload: object) -> None:
    body = json.dumps(payload).encode()
    sock.sendall(
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )


def _texts(client: object, session: str) -> list[str]:
    import httpx

    assert isinstance(client, httpx.Client)
    events = client.get(f"{S}/{session}").json()["events"]
    return [p["text"] for e in events for p in e["content"]["parts"] if "text" in p]


def _next_turn_runs(client: object, session: str) -> bool:
    import httpx

    assert isinstance(client, httpx.Client)
    response = client.post("/run", json=message("next", session=session))
    if response.status_code == 409:
        return False
    assert response.status_code == 200, response.text
    return True


def test_a_client_gone_before_the_first_frame_cancels_its_turn_on_run_sse(
    apps_dir: Path,
) -> None:
    """Without partial events nothing is sent before the model answers: the disconnect must
    still cancel the turn (and free the session) at once, as it does on /run."""
    with live_server(apps_dir, busy_wait=0.1) as live, http(live) as client:
        client.post(S, json={"sessionId": "gone"})
        with live.connect() as leaving:
            _post_raw(leaving, "/run_sse", message("slow 60", session="gone"))
            wait_for(
                lambda: client.post("/run", json=message("x", session="gone")).status_code == 409,
                what="the turn running",
            )
        wait_for(lambda: _next_turn_runs(client, "gone"), what="the session freed")
        stored = client.get(f"{S}/gone").json()["events"]
        texts = [e["content"]["parts"][0]["text"] for e in stored]
        assert "slow 60" in texts and "echo: slow 60" not in texts


def test_a_client_that_stops_reading_does_not_hold_the_session(
    apps_dir: Path, big_events: None
) -> None:
    """The turn ends (its events stored) while the client reads nothing: the session is free
    then, not when the client has read the stream."""
    with live_server(apps_dir, busy_wait=0.1, limits=Limits(send_timeout=600)) as live:
        with http(live) as client, live.connect(rcvbuf=4096) as stalled:
            client.post(S, json={"sessionId": "stall"})
            # A tool call whose first frame is more than the socket buffers hold: the next
            # frames wait for a reader that never comes.
            big = "x" * (4 * 1024 * 1024)
            _post_raw(stalled, "/run_sse", message(f"remember {big}", session="stall"))
            wait_for(lambda: _texts(client, "stall")[-1:] == ["noted"], what="the turn's end")
            wait_for(lambda: _next_turn_runs(client, "stall"), what="the session freed")


def test_a_client_that_reads_nothing_for_the_send_timeout_is_dropped(
    apps_dir: Path, big_events: None
) -> None:
    with live_server(apps_dir, limits=Limits(send_timeout=SHORT)) as live:
        with http(live) as client, live.connect(rcvbuf=4096) as stalled:
            client.post(S, json={"sessionId": "drop"})
            big = "x" * (9 * 1024 * 1024)
            _post_raw(stalled, "/run_sse", message(big, session="drop"))
            wait_for(lambda: _open(live, stalled), what="the stalled client served")
            wait_for(lambda: not _open(live, stalled), what="the stalled client dropped")
            received = read_until_closed(stalled)
        assert received.startswith(b"HTTP/1.1 200 OK\r\n")
        assert len(received) < len(big)  # the rest was never sent


@pytest.fixture
def big_events(monkeypatch: pytest.MonkeyPatch) -> None:
    """Events larger than the socket buffers, so larger than the stores' default caps."""
    monkeypatch.setenv("YADK_MAX_EVENT_BYTES", str(32 * 1024 * 1024))
    monkeypatch.setenv("YADK_MAX_STATE_BYTES", str(64 * 1024 * 1024))


def _open(live: Live, sock: socket.socket) -> bool:
    """Whether the server still holds the connection of ``sock``."""
    port = sock.getsockname()[1]
    held = list(live.server.server_state.connections)
    return any(getattr(p, "client", None) and p.client[1] == port for p in held)


@pytest.mark.parametrize("option", ["header_timeout", "body_timeout", "idle_timeout"])
def test_limits_must_be_positive(option: str) -> None:
    with pytest.raises(ValueError, match=f"{option} must be more than 0 seconds, not 0"):
        Limits(**{option: 0})


def test_the_documented_defaults() -> None:
    assert Limits() == Limits(
        header_timeout=10.0,
        body_timeout=30.0,
        idle_timeout=5.0,
        send_timeout=30.0,
        max_connections=1000,
        max_concurrency=200,
        max_header_bytes=64 * 1024,
    )
