"""A task whose process died mid-invocation: its user message is stored, no answer ever will be.
While another process holds the session's turn lock the task is working (it may be running
there); once no process does, GetTask and ListTasks report it failed, saying why."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.serve.live import BOUND, Live, live_server

from yadk.events import Event, EventActions
from yadk.serve._a2a_tasks import LOST, TASK_KEY, new_task_id
from yadk.sessions import SqliteSessionService
from yadk.types import UserContent

SERVED = Path(__file__).with_name("served")
V1 = {"A2A-Version": "1.0"}
CONTEXT = "ctx-lost"
KEY = ("capital", f"A2A_USER_{CONTEXT}", CONTEXT)

HOLD = """
import asyncio, sys
from pathlib import Path
from yadk.sessions import SqliteSessionService
locks = SqliteSessionService(Path(sys.argv[1])).turn_locks()
assert asyncio.run(locks.try_lock(tuple(sys.argv[2:5])))
print("locked", flush=True)
sys.stdin.read()  # held until the test closes our stdin (or this process dies)
"""


def _died_mid_task(db: Path) -> str:
    """What a process that died after storing a task's message leaves in the store."""
    task_id = new_task_id(CONTEXT)

    async def store() -> None:
        service = SqliteSessionService(db)
        session = await service.create_session(app_name=KEY[0], user_id=KEY[1], session_id=CONTEXT)
        message = Event(
            author="user",
            invocation_id="inv-died",
            content=UserContent("France?"),
            actions=EventActions(state_delta={TASK_KEY: task_id}),
        )
        await service.append_event(session, message)
        await service.aclose()

    asyncio.run(store())
    return task_id


@contextmanager
def another_process_holding(db: Path) -> Iterator[Callable[[], None]]:
    """Another process holding the session's turn lock on ``db``; calling what this yields
    ends that process (the kernel releases its lock), as leaving the block does."""
    with subprocess.Popen(
        [sys.executable, "-c", HOLD, str(db), *KEY],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as holder:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"

        def end() -> None:
            assert holder.stdin is not None
            holder.stdin.close()
            holder.wait(timeout=BOUND)

        yield end


def _served(tmp_path: Path) -> Path:
    """The served apps, copied as the other A2A tests copy them: a module of an agent folder is
    imported from one place per process."""
    target = tmp_path / "served"
    shutil.copytree(SERVED, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def _rpc(live: Live, method: str, params: dict[str, Any]) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": "r1", "method": method, "params": params}
    reply = httpx.post(f"{live.url}/a2a/capital", json=body, headers=V1, timeout=BOUND)
    assert reply.status_code == 200, reply.text
    result: dict[str, Any] = reply.json()["result"]
    return result


def test_a_task_no_process_runs_any_more_has_failed(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    task_id = _died_mid_task(db)
    with live_server(_served(tmp_path), session_service=SqliteSessionService(db)) as live:
        got = _rpc(live, "GetTask", {"id": task_id})
        assert got["status"]["state"] == "TASK_STATE_FAILED"
        assert LOST in json.dumps(got["status"])
        listed = _rpc(live, "ListTasks", {"contextId": CONTEXT})["tasks"]
        assert [(t["id"], t["status"]["state"]) for t in listed] == [(task_id, "TASK_STATE_FAILED")]
        # A failed task takes no further message; a new task in the context runs.
        again = httpx.post(
            f"{live.url}/a2a/capital",
            json={
                "jsonrpc": "2.0",
                "id": "r2",
                "method": "SendMessage",
                "params": {
                    "message": {
                        "messageId": "m-2",
                        "role": "ROLE_USER",
                        "parts": [{"text": "Spain?"}],
                        "taskId": task_id,
                    }
                },
            },
            headers=V1,
            timeout=BOUND,
        ).json()
        assert "is failed" in again["error"]["message"]
        fresh = _rpc(
            live,
            "SendMessage",
            {
                "message": {
                    "messageId": "m-3",
                    "role": "ROLE_USER",
                    "parts": [{"text": "France?"}],
                    "contextId": CONTEXT,
                }
            },
        )["task"]
        assert fresh["status"]["state"] == "TASK_STATE_COMPLETED"


@pytest.mark.subprocess
def test_a_task_whose_session_another_process_holds_is_working(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    task_id = _died_mid_task(db)
    with another_process_holding(db) as end_it:
        with live_server(_served(tmp_path), session_service=SqliteSessionService(db)) as live:
            assert _rpc(live, "GetTask", {"id": task_id})["status"]["state"] == (
                "TASK_STATE_WORKING"
            )
            end_it()  # the other process ends: the kernel releases its lock
            assert _rpc(live, "GetTask", {"id": task_id})["status"]["state"] == (
                "TASK_STATE_FAILED"
            )
