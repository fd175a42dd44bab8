"""End to end: a real ``yadk serve`` process on 127.0.0.1, spoken to over real HTTP."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.serve.conftest import AGENTS, message, sse_events

pytestmark = pytest.mark.subprocess

YADK = [sys.executable, "-m", "yadk.cli"]
S = "/apps/echo/users/u1/sessions"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """``yadk serve`` in a subprocess; ``stop()`` returns what it logged on stderr.

    Its output is read as it comes: a server that logs more than a pipe holds (64 KiB: some
    300 turns' access lines) would otherwise block in the middle of a request."""

    def __init__(self, *args: str, cwd: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [*YADK, "serve", *args, "--port", str(self.port)],
            cwd=cwd,
            stderr=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self._err: list[str] = []
        self._readers = [
            threading.Thread(target=_drain, args=(pipe, sink), daemon=True)
            for pipe, sink in ((self.process.stderr, self._err), (self.process.stdout, []))
        ]
        for reader in self._readers:
            reader.start()
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{self.url}/health", timeout=5)
                return
            except httpx.TransportError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(self.stop()) from None
                time.sleep(0.1)

    def stop(self) -> str:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for reader in self._readers:
            reader.join(timeout=10)
        return "".join(self._err)


def _drain(pipe: Any, sink: list[str]) -> None:
    for line in pipe:
        sink.append(line)
    pipe.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server for the tests that only talk to it (each uses its own session)."""
    work = tmp_path_factory.mktemp("served")
    shutil.copytree(AGENTS, work / "agents", ignore=shutil.ignore_patterns("__pycache__"))
    running = Server(
        str(work / "agents"), "--db", str(work / "s.db"), "--log-format", "json", cwd=work
    )
    yield running
    running.stop()


def test_a_conversation_over_real_http(server: Server) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as http:
        assert http.get("/list-apps").json() == ["echo"]
        assert http.post(S, json={"sessionId": "talk"}).status_code == 200
        events = http.post("/run", json=message("hello", session="talk")).json()
        assert events[0]["content"]["parts"] == [{"text": "echo: hello"}]
        body = message("more", session="talk", streaming=True)
        streamed = sse_events(http.post("/run_sse", json=body).text)
        assert [e.get("partial", False) for e in streamed] == [True, False]


def test_a_client_that_drops_the_stream_cancels_the_invocation(server: Server) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as http:
        http.post(S, json={"sessionId": "s1"})
        body = message("slow 3600", streaming=True)
        with http.stream("POST", "/run_sse", json=body) as stream:
            first = next(stream.iter_lines())
            assert json.loads(first[6:])["partial"] is True
        # The connection is closed: the invocation is cancelled and the session free, or this
        # turn would wait for the hour-long one and time out.
        events = http.post("/run", json=message("next")).json()
        assert events[0]["content"]["parts"] == [{"text": "echo: next"}]
        stored = http.get(f"{S}/s1").json()["events"]
        texts = [e["content"]["parts"][0]["text"] for e in stored]
        assert texts == ["slow 3600", "next", "echo: next"]


def test_the_server_logs_each_request_and_invocation_as_json(tmp_path: Path) -> None:
    # A server of its own, so the log holds exactly this test's requests in any run order.
    shutil.copytree(AGENTS, tmp_path / "agents", ignore=shutil.ignore_patterns("__pycache__"))
    server = Server(
        str(tmp_path / "agents"),
        "--db",
        str(tmp_path / "s.db"),
        "--log-format",
        "json",
        cwd=tmp_path,
    )
    try:
        with httpx.Client(base_url=server.url, timeout=30) as http:
            assert http.get("/list-apps").status_code == 200
            http.post(S, json={"sessionId": "talk"})
            http.post("/run", json=message("hello", session="talk"))
            http.post("/run_sse", json=message("more", session="talk", streaming=True))
            http.post(S, json={"sessionId": "s1"})
            with http.stream("POST", "/run_sse", json=message("slow 3600", streaming=True)) as slow:
                next(slow.iter_lines())
            # Answered once the dropped stream's invocation is cancelled and the session free.
            assert http.post("/run", json=message("next")).status_code == 200
    finally:
        output = server.stop()
    log = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    access = [r for r in log if r["logger"] == "yadk.serve.access"]
    assert ("GET", "/list-apps", 200) in [(r["method"], r["path"], r["status"]) for r in access]
    assert all(r["duration_ms"] >= 0 and r["client"].startswith("127.0.0.1:") for r in access)
    invocations = [
        r for r in log if r["logger"] == "yadk.serve.invocation" and r["session"] == "talk"
    ]
    assert [(r["app"], r["agent"], r["model_calls"], r["status"]) for r in invocations] == [
        ("echo", "echo", 1, "ok"),
        ("echo", "echo", 1, "ok"),
    ]
    cancelled = [r for r in log if r["logger"] == "yadk.serve.invocation" and r["session"] == "s1"]
    assert cancelled[0]["status"] == "cancelled"


def test_sessions_outlive_the_server_in_the_default_sqlite_file(
    apps_dir: Path, tmp_path: Path
) -> None:
    first = Server(str(apps_dir), cwd=tmp_path)
    try:
        httpx.post(f"{first.url}{S}", json={"sessionId": "s1", "state": {"k": 1}})
    finally:
        first.stop()
    assert (tmp_path / ".yadk" / "sessions.db").is_file()
    second = Server(str(apps_dir), cwd=tmp_path)
    try:
        assert httpx.get(f"{second.url}{S}/s1").json()["state"] == {"k": 1}
    finally:
        second.stop()


@pytest.mark.parametrize(
    ("args", "message_end"),
    [
        (
            ["--host", "0.0.0.0"],
            "yadk serve: error: --host 0.0.0.0 would expose the agents to the network without"
            " authentication; pass --token TOKEN (clients then send 'Authorization: Bearer"
            " TOKEN'; or set YADK_SERVE_TOKEN), or --no-auth if something else guards the port\n",
        ),
        (
            ["--token", "x", "--no-auth"],
            "yadk serve: error: --token and --no-auth contradict each other\n",
        ),
    ],
)
def test_unsafe_or_contradictory_options_are_usage_errors(
    apps_dir: Path, tmp_path: Path, args: list[str], message_end: str
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "YADK_SERVE_TOKEN"}
    done = subprocess.run(
        [*YADK, "serve", str(apps_dir), *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.endswith(message_end)


def test_a_path_without_agents_is_a_usage_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [*YADK, "serve", str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr == (
        f"yadk serve: error: {tmp_path}: no agent to serve; expected an agent folder (holding"
        " root_agent.yaml, or an agent.py defining root_agent) or a folder of agent folders\n"
    )


def _run_readme_block(block: str, url: str) -> list[Any]:
    outputs = []
    for line in block.strip().splitlines():
        if not line.startswith("curl "):
            continue
        command = line.replace("localhost:8000", url.removeprefix("http://"))
        done = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, (line, done.stderr)
        outputs.append(done.stdout)
    return outputs


def test_the_readme_curl_examples_run_verbatim(tmp_path: Path) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Serving agents over HTTP", 1)[1].split("\n## ", 1)[0]
    blocks = [b.split("```", 1)[0] for b in section.split("```bash")[1:]]
    curls = "\n".join(b for b in blocks if "curl " in b)
    configs = Path(__file__).resolve().parents[2] / "configs"
    running = Server(str(configs), "--db", ":memory:", cwd=tmp_path)
    try:
        outputs = _run_readme_block(curls, running.url)
    finally:
        running.stop()
    assert len(outputs) >= 4
    assert json.loads(outputs[0]) == [
        "research_desk",
        "support_desk",
        "triage_workflow",
        "trip_planner",
    ]
    assert json.loads(outputs[1])["id"] == "s1"
    events = json.loads(outputs[2])
    assert events and all("author" in e for e in events)
    assert outputs[3].startswith("data: {")


def test_reload_with_the_real_watcher_and_dev_events_behind_a_token(
    apps_dir: Path, tmp_path: Path
) -> None:
    running = Server(str(apps_dir), "--reload", "--db", ":memory:", "--token", "t0k", cwd=tmp_path)
    config = apps_dir / "echo" / "root_agent.yaml"
    try:
        assert httpx.get(f"{running.url}/dev/events").status_code == 401
        auth = {"Authorization": "Bearer t0k"}
        with httpx.Client(base_url=running.url, timeout=30, headers=auth) as http:
            with http.stream("GET", "/dev/events") as events:
                lines = events.iter_lines()
                hello = json.loads(next(line for line in lines if line.startswith("data: "))[6:])
                assert hello["type"] == "hello"
                config.write_text(config.read_text().replace("Echoes what", "Mirrors what"))
                result = json.loads(next(line for line in lines if line.startswith("data: "))[6:])
            assert (result["type"], result["app"], result["ok"]) == ("reload", "echo", True)
            assert result["files"] == ["root_agent.yaml"]
            card = http.get("/.well-known/agent-card.json").json()
            assert card["description"] == "Mirrors what it is told."
    finally:
        log = running.stop()
    assert "echo: reloaded: 1 file changed (root_agent.yaml)" in log
