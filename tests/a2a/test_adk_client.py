"""google-adk 2.13's own RemoteA2aAgent (google-adk's interpreter, in a subprocess) calling
agents that `yadk serve` publishes: answers, one context for the caller's session, and a
long-running call surfacing as google-adk's input-required call."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.serve.live import BOUND, Live, live_server

pytestmark = pytest.mark.subprocess

ADK_PYTHON = Path(os.environ.get("YADK_BENCH_ADK_PYTHON", "/opt/adkvenv/bin/python"))
CLIENT = Path(__file__).with_name("adk_remote_client.py")
SERVED = Path(__file__).with_name("served")


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    if not ADK_PYTHON.exists():
        pytest.skip(f"google-adk's interpreter {ADK_PYTHON} is not installed")
    shutil.copytree(SERVED, tmp_path / "served", ignore=shutil.ignore_patterns("__pycache__"))
    with live_server(tmp_path / "served") as running:
        yield running


def adk_calls(live: Live, app: str, *messages: str) -> list[list[dict[str, Any]]]:
    card = f"{live.url}/a2a/{app}/.well-known/agent-card.json"
    run = subprocess.run(
        [str(ADK_PYTHON), str(CLIENT), card, *messages],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    assert run.returncode == 0, run.stderr[-3000:]
    turns: list[list[dict[str, Any]]] = json.loads(run.stdout.splitlines()[-1])
    return turns


def test_google_adk_remote_agent_gets_answers_in_one_context(live: Live) -> None:
    turns = adk_calls(live, "capital", "France?", "Japan?")
    texts = [[t for e in turn for t in e["texts"]] for turn in turns]
    assert texts == [["The capital of France is Paris."], ["The capital of Japan is Tokyo."]]
    assert all(e["error"] is None for turn in turns for e in turn)
    listed = httpx.post(
        f"{live.url}/a2a/capital",
        json={"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": {}},
        headers={"A2A-Version": "1.0"},
        timeout=BOUND,
    ).json()["result"]
    assert listed["totalSize"] == 2
    assert len({t["contextId"] for t in listed["tasks"]}) == 1


def test_google_adk_sees_a_waiting_task_as_a_long_running_call(live: Live) -> None:
    (turn,) = adk_calls(live, "approval", "reimburse my taxi")
    assert [t for e in turn for t in e["texts"]] == ["I need a manager's approval first."]
    # The call marked long-running is the tool's own (google-adk invents a stand-in call for a
    # waiting task whose status message marks none).
    (waiting,) = [e for e in turn if e["long_running"]]
    assert waiting["calls"] == ["ask_for_approval"]
