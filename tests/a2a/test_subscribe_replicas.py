"""SubscribeToTask on a replica that is not running the task: two servers on one SQLite file
(a ``yadk serve`` process running the task, and a server in this process subscribed to it),
which streams it from the store until the task stops (ends, fails, or waits for input).

The task's tool waits at a gate, a socket this test listens on: the task runs for as long as
the test needs, and goes on when the test sends a byte."""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import threading
from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.a2a.test_lost_tasks import _died_mid_task, another_process_holding
from tests.serve.live import BOUND, Live, live_server, wait_for
from tests.serve.test_server import Server

from yadk.serve._a2a_tasks import LOST
from yadk.sessions import SqliteSessionService

SERVED = Path(__file__).with_name("served")
V1 = {"A2A-Version": "1.0"}


@pytest.fixture
def agents(tmp_path: Path) -> Path:
    target = tmp_path / "served"
    shutil.copytree(SERVED, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[socket.socket]:
    """The gate's socket; the servers started from now on find it in their environment."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.settimeout(BOUND)
        monkeypatch.setenv("YADK_TEST_GATE", f"127.0.0.1:{listener.getsockname()[1]}")
        yield listener


def rpc(live: Live | Server, app: str, method: str, params: dict[str, Any], headers: Any) -> Any:
    body = {"jsonrpc": "2.0", "id": "r", "method": method, "params": params}
    reply = httpx.post(f"{live.url}/a2a/{app}", json=body, headers=headers, timeout=BOUND)
    return reply.json()["result"]


def frames(reply: httpx.Response) -> Iterator[Any]:
    for line in reply.iter_lines():
        if line.startswith("data: "):
            yield json.loads(line[6:])["result"]


def unwrap(result: dict[str, Any], version: str) -> Any:
    """The stream event itself: 1.0 wraps it in its kind (``{"task": ...}``)."""
    return result if version == "0.3" else next(iter(result.values()))


def texts(update: dict[str, Any]) -> list[str]:
    return [p["text"] for p in update["artifact"]["parts"]]


@pytest.fixture
def replica(agents: Path, tmp_path: Path, gate: socket.socket) -> Iterator[Server]:
    """``yadk serve`` in its own process on ``shared.db``: the replica that runs the task."""
    one = Server(str(agents), "--db", str(tmp_path / "shared.db"), cwd=tmp_path)
    try:
        yield one
    finally:
        one.stop()


@pytest.mark.subprocess
@pytest.mark.parametrize("version", ["1.0", "0.3"])
def test_a_task_running_on_another_replica_streams_until_it_ends(
    agents: Path, tmp_path: Path, gate: socket.socket, replica: Server, version: str
) -> None:
    db = tmp_path / "shared.db"
    headers = V1 if version == "1.0" else {}
    subscribe = "SubscribeToTask" if version == "1.0" else "tasks/resubscribe"
    with live_server(agents, session_service=SqliteSessionService(db)) as two:
        message = {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "search the archive"}]}
        params = {"message": message, "configuration": {"returnImmediately": True}}
        task_id = rpc(replica, "gated", "SendMessage", params, V1)["task"]["id"]
        waiting, _ = gate.accept()  # the tool is at the gate
        with waiting:

            def spoke() -> bool:
                return bool(rpc(two, "gated", "GetTask", {"id": task_id}, V1).get("artifacts"))

            wait_for(spoke, what="the first answer stored")
            body = {"jsonrpc": "2.0", "id": "s", "method": subscribe, "params": {"id": task_id}}
            url = f"{two.url}/a2a/gated"
            with httpx.stream("POST", url, json=body, headers=headers, timeout=BOUND) as reply:
                stream = (unwrap(result, version) for result in frames(reply))
                task = next(stream)
                assert task["id"] == task_id
                assert task["artifacts"][0]["parts"][0]["text"] == "Searching the archive."
                working = next(stream)
                assert working["status"]["state"] in ("working", "TASK_STATE_WORKING")
                waiting.sendall(b"o")  # the task goes on, in the other process
                rest = list(stream)
    assert [texts(update) for update in rest[:-1]] == [["Found it in the archive."]]
    assert rest[0]["append"] is True
    final = rest[-1]
    assert final["status"]["state"] in ("completed", "TASK_STATE_COMPLETED")
    if version == "0.3":
        assert [update["kind"] for update in rest] == ["artifact-update", "status-update"]
        assert final["final"] is True


@pytest.mark.subprocess
def test_a_followed_task_whose_process_dies_ends_failed(agents: Path, tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    task_id = _died_mid_task(db)
    with another_process_holding(db) as end_it:
        with live_server(agents, session_service=SqliteSessionService(db)) as live:
            body = {"jsonrpc": "2.0", "id": "s", "method": "SubscribeToTask"}
            body["params"] = {"id": task_id}
            url = f"{live.url}/a2a/capital"
            with httpx.stream("POST", url, json=body, headers=V1, timeout=BOUND) as reply:
                stream = frames(reply)
                assert next(stream)["task"]["status"]["state"] == "TASK_STATE_WORKING"
                assert next(stream)["statusUpdate"]["status"]["state"] == "TASK_STATE_WORKING"
                end_it()  # the process "running" the task ends
                (final,) = list(stream)
        assert final["statusUpdate"]["status"]["state"] == "TASK_STATE_FAILED"
        assert LOST in json.dumps(final["statusUpdate"]["status"])


class WatchedClock:
    """The loop's clock, telling the test when the follower pauses and when a pause of its is
    cancelled (the caller went away)."""

    def __init__(self) -> None:
        self.paused = threading.Event()
        self.cancelled = threading.Event()

    def time(self) -> float:
        return asyncio.get_running_loop().time()

    async def sleep(self, seconds: float) -> None:
        self.paused.set()
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            self.cancelled.set()
            raise

    def timeout(self, seconds: float) -> AbstractAsyncContextManager[object]:
        return asyncio.timeout(seconds)


@pytest.mark.subprocess
def test_a_caller_that_goes_away_ends_the_following(agents: Path, tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    task_id = _died_mid_task(db)
    with another_process_holding(db):
        with live_server(agents, session_service=SqliteSessionService(db)) as live:
            clock = WatchedClock()
            live.server.config.app.state.served.locks.clock = clock
            body = {"jsonrpc": "2.0", "id": "s", "method": "SubscribeToTask"}
            body["params"] = {"id": task_id}
            with (
                httpx.Client(timeout=BOUND) as client,
                client.stream("POST", f"{live.url}/a2a/capital", json=body, headers=V1) as reply,
            ):
                stream = frames(reply)
                assert next(stream)["task"]["status"]["state"] == "TASK_STATE_WORKING"
                assert clock.paused.wait(BOUND)  # following: the task runs "elsewhere"
                assert not clock.cancelled.is_set()
            # The connection is closed: the server cancels the follower in its pause.
            assert clock.cancelled.wait(BOUND)


@pytest.mark.postgres
def test_a_task_running_on_another_replica_streams_on_postgresql(
    agents: Path, gate: socket.socket, postgres_url: str
) -> None:
    # PostgreSQL's turn locks are per connection: two servers of one process are two replicas.
    with (
        live_server(agents, session_service=None, db=postgres_url) as one,
        live_server(agents, session_service=None, db=postgres_url) as two,
    ):
        message = {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "search the archive"}]}
        params = {"message": message, "configuration": {"returnImmediately": True}}
        task_id = rpc(one, "gated", "SendMessage", params, V1)["task"]["id"]
        waiting, _ = gate.accept()
        with waiting:
            body = {"jsonrpc": "2.0", "id": "s", "method": "SubscribeToTask"}
            body["params"] = {"id": task_id}
            url = f"{two.url}/a2a/gated"
            with httpx.stream("POST", url, json=body, headers=V1, timeout=BOUND) as reply:
                stream = (unwrap(result, "1.0") for result in frames(reply))
                assert next(stream)["id"] == task_id
                assert next(stream)["status"]["state"] == "TASK_STATE_WORKING"
                waiting.sendall(b"o")
                rest = list(stream)
    assert [texts(update) for update in rest if "artifact" in update][-1] == [
        "Found it in the archive."
    ]
    assert rest[-1]["status"]["state"] == "TASK_STATE_COMPLETED"
