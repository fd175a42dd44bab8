"""yadk's RemoteA2aAgent calling google-adk 2.13's own A2A server (``to_a2a``), run with
google-adk's interpreter in a subprocess (skipped where that venv is missing)."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from yadk import Runner
from yadk.a2a import RemoteA2aAgent
from yadk.sessions import InMemorySessionService

pytestmark = pytest.mark.subprocess

ADK_PYTHON = Path(os.environ.get("YADK_BENCH_ADK_PYTHON", "/opt/adkvenv/bin/python"))
SERVER = Path(__file__).with_name("adk_echo_server.py")
BOUND = 60.0  # google-adk imports for seconds on a loaded machine


@dataclass
class AdkServer:
    url: str


@pytest.fixture(scope="module")
def adk_server() -> Iterator[AdkServer]:
    if not ADK_PYTHON.exists():
        pytest.skip(f"google-adk's interpreter {ADK_PYTHON} is not installed")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    process = subprocess.Popen(
        [str(ADK_PYTHON), str(SERVER), str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + BOUND
        while True:
            try:
                httpx.get(f"{url}/.well-known/agent-card.json", timeout=2).raise_for_status()
                break
            except httpx.HTTPError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(
                        "google-adk's A2A server did not start: "
                        + (process.stderr.read().decode()[-2000:] if process.stderr else "")
                    ) from None
                time.sleep(0.2)
        yield AdkServer(url)
    finally:
        process.terminate()
        process.wait(timeout=BOUND)
        if process.stderr:
            process.stderr.close()


async def converse(agent: RemoteA2aAgent, *messages: str) -> list[tuple[str, str | None, str]]:
    service = InMemorySessionService()
    seen = []
    async with Runner(app_name="app", agent=agent, session_service=service) as runner:
        session = await service.create_session(app_name="app", user_id="u")
        for message in messages:
            async for event in runner.run_async(
                user_id="u", session_id=session.id, new_message=message
            ):
                if event.author != "user":
                    seen.append((event.author, event.error_code, event.error_message or event.text))
    return seen


async def test_google_adks_server_answers(adk_server: AdkServer) -> None:
    agent = RemoteA2aAgent(name="remote", agent_card=adk_server.url)
    assert await converse(agent, "hello", "again") == [
        ("remote", None, "echo: hello"),
        ("remote", None, "echo: again"),
    ]
    assert agent.description == "Echoes what it is told (google-adk)."


async def test_google_adks_server_over_a2a_0_3(adk_server: AdkServer) -> None:
    card = {"name": "adk_echo", "url": adk_server.url + "/", "protocolVersion": "0.3.0"}
    agent = RemoteA2aAgent(name="remote", agent_card=card)
    assert await converse(agent, "old") == [("remote", None, "echo: old")]


async def test_google_adks_failed_task_is_one_error_event(adk_server: AdkServer) -> None:
    agent = RemoteA2aAgent(name="remote", agent_card=adk_server.url)
    assert await converse(agent, "fail") == [
        (
            "remote",
            "A2A_ERROR",
            "The remote agent adk_echo reported its task failed: the echo agent was told to fail",
        )
    ]
