"""Replicas: several real ``yadk serve`` processes (and ``--workers``) on one PostgreSQL schema.

The agent's tool does a read-modify-write of the session state in every turn (``total +=
pending``) after a pause, so a turn that started from a stale copy, or two turns interleaved,
show up as a wrong total, events of two invocations mixed, or a failed turn.
"""

from __future__ import annotations

import asyncio
import json
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.serve.test_server import YADK, Server

pytestmark = pytest.mark.subprocess

AGENT = """\
name: tally
description: Adds what each turn brings to a running total.
model: scripted:turns.yaml
instruction: Add it up.
tools:
  - name: tally_tool.tally
"""

TOOL = '''\
import asyncio

from yadk.agents import ToolContext


async def tally(tool_context: ToolContext) -> dict:
    """Add the turn's pending amount to the total."""
    state = tool_context.state
    total = state.get("total", 0)
    # A window for another turn to interleave, were it allowed to.
    await asyncio.sleep(state.get("pause", 0.005))
    state["total"] = total + state["pending"]
    tool_context.actions.skip_summarization = True
    return {"total": state["total"]}
'''

CLIENTS = 50
TURNS = 8


def _http(max_connections: int = 100) -> httpx.AsyncClient:
    """A client that drops an idle connection after 1 s: the servers close theirs after 5 s
    (uvicorn's keep-alive), and httpx's own 5 s would race them, reusing a connection as the
    server closes it (a ReadError on a POST, which httpx does not retry)."""
    return httpx.AsyncClient(
        limits=httpx.Limits(max_connections=max_connections, keepalive_expiry=1.0)
    )


def _agents(tmp_path: Path, model_calls: int) -> Path:
    folder = tmp_path / "agents" / "tally"
    folder.mkdir(parents=True)
    (folder / "root_agent.yaml").write_text(AGENT, encoding="utf-8")
    (folder / "tally_tool.py").write_text(TOOL, encoding="utf-8")
    turn = "  - function_calls: [{name: tally}]\n"
    (folder / "turns.yaml").write_text("turns:\n" + turn * model_calls, encoding="utf-8")
    return tmp_path / "agents"


@pytest.fixture
def replicas(tmp_path: Path, postgres_url: str) -> Iterator[list[Server]]:
    agents = _agents(tmp_path, CLIENTS * TURNS + 100)
    servers: list[Server] = []
    try:
        for _ in range(2):
            servers.append(Server(str(agents), "--db", postgres_url, cwd=tmp_path))
        yield servers
    finally:
        for server in servers:
            server.stop()


async def _turn(client: httpx.AsyncClient, base: str, user: str, sid: str, n: int) -> Any:
    body = {
        "appName": "tally",
        "userId": user,
        "sessionId": sid,
        "newMessage": {"role": "user", "parts": [{"text": f"turn {n}"}]},
        "stateDelta": {"pending": n},
    }
    response = await client.post(f"{base}/run", json=body, timeout=60)
    assert response.status_code == 200, response.text
    events = response.json()
    assert [e.get("errorCode") for e in events] == [None, None], events
    return events


def _said(event: dict[str, Any]) -> int:
    return int(event["content"]["parts"][0]["text"].removeprefix("turn "))


def _check_session(session: dict[str, Any], amounts: list[int]) -> None:
    """Every turn stored once, in the order sent, its events contiguous; total = sum."""
    events = session["events"]
    invocations: list[str] = []
    for event in events:
        if not invocations or invocations[-1] != event["invocationId"]:
            invocations.append(event["invocationId"])
    assert len(invocations) == len(set(invocations)), "two turns' events interleaved"
    assert len(invocations) == len(amounts)
    said = [e["content"]["parts"][0]["text"] for e in events if e["author"] == "user"]
    assert said == [f"turn {n}" for n in amounts]
    assert len(events) == 3 * len(amounts)  # the user's message, the call, the response
    assert session["state"]["total"] == sum(amounts)


async def test_clients_alternating_between_two_replicas_lose_nothing(
    replicas: list[Server],
) -> None:
    urls = [server.url for server in replicas]

    async def client(index: int, http: httpx.AsyncClient) -> None:
        user, sid = f"u{index}", f"s{index}"
        created = await http.post(
            f"{urls[index % 2]}/apps/tally/users/{user}/sessions", json={"sessionId": sid}
        )
        assert created.status_code == 200, created.text
        for n in range(1, TURNS + 1):
            await _turn(http, urls[(index + n) % 2], user, sid, n)

    async with _http(2 * CLIENTS) as http:
        await asyncio.gather(*(client(i, http) for i in range(CLIENTS)))
        for index in range(CLIENTS):
            got = await http.get(f"{urls[index % 2]}/apps/tally/users/u{index}/sessions/s{index}")
            _check_session(got.json(), list(range(1, TURNS + 1)))


