"""``reload=True``: edits are validated then swapped in for each app, sessions survive, a broken
edit keeps the last good agent serving, and ``GET /dev/events`` streams every result."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from tests.serve.conftest import message

from yadk.reload import ScriptedChanges

S = "/apps/echo/users/u1/sessions"


class Watchers:
    """Hands out one ScriptedChanges per app (in app order) and remembers them."""

    def __init__(self) -> None:
        self.made: list[ScriptedChanges] = []

    def __call__(self) -> ScriptedChanges:
        self.made.append(ScriptedChanges())
        return self.made[-1]


async def reload_now(app: Any, name: str) -> dict[str, Any] | None:
    apps = app.state.served.apps
    result: dict[str, Any] | None = await apps.apply_changes(apps.by_name[name])
    return result


async def test_an_edit_is_swapped_in_and_the_session_survives(
    make_client: Callable[..., Any], apps_dir: Path
) -> None:
    watchers = Watchers()
    running = make_client(reload=True, watcher=watchers)
    async with running as client:
        await client.post(S, json={"sessionId": "s1"})
        await client.post("/run", json=message("one"))
        config = apps_dir / "echo" / "root_agent.yaml"
        config.write_text(config.read_text().replace("Echoes what", "Repeats what"))
        [changes] = watchers.made
        assert config in changes.watched
        changes.push(config)
        result = await reload_now(running.app, "echo")
        assert result is not None
        assert (result["app"], result["ok"], result["files"]) == ("echo", True, ["root_agent.yaml"])
        card = (await client.get("/.well-known/agent-card.json")).json()
        assert card["description"] == "Repeats what it is told."
        await client.post("/run", json=message("two"))
        events = (await client.get(f"{S}/s1")).json()["events"]
        assert len(events) == 4


async def test_a_broken_edit_keeps_the_last_good_agent_and_reports_why(
    make_client: Callable[..., Any], apps_dir: Path
) -> None:
    watchers = Watchers()
    running = make_client(reload=True, watcher=watchers)
    async with running as client:
        await client.post(S, json={"sessionId": "s1"})
        config = apps_dir / "echo" / "root_agent.yaml"
        good = config.read_text()
        config.write_text(good + "colour: red\n")
        watchers.made[0].push(config)
        result = await reload_now(running.app, "echo")
        assert result is not None and result["ok"] is False
        [diagnostic] = result["diagnostics"]
        assert (diagnostic["path"], diagnostic["rule"]) == (str(config), "unknown-key")
        response = await client.post("/run", json=message("still here"))
        assert response.json()[0]["content"]["parts"] == [{"text": "echo: still here"}]
        config.write_text(good)
        watchers.made[0].push(config)
        fixed = await reload_now(running.app, "echo")
        assert fixed is not None and fixed["ok"] is True


async def test_an_app_broken_at_start_comes_up_once_fixed(
    make_client: Callable[..., Any], apps_dir: Path
) -> None:
    config = apps_dir / "echo" / "root_agent.yaml"
    good = config.read_text()
    config.write_text(good + "colour: red\n")
    watchers = Watchers()
    running = make_client(reload=True, watcher=watchers)
    async with running as client:
        await client.post(S, json={"sessionId": "s1"})
        assert (await client.post("/run", json=message("hi"))).status_code == 503
        assert watchers.made[0].watched == {apps_dir / "echo"}
        config.write_text(good)
        watchers.made[0].push(config)
        result = await reload_now(running.app, "echo")
        assert result is not None and result["ok"] is True
        assert (await client.post("/run", json=message("hi"))).status_code == 200


async def test_dev_events_stream_reload_results(
    make_client: Callable[..., Any], apps_dir: Path
) -> None:
    watchers = Watchers()
    running = make_client(reload=True, watcher=watchers)
    async with running:
        config = apps_dir / "echo" / "root_agent.yaml"
        received: list[dict[str, Any]] = []
        headers: list[tuple[bytes, bytes]] = []
        enough = asyncio.Event()

        async def receive() -> dict[str, Any]:
            await enough.wait()
            return {"type": "http.disconnect"}

        async def send(msg: dict[str, Any]) -> None:
            if msg["type"] == "http.response.start":
                headers.extend(msg["headers"])
            for chunk in msg.get("body", b"").decode().split("\n\n"):
                if chunk.startswith("data: "):
                    received.append(json.loads(chunk[6:]))
            if len(received) == 3:
                enough.set()

        scope = {
            "type": "http",
            "method": "GET",
            "path": "/dev/events",
            "raw_path": b"/dev/events",
            "query_string": b"",
            "headers": [(b"host", b"testserver")],
            "scheme": "http",
            "http_version": "1.1",
            "root_path": "",
            "client": ("127.0.0.1", 5000),
            "server": ("testserver", 80),
            "asgi": {"version": "3.0"},
        }
        stream = asyncio.create_task(running.app(scope, receive, send))
        while not received:
            await asyncio.sleep(0.01)
        config.write_text(config.read_text() + "colour: red\n")
        watchers.made[0].push(config)
        await reload_now(running.app, "echo")
        config.write_text(config.read_text().replace("colour: red\n", ""))
        watchers.made[0].push(config)
        await reload_now(running.app, "echo")
        await asyncio.wait_for(stream, 5)
        assert not running.app.state.served.apps._subscribers  # the stream let go
    assert (b"content-type", b"text/event-stream; charset=utf-8") in headers
    hello, failed, ok = received
    assert hello == {"type": "hello", "apps": [{"name": "echo", "ok": True}]}
    assert (failed["type"], failed["app"], failed["ok"]) == ("reload", "echo", False)
    assert failed["diagnostics"][0]["rule"] == "unknown-key"
    assert (ok["type"], ok["ok"], ok["files"]) == ("reload", True, ["root_agent.yaml"])
    assert isinstance(ok["ms"], float)


async def test_the_background_watcher_applies_changes_by_itself(
    make_client: Callable[..., Any], apps_dir: Path
) -> None:
    watchers = Watchers()
    running = make_client(reload=True, watcher=watchers)
    async with running as client:
        config = apps_dir / "echo" / "root_agent.yaml"
        config.write_text(config.read_text().replace("Echoes what", "Says what"))
        watchers.made[0].push(config)
        for _ in range(200):
            card = (await client.get("/.well-known/agent-card.json")).json()
            if card["description"] == "Says what it is told.":
                break
            await asyncio.sleep(0.05)
        assert card["description"] == "Says what it is told."


async def test_dev_events_need_reload(client: httpx.AsyncClient) -> None:
    response = await client.get("/dev/events")
    assert (response.status_code, response.json()) == (
        404,
        {"detail": "Reload events need the server started with --reload."},
    )
