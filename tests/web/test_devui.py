"""The page's own routes, in process: the assets, and the /dev data of a served app."""

from __future__ import annotations

from pathlib import Path

import httpx

from yadk.serve._webapp import create_web_app
from yadk.sessions import InMemorySessionService


def _client(path: Path) -> httpx.AsyncClient:
    app = create_web_app(
        path, host="127.0.0.1", port=8000, session_service=InMemorySessionService()
    )
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:8000"
    )


async def test_the_page_and_its_assets(desk: Path) -> None:
    async with _client(desk.parent) as client:
        page = await client.get("/")
        assert page.status_code == 200
        assert page.headers["content-type"] == "text/html; charset=utf-8"
        assert "script-src 'self'" in page.headers["content-security-policy"]
        assert '<script type="module" src="/web/app.js">' in page.text
        script = await client.get("/web/app.js")
        assert script.headers["content-type"] == "text/javascript; charset=utf-8"
        assert (await client.get("/web/style.css")).headers["content-type"].startswith("text/css")
        # Only the listed files: nothing else under /web, and no path is taken from the URL.
        assert (await client.get("/web/../_devui.py")).status_code == 404
        assert (await client.get("/web/missing.js")).status_code == 404


async def test_dev_data_of_a_served_app(desk: Path) -> None:
    async with _client(desk.parent) as client:
        agent = (await client.get("/dev/apps/desk/agent")).json()
        assert agent["root"]["name"] == "desk"
        assert agent["root"]["skills"][0]["name"] == "greeting"
        assert (await client.get("/dev/apps/desk/diagnostics")).json() == {
            "app": "desk",
            "ok": True,
            "loaded": True,
            "diagnostics": [],
        }
        session = (await client.post("/apps/desk/users/u/sessions", json={})).json()["id"]
        requests = f"/dev/apps/desk/users/u/sessions/{session}/requests"
        assert (await client.get(requests)).json() == {"invocations": []}
        missing = await client.get(f"{requests}/e-nothing")
        assert missing.status_code == 404
        unknown = await client.get("/dev/apps/nope/agent")
        assert (unknown.status_code, unknown.json()) == (404, {"detail": "App not found: 'nope'"})


async def test_an_app_that_did_not_load_shows_its_located_diagnostics(desk: Path) -> None:
    config = desk / "root_agent.yaml"
    config.write_text(config.read_text().replace("\ninstruction: ", "\ninstructions: "))
    async with _client(desk.parent) as client:
        agent = await client.get("/dev/apps/desk/agent")
        assert agent.status_code == 503
        found = (await client.get("/dev/apps/desk/diagnostics")).json()
        assert (found["ok"], found["loaded"]) == (False, False)
        unknown_key = next(d for d in found["diagnostics"] if d["rule"] == "unknown-key")
        # Named relative to the served folder (the path itself stays absolute).
        assert unknown_key["location"] == "desk/root_agent.yaml:6:1"
        assert unknown_key["path"] == str(config)
        assert unknown_key["hint"] == "Did you mean `instruction`?"


async def test_open_answers_the_apps_the_sessions_and_the_newest_session(desk: Path) -> None:
    async with _client(desk.parent) as client:
        empty = (await client.get("/dev/open", params={"user": "ada"})).json()
        assert empty == {"apps": ["desk"], "app": "desk", "sessions": [], "session": None}
        older = (await client.post("/apps/desk/users/ada/sessions", json={"sessionId": "a"})).json()
        await client.post(
            "/apps/desk/users/ada/sessions",
            json={"sessionId": "b", "events": [{"author": "user", "invocationId": "e-1"}]},
        )
        opened = (await client.get("/dev/open", params={"app": "nope", "user": "ada"})).json()
        assert opened["app"] == "desk"  # an app that is not served: the first one
        assert [s["id"] for s in opened["sessions"]] == ["b", "a"]  # newest first
        assert opened["sessions"][1] == older
        assert opened["session"]["id"] == "b"
        assert [e["invocationId"] for e in opened["session"]["events"]] == ["e-1"]


async def test_export_is_the_document_of_yadk_sessions_export(desk: Path) -> None:
    from yadk.sessions._export import export_document

    service = InMemorySessionService()
    app = create_web_app(desk.parent, host="127.0.0.1", port=8000, session_service=service)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as client:
        created = await client.post(
            "/apps/desk/users/u/sessions",
            json={"sessionId": "s 1", "state": {"visitor": "Ada", "user:tier": "gold"}},
        )
        assert created.status_code == 200
        answer = await client.get("/dev/apps/desk/users/u/sessions/s%201/export")
        assert answer.status_code == 200
        assert answer.headers["content-disposition"] == 'attachment; filename="desk-s_1.json"'
        session = await service.get_session(app_name="desk", user_id="u", session_id="s 1")
        assert session is not None
        assert answer.json() == export_document(session)
        assert answer.json()["state"] == {
            "session": {"visitor": "Ada"},
            "user": {"tier": "gold"},
            "app": {},
        }
        missing = await client.get("/dev/apps/desk/users/u/sessions/nope/export")
        assert (missing.status_code, missing.json()) == (404, {"detail": "Session not found"})
        unknown = await client.get("/dev/apps/nope/users/u/sessions/s%201/evalcase")
        assert (unknown.status_code, unknown.json()) == (404, {"detail": "App not found: 'nope'"})
        no_turn = await client.get("/dev/apps/desk/users/u/sessions/s%201/evalcase")
        assert no_turn.status_code == 409
        assert "no user turn yet" in no_turn.json()["detail"]


async def test_usage_is_the_sessions_usage_as_yadk_sessions_show_counts_it(desk: Path) -> None:
    from yadk._usage import session_usage, usage_lines
    from yadk.events import Event

    service = InMemorySessionService()
    app = create_web_app(desk.parent, host="127.0.0.1", port=8000, session_service=service)
    transport = httpx.ASGITransport(app=app)
    reported = {"prompt_token_count": 70, "candidates_token_count": 30, "total_token_count": 100}
    record = {"input_tokens": 40, "output_tokens": 5, "estimated": True, "cost": 0.25}
    session = await service.create_session(app_name="desk", user_id="u", session_id="s")
    for event in [
        Event(author="user", invocation_id="e-1"),
        Event(author="desk", invocation_id="e-1", usage_metadata=reported),
        Event(author="user", invocation_id="e-2"),
        Event(author="desk", invocation_id="e-2", custom_metadata={"yadk_usage": record}),
    ]:
        await service.append_event(session, event)
    await service.create_session(app_name="desk", user_id="u", session_id="empty")
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as client:
        answer = (await client.get("/dev/apps/desk/users/u/sessions/s/usage")).json()
        counted = session_usage(session.events)
        assert answer == {**counted.to_dict(), "lines": usage_lines(counted)}
        assert (answer["total_tokens"], answer["cost"], answer["estimated"]) == (145, 0.25, True)
        assert [i["invocation_id"] for i in answer["invocations"]] == ["e-1", "e-2"]
        assert answer["lines"][0] == (
            "session: 145 tokens (110 in, 35 out), cost 0.25 (estimated in part)"
        )
        empty = (await client.get("/dev/apps/desk/users/u/sessions/empty/usage")).json()
        assert empty["invocations"] == []
        assert empty["lines"][0].startswith("no token usage in this session yet")
        missing = await client.get("/dev/apps/desk/users/u/sessions/nope/usage")
        assert missing.status_code == 404