@pytest.mark.parametrize("store", ["postgres", "sqlite"])
async def test_turns_sent_to_both_replicas_at_once_are_serialized(
    tmp_path: Path, store: str, request: pytest.FixtureRequest
) -> None:
    # Both replicas have the session cached from the first turns; then both get a turn on it
    # at the same moment, many times over: each must wait for the other and start from what
    # the other appended. On SQLite both processes share the file (and its turn locks).
    db = request.getfixturevalue("postgres_url") if store == "postgres" else "shared.db"
    agents = _agents(tmp_path, 100)
    a = Server(str(agents), "--db", db, cwd=tmp_path)
    b = Server(str(agents), "--db", db, cwd=tmp_path)
    try:
        async with _http() as http:
            for index in range(4):
                user, sid = "pair", f"p{index}"
                await http.post(
                    f"{a.url}/apps/tally/users/{user}/sessions", json={"sessionId": sid}
                )
                await _turn(http, a.url, user, sid, 1)
                await _turn(http, b.url, user, sid, 2)
                sent = [1, 2]
                for round_ in range(4):
                    n = 10 * (round_ + 1)
                    await asyncio.gather(
                        _turn(http, a.url, user, sid, n), _turn(http, b.url, user, sid, n + 1)
                    )
                    sent += [n, n + 1]
                got = (await http.get(f"{a.url}/apps/tally/users/{user}/sessions/{sid}")).json()
                # The order of two simultaneous turns is whichever took the lock first.
                order = [_said(e) for e in got["events"] if e["author"] == "user"]
                assert sorted(order) == sorted(sent)
                _check_session(got, order)
    finally:
        a.stop()
        b.stop()


async def test_a_turn_busy_on_another_replica_gets_409_after_the_wait(
    tmp_path: Path, postgres_url: str
) -> None:
    agents = _agents(tmp_path, 10)
    a = Server(str(agents), "--db", postgres_url, cwd=tmp_path)
    b = Server(str(agents), "--db", postgres_url, "--busy-wait", "0.3", cwd=tmp_path)
    try:
        async with _http() as http:
            await http.post(f"{a.url}/apps/tally/users/u/sessions", json={"sessionId": "s"})
            body = {"appName": "tally", "userId": "u", "sessionId": "s"}
            slow = asyncio.ensure_future(
                http.post(f"{a.url}/run", json={**body, "stateDelta": {"pending": 1, "pause": 3}})
            )
            # The slow turn holds the session on replica a once its user message is stored.
            while not (await http.get(f"{a.url}/apps/tally/users/u/sessions/s")).json()["events"]:
                assert not slow.done(), (await slow).text
            busy = await http.post(f"{b.url}/run", json={**body, "stateDelta": {"pending": 2}})
            assert busy.status_code == 409
            assert busy.json()["detail"].startswith("Session 's' is busy: another invocation")
            assert (await slow).status_code == 200
            after = await http.post(
                f"{b.url}/run", json={**body, "stateDelta": {"pending": 2, "pause": 0}}
            )
            assert after.status_code == 200
            got = (await http.get(f"{b.url}/apps/tally/users/u/sessions/s")).json()
            assert got["state"]["total"] == 3
    finally:
        a.stop()
        b.stop()


