"""``/run`` and ``/run_sse``: events, SSE framing, streaming, failures, many sessions at once,
contention on one session, and clients that go away mid-invocation."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.manual_clock import ManualClock
from tests.serve.conftest import HeldSessions, message, sse_events

from yadk.sessions import SqliteSessionService

S = "/apps/echo/users/u1/sessions"


async def new_session(client: httpx.AsyncClient, session: str = "s1", user: str = "u1") -> None:
    response = await client.post(f"/apps/echo/users/{user}/sessions", json={"sessionId": session})
    assert response.status_code == 200, response.text


def texts(events: list[dict[str, Any]]) -> list[str]:
    return [
        part.get("text", "")
        for event in events
        for part in event.get("content", {}).get("parts", [])
        if "text" in part
    ]


async def test_run_returns_the_agents_events_and_stores_the_users_too(
    client: httpx.AsyncClient,
) -> None:
    await new_session(client)
    response = await client.post("/run", json=message("hello"))
    assert response.status_code == 200
    events = response.json()
    assert [e["author"] for e in events] == ["echo"]
    assert texts(events) == ["echo: hello"]
    assert events[0]["content"]["role"] == "model"
    stored = (await client.get(f"{S}/s1")).json()["events"]
    assert [e["author"] for e in stored] == ["user", "echo"]
    assert stored[1]["id"] == events[0]["id"]


async def test_a_tool_call_changes_state_and_artifacts(client: httpx.AsyncClient) -> None:
    await new_session(client)
    events = (await client.post("/run", json=message("remember milk"))).json()
    assert [list(e["content"]["parts"][0]) for e in events] == [
        ["functionCall"],
        ["functionResponse"],
        ["text"],
    ]
    assert events[1]["actions"]["stateDelta"] == {"note": "milk"}
    assert events[1]["actions"]["artifactDelta"] == {"note.txt": 0}
    assert (await client.get(f"{S}/s1")).json()["state"] == {"note": "milk"}
    assert (await client.get(f"{S}/s1/artifacts/note.txt")).json() == {"text": "milk"}


async def test_run_sse_frames_are_one_data_line_each(client: httpx.AsyncClient) -> None:
    await new_session(client)
    response = await client.post("/run_sse", json=message("remember eggs"))
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    events = sse_events(response.text)
    # As google-adk: the tool result with an artifact change goes out as its content (artifact
    # change cleared), then an action-only copy with the change.
    assert [("content" in e, e["actions"]["artifactDelta"]) for e in events] == [
        (True, {}),
        (True, {}),
        (False, {"note.txt": 0}),
        (True, {}),
    ]
    assert events[1]["id"] == events[2]["id"]


async def test_streaming_sends_partial_events_first_and_stores_only_the_whole_answer(
    client: httpx.AsyncClient,
) -> None:
    await new_session(client)
    response = await client.post("/run_sse", json=message("stream me", streaming=True))
    events = sse_events(response.text)
    assert [(e.get("partial", False), texts([e])) for e in events] == [
        (True, ["echo"]),
        (False, ["echo: stream me"]),
    ]
    stored = (await client.get(f"{S}/s1")).json()["events"]
    assert [texts([e]) for e in stored] == [["stream me"], ["echo: stream me"]]


async def test_without_streaming_no_partial_events(client: httpx.AsyncClient) -> None:
    await new_session(client)
    events = sse_events((await client.post("/run_sse", json=message("whole"))).text)
    assert [e.get("partial") for e in events] == [None]


async def test_a_failing_model_ends_the_invocation_with_an_error_event_and_the_server_stays_up(
    client: httpx.AsyncClient,
) -> None:
    await new_session(client)
    events = (await client.post("/run", json=message("boom"))).json()
    assert events[-1]["errorCode"]
    assert "the model broke" in events[-1]["errorMessage"]
    streamed = sse_events((await client.post("/run_sse", json=message("boom"))).text)
    assert streamed[-1]["errorCode"]
    assert texts((await client.post("/run", json=message("fine"))).json()) == ["echo: fine"]


async def test_state_delta_and_an_empty_message(client: httpx.AsyncClient) -> None:
    await new_session(client)
    body = message("hi", stateDelta={"tier": "gold"})
    await client.post("/run", json=body)
    assert (await client.get(f"{S}/s1")).json()["state"] == {"tier": "gold"}


async def test_the_app_name_may_be_left_out_when_one_app_is_served(
    client: httpx.AsyncClient,
) -> None:
    await new_session(client)
    body = message("hi")
    del body["appName"]
    assert texts((await client.post("/run", json=body)).json()) == ["echo: hi"]


async def test_fifty_clients_at_once_lose_nothing(
    make_client: Callable[..., Any], tmp_path: Path
) -> None:
    sessions = SqliteSessionService(tmp_path / "sessions.db")
    turns = 4
    async with make_client(session_service=sessions) as client:

        async def one_client(n: int) -> None:
            await new_session(client, f"c{n}", user=f"user{n}")
            for turn in range(turns):
                body = message(f"client {n} turn {turn}", session=f"c{n}")
                body["userId"] = f"user{n}"
                route = "/run_sse" if turn % 2 else "/run"
                response = await client.post(route, json=body)
                assert response.status_code == 200, response.text

        await asyncio.gather(*(one_client(n) for n in range(50)))
        for n in range(50):
            stored = (await client.get(f"/apps/echo/users/user{n}/sessions/c{n}")).json()
            expected = []
            for turn in range(turns):
                expected += [f"client {n} turn {turn}", f"echo: client {n} turn {turn}"]
            assert texts(stored["events"]) == expected
    sessions.close_now()  # that SQLite work runs off the loop: tests/sessions/test_sqlite.py


async def test_a_second_turn_on_a_busy_session_waits_then_runs_in_order(
    make_client: Callable[..., Any],
) -> None:
    sessions = HeldSessions()
    clock = ManualClock()
    running = make_client(busy_wait=10, session_service=sessions)
    running.app.state.served.locks.clock = clock
    async with running as client:
        await new_session(client)
        first = asyncio.create_task(client.post("/run", json=message("hold")))
        await sessions.holding.wait()
        second = asyncio.create_task(client.post("/run", json=message("second")))
        await clock.waiting()  # the second turn waits for the session
        sessions.go.set()
        assert texts((await first).json()) == ["echo: hold"]
        assert texts((await second).json()) == ["echo: second"]
        stored = (await client.get(f"{S}/s1")).json()["events"]
        assert texts(stored) == ["hold", "echo: hold", "second", "echo: second"]


@pytest.mark.parametrize("route", ["/run", "/run_sse"])
async def test_a_session_busy_for_longer_than_the_wait_answers_409(
    make_client: Callable[..., Any], route: str
) -> None:
    sessions = HeldSessions()
    clock = ManualClock()
    running = make_client(busy_wait=0.2, session_service=sessions)
    running.app.state.served.locks.clock = clock
    async with running as client:
        await new_session(client)
        first = asyncio.create_task(client.post("/run", json=message("hold")))
        await sessions.holding.wait()
        pending = asyncio.create_task(client.post(route, json=message("second")))
        await clock.waiting()
        clock.advance(0.2)
        second = await pending
        assert second.status_code == 409
        assert second.json() == {
            "detail": "Session 's1' is busy: another invocation was still running on it after"
            " 0.2 s. Wait for it to finish (or use another session), then send again."
        }
        sessions.go.set()
        await first
        other = await client.post(route, json=message("third"))
        assert other.status_code == 200
        stored = (await client.get(f"{S}/s1")).json()["events"]
        assert texts(stored) == ["hold", "echo: hold", "third", "echo: third"]


async def _call_and_disconnect(
    app: Any, path: str, body: dict[str, Any], *, after_first_chunk: bool, busy: asyncio.Event
) -> list[dict[str, Any]]:
    """Drive the ASGI app directly: send the request, then disconnect (after the first body
    chunk, or once ``busy`` is set). Returns the messages the app sent."""
    raw = json.dumps(body).encode()
    sent: list[dict[str, Any]] = []
    got_chunk = asyncio.Event()
    requested = False

    async def receive() -> dict[str, Any]:
        nonlocal requested
        if not requested:
            requested = True
            return {"type": "http.request", "body": raw, "more_body": False}
        if after_first_chunk:
            await got_chunk.wait()
        else:
            await busy.wait()
        return {"type": "http.disconnect"}

    async def send(msg: dict[str, Any]) -> None:
        sent.append(msg)
        if msg["type"] == "http.response.body" and msg.get("body"):
            got_chunk.set()

    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"content-type", b"application/json"), (b"host", b"testserver")],
        "client": ("127.0.0.1", 5000),
        "server": ("testserver", 80),
    }
    await asyncio.wait_for(app(scope, receive, send), 60)  # ends only if the turn is cancelled
    return sent


@pytest.mark.parametrize(
    ("path", "extra", "after_first_chunk"),
    [("/run_sse", {"streaming": True}, True), ("/run", {}, False)],
)
async def test_a_client_that_disconnects_cancels_its_invocation_cleanly(
    make_client: Callable[..., Any], path: str, extra: dict[str, Any], after_first_chunk: bool
) -> None:
    sessions = HeldSessions()  # the answer is held until cancelled: it never comes
    running = make_client(session_service=sessions)
    async with running as client:
        await new_session(client)
        sent = await _call_and_disconnect(
            running.app,
            path,
            message("hold", **extra),
            after_first_chunk=after_first_chunk,
            busy=sessions.holding,
        )
        if path == "/run_sse":
            [start, first, *_] = sent
            assert start["status"] == 200
            assert json.loads(first["body"][6:])["partial"] is True
        else:
            assert sent[0]["status"] == 499
        # The user's message stays; the answer never came, so nothing else was written.
        stored = (await client.get(f"{S}/s1")).json()["events"]
        assert texts(stored) == ["hold"]
        # ... and the session is free at once.
        response = await client.post("/run", json=message("after"))
        assert texts(response.json()) == ["echo: after"]
        assert len(running.app.state.served.locks) == 0


async def test_token_counts_reach_the_event_and_the_invocation_log(
    client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    await new_session(client)
    with caplog.at_level(logging.INFO, logger="yadk.serve.invocation"):
        events = (await client.post("/run", json=message("tokens please"))).json()
    assert events[0]["usageMetadata"] == {
        "promptTokenCount": 5,
        "candidatesTokenCount": 2,
        "totalTokenCount": 7,
    }
    [record] = [r for r in caplog.records if r.name == "yadk.serve.invocation"]
    fields = record.fields  # type: ignore[attr-defined]
    assert (fields["app"], fields["session"], fields["agent"]) == ("echo", "s1", "echo")
    assert (fields["model_calls"], fields["tokens"], fields["status"]) == (1, 7, "ok")
    assert record.getMessage().startswith("invocation app=echo session=s1 agent=echo ")
    assert record.getMessage().endswith(" model_calls=1 tokens=7 status=ok")
