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
        assert found["ok"] is False
        unknown_key = next(d for d in found["diagnostics"] if d["rule"] == "unknown-key")
        assert unknown_key["location"] == f"{config}:6:1"
        assert unknown_key["hint"] == "Did you mean `instruction`?"