def _workers(pid: int) -> list[int]:
    """The worker processes uvicorn spawned for the server ``pid``."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            command = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if parent == pid and b"spawn_main" in command:
            found.append(int(stat.parent.name))
    return found


async def _two_turns_at_once(http: httpx.AsyncClient, url: str, round_: int) -> list[int]:
    """Two turns at once on user w's session s, on separate connections (so both workers may
    get one): they wait for each other. Returns the numbers the turns carried."""
    n = 10 * (round_ + 1)
    async with _http() as other:
        await asyncio.gather(_turn(http, url, "w", "s", n), _turn(other, url, "w", "s", n + 1))
    return [n, n + 1]


async def test_workers_serve_one_port_and_serialize_turns(
    tmp_path: Path, postgres_url: str
) -> None:
    agents = _agents(tmp_path, 200)
    server = Server(str(agents), "--db", postgres_url, "--workers", "2", cwd=tmp_path)
    try:
        assert len(_workers(server.process.pid)) == 2
        sent: list[int] = []
        async with _http() as http:
            await http.post(f"{server.url}/apps/tally/users/w/sessions", json={"sessionId": "s"})
            for round_ in range(40):
                sent += await _two_turns_at_once(http, server.url, round_)
                # Until both workers have run turns (each holds turn locks on a connection
                # of its own); the kernel picks the worker of each new connection.
                if round_ >= 9 and await asyncio.to_thread(_lock_connections, postgres_url) == 2:
                    break
            assert await asyncio.to_thread(_lock_connections, postgres_url) == 2
            got = (await http.get(f"{server.url}/apps/tally/users/w/sessions/s")).json()
        order = [_said(e) for e in got["events"] if e["author"] == "user"]
        assert sorted(order) == sorted(sent)
        _check_session(got, order)
    finally:
        log = server.stop()
    assert "with 2 worker processes" in log


async def test_workers_on_one_sqlite_file_serialize_turns(tmp_path: Path) -> None:
    agents = _agents(tmp_path, 100)
    server = Server(str(agents), "--db", "shared.db", "--workers", "2", cwd=tmp_path)
    try:
        assert len(_workers(server.process.pid)) == 2
        sent: list[int] = []
        async with _http() as http:
            await http.post(f"{server.url}/apps/tally/users/w/sessions", json={"sessionId": "s"})
            for round_ in range(8):
                sent += await _two_turns_at_once(http, server.url, round_)
            got = (await http.get(f"{server.url}/apps/tally/users/w/sessions/s")).json()
    finally:
        server.stop()
    order = [_said(e) for e in got["events"] if e["author"] == "user"]
    assert sorted(order) == sorted(sent)
    _check_session(got, order)
    assert (tmp_path / "shared.db-turns").exists()


def _lock_connections(url: str) -> int:
    import psycopg

    with psycopg.connect(url.split("?")[0]) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s AND query LIKE %s",
            ("yadk:" + url.rsplit("schema=", 1)[1], "%advisory%"),
        ).fetchone()
    return int(row[0]) if row else 0


def test_workers_refuse_a_store_in_memory(tmp_path: Path) -> None:
    agents = _agents(tmp_path, 1)
    result = subprocess.run(
        [*YADK, "serve", str(agents), "--db", ":memory:", "--workers", "2"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert result.returncode == 2
    assert "--workers 2 with --db :memory: would give each worker its own sessions" in (
        result.stderr
    )
    assert "Traceback" not in result.stderr


def test_the_readme_postgres_replicas_example_runs(tmp_path: Path, postgres_url: str) -> None:
    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Sessions: SQLite, PostgreSQL", 1)[1].split("\n## ", 1)[0]
    block = next(b for b in section.split("```bash")[1:] if "--port 8001" in b).split("```")[0]
    lines = [line for line in block.strip().splitlines() if not line.startswith("#")]
    export = lines.pop(0)
    assert export.startswith("export DB=")
    # The documented URL with this test's schema (dropped afterwards).
    documented = shlex.split(export.removeprefix("export DB="))[0]
    db = (
        postgres_url.split("?")[0]
        + "?"
        + documented.split("?")[1].replace(
            "schema=agents", "schema=" + postgres_url.rsplit("schema=", 1)[1]
        )
    )
    assert documented.split("?")[0] == postgres_url.split("?")[0]
    servers: dict[str, Server] = {}
    outputs = []
    try:
        for line in lines:
            words = [db if w == "$DB" else w for w in shlex.split(line, comments=True)]
            if words[:2] == ["yadk", "db"]:
                done = subprocess.run([*YADK, *words[1:]], capture_output=True, text=True)
                assert done.returncode == 0, done.stderr
            elif words[:2] == ["yadk", "serve"]:
                port = words[words.index("--port") + 1]
                args = [w for w in words[2:] if w != "&"]
                args[args.index("--port") : args.index("--port") + 2] = []
                args[0] = str(root / args[0])
                servers[port] = Server(*args, cwd=tmp_path)
            else:
                assert words[0] == "curl"
                for port, server in servers.items():
                    line = line.replace(f"localhost:{port}", server.url.removeprefix("http://"))
                done = subprocess.run(line, shell=True, capture_output=True, text=True, timeout=60)
                assert done.returncode == 0, (line, done.stderr)
                outputs.append(done.stdout)
    finally:
        for server in servers.values():
            server.stop()
    assert len(servers) == 2 and len(outputs) == 3
    assert json.loads(outputs[0])["id"] == "s1"
    ran = json.loads(outputs[1])
    assert ran and not any(e.get("errorCode") for e in ran)
    stored = json.loads(outputs[2])
    assert [e["id"] for e in stored["events"]][-len(ran) :] == [e["id"] for e in ran]
