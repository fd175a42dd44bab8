"""Routes beyond the recorded exchanges: sessions created with events, the agent card of one
app among several, the OpenAPI document, the detailed app list."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from tests.manual_clock import ManualClock
from tests.serve.conftest import HeldSessions, message

S = "/apps/echo/users/u1/sessions"


async def test_a_session_can_start_with_events(client: httpx.AsyncClient) -> None:
    events = [
        {
            "author": "user",
            "invocationId": "e-1",
            "content": {"role": "user", "parts": [{"text": "earlier"}]},
            "nodeInfo": {"path": ""},
        },
        {
            "author": "echo",
            "invocationId": "e-1",
            "content": {"role": "model", "parts": [{"text": "echo: earlier"}]},
            "actions": {"stateDelta": {"seen": True}, "requestedAuthConfigs": {}},
            "nodeInfo": {"path": "echo@1"},
        },
    ]
    created = await client.post(S, json={"sessionId": "s1", "events": events})
    assert created.status_code == 200, created.text
    stored = (await client.get(f"{S}/s1")).json()
    assert [e["content"]["parts"][0]["text"] for e in stored["events"]] == [
        "earlier",
        "echo: earlier",
    ]
    # google-adk's empty path (the event of no node) is sent back as it came.
    assert [e["nodeInfo"] for e in stored["events"]] == [{"path": ""}, {"path": "echo@1"}]
    assert stored["state"] == {"seen": True}


async def test_an_invalid_initial_event_is_422_naming_it(client: httpx.AsyncClient) -> None:
    response = await client.post(S, json={"sessionId": "s1", "events": [{"content": 5}]})
    assert response.status_code == 422
    assert response.json()["detail"].startswith("events[0] is not a valid event: ")
    assert (await client.get(S)).json() == []


async def test_with_several_apps_the_card_is_chosen_with_app(
    make_client: Callable[..., Any], apps_dir: Path
) -> None:
    shutil.copytree(apps_dir / "echo", apps_dir / "echo2")
    # Agent folders cannot share a bare module name: the copy names its own module relatively.
    config = apps_dir / "echo2" / "root_agent.yaml"
    config.write_text(config.read_text().replace("serve_echo.", ".serve_echo."))
    async with make_client() as client:
        several = await client.get("/.well-known/agent-card.json")
        assert (several.status_code, several.json()) == (
            400,
            {"detail": "This server serves several apps; choose one with ?app=NAME (echo, echo2)"},
        )
        card = await client.get("/.well-known/agent-card.json", params={"app": "echo2"})
        assert card.json()["name"] == "echo"
        assert card.json()["url"] == "http://testserver/a2a/echo2"
        unknown = await client.get("/.well-known/agent-card.json", params={"app": "nope"})
        assert unknown.status_code == 404


async def test_the_openapi_document_lists_google_adks_routes(client: httpx.AsyncClient) -> None:
    spec = (await client.get("/openapi.json")).json()
    paths = spec["paths"]
    assert set(paths) >= {
        "/health",
        "/version",
        "/list-apps",
        "/run",
        "/run_sse",
        "/apps/{app_name}/users/{user_id}/sessions",
        "/apps/{app_name}/users/{user_id}/sessions/{session_id}",
        "/apps/{app_name}/users/{user_id}/sessions/{session_id}/artifacts",
        "/apps/{app_name}/users/{user_id}/sessions/{session_id}/artifacts/{artifact_name}",
        "/apps/{app_name}/users/{user_id}/sessions/{session_id}/artifacts/{artifact_name}/versions",
    }
    run = paths["/run"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    schema = spec["components"]["schemas"][run["$ref"].rsplit("/", 1)[1]]
    assert {"appName", "userId", "sessionId", "newMessage", "streaming", "stateDelta"} <= set(
        schema["properties"]
    )
    assert set(paths["/apps/{app_name}/users/{user_id}/sessions/{session_id}"]) == {
        "get",
        "post",
        "patch",
        "delete",
    }


async def test_version_names_yadk(client: httpx.AsyncClient) -> None:
    from yadk import __version__

    data = (await client.get("/version")).json()
    assert (data["version"], data["language"]) == (__version__, "python")


async def test_a_state_patch_waits_for_a_busy_session_too(
    make_client: Callable[..., Any],
) -> None:
    sessions = HeldSessions()
    clock = ManualClock()
    app = make_client(busy_wait=0.2, session_service=sessions)
    app.app.state.served.locks.clock = clock
    async with app as client:
        await client.post(S, json={"sessionId": "s1"})
        running = asyncio.create_task(client.post("/run", json=message("hold")))
        await sessions.holding.wait()
        patch = asyncio.create_task(client.patch(f"{S}/s1", json={"stateDelta": {"k": 1}}))
        await clock.waiting()
        clock.advance(0.2)
        busy = await patch
        assert busy.status_code == 409
        sessions.go.set()
        await running
        done = await client.patch(f"{S}/s1", json={"stateDelta": {"k": 2}})
        assert done.json()["state"] == {"k": 2}


def test_turns_are_the_first_routes_matched(make_client: Callable[..., Any]) -> None:
    """Routes are tried one pattern after another: /run and /run_sse, the requests that come
    most often, are tried first, not after every other pattern."""
    from starlette.routing import Match

    app = make_client().app
    docs = {"/openapi.json", "/docs"}  # the API's description, one each
    routes = [route for route in app.router.routes if getattr(route, "path", None) not in docs]
    for path in ("/run", "/run_sse"):
        scope = {"type": "http", "method": "POST", "path": path, "root_path": "", "app": app}
        matched = [route.matches(scope)[0] for route in routes]
        assert matched.index(Match.FULL) == 0, path


async def test_the_session_store_is_prepared_before_the_first_request(
    make_client: Callable[..., Any], tmp_path: Path
) -> None:
    from yadk.sessions import SqliteSessionService

    calls: list[str] = []

    class Recording(SqliteSessionService):
        async def prepare(self) -> None:
            calls.append("prepare")
            await super().prepare()

        async def get_session(self, **options: Any) -> Any:
            calls.append("read")
            return await super().get_session(**options)

    store = Recording(tmp_path / "sessions.db")
    async with make_client(session_service=store) as client:
        assert calls == ["prepare"]
        assert (await client.post(S, json={"sessionId": "s1"})).status_code == 200
        assert (await client.get(f"{S}/s1")).status_code == 200
    assert calls[:2] == ["prepare", "read"]
    await store.aclose()


async def test_docs_work_offline(make_client: Callable[..., Any]) -> None:
    async with make_client() as client:
        page = await client.get("/docs")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        html = page.text
        assert "<script" not in html and "cdn" not in html.lower() and "http" not in html
        assert '<td class="m">post</td><td><code>/run_sse</code></td>' in html
        assert "<a href='openapi.json'>openapi.json</a>" in html
        assert (await client.get("/redoc")).status_code == 404
        assert (await client.get("/openapi.json")).json()["info"]["title"] == "yadk"


async def test_the_apps_runners_take_their_turns_under_the_served_locks(
    make_client: Callable[..., Any],
) -> None:
    clock = ManualClock()
    app = make_client(busy_wait=0.2)
    served = app.app.state.served
    served.locks.clock = clock
    runner = served.apps.by_name["echo"].runner
    assert runner.locks is served.locks
    async with app as client:
        await client.post(S, json={"sessionId": "s1"})
        async with runner.turn("u1", "s1"):  # a turn held through the runner's own API
            patch = asyncio.create_task(client.patch(f"{S}/s1", json={"stateDelta": {"k": 1}}))
            await clock.waiting()
            clock.advance(0.2)
            assert (await patch).status_code == 409
        done = await client.patch(f"{S}/s1", json={"stateDelta": {"k": 2}})
        assert done.json()["state"] == {"k": 2}
