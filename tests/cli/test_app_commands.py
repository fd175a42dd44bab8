"""Every command that runs a folder runs its App, declared either way: app.yaml beside
root_agent.yaml, or ``app = App(...)`` in a Python agent's agent.py. The App's plugin answers
each model call itself, so a reply shows the App was used (a bare root agent would answer from
its script instead)."""

from __future__ import annotations

import io
import json
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.cli.conftest import Cli

from yadk.sessions import InMemorySessionService

CANNED = "Answered by the app's plugin."
SCRIPTED = "Answered by the model."

PLUGIN = f"""
from yadk.apps import BasePlugin
from yadk.models import LlmResponse
from yadk.types import ModelContent


class Canned(BasePlugin):
    def __init__(self) -> None:
        super().__init__(name="canned")

    async def before_model_callback(self, *, callback_context, llm_request):
        return LlmResponse(content=ModelContent({CANNED!r}))
"""

AGENT_PY = f"""
from yadk import LlmAgent
from yadk.apps import App
from yadk.models import ScriptedModel

from .plugins import Canned

root_agent = LlmAgent(
    name="helper", model=ScriptedModel(turns=[{{"text": {SCRIPTED!r}, "repeat": True}}])
)
app = App(name="shop", root_agent=root_agent, plugins=[Canned()])
"""


def _folder(tmp_path: Path, how: str) -> Path:
    """``tmp_path/agents/shop``: an app declared in app.yaml ("yaml") or agent.py ("python")."""
    folder = tmp_path / "agents" / "shop"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("", encoding="utf-8")
    (folder / "plugins.py").write_text(PLUGIN, encoding="utf-8")
    if how == "yaml":
        (folder / "root_agent.yaml").write_text(
            "name: helper\nmodel: scripted:turns.yaml\ninstruction: Help.\n", encoding="utf-8"
        )
        (folder / "turns.yaml").write_text(
            f"turns:\n  - text: {SCRIPTED}\n    repeat: true\n", encoding="utf-8"
        )
        (folder / "app.yaml").write_text(
            "name: shop\nplugins:\n  - name: shop.plugins.Canned\n", encoding="utf-8"
        )
    else:
        (folder / "agent.py").write_text(AGENT_PY, encoding="utf-8")
    return folder


HOW = ["yaml", "python"]


@pytest.mark.parametrize("how", HOW)
def test_run(cli: Cli, tmp_path: Path, how: str) -> None:
    folder = _folder(tmp_path, how)
    code, out, err = cli("run", str(folder), "hi", "--db", str(tmp_path / "s.db"))
    assert code == 0, err
    assert out == f"[user]: hi\n[helper]: {CANNED}\n"


@pytest.mark.parametrize("how", HOW)
def test_dev(cli: Cli, tmp_path: Path, how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _folder(tmp_path, how)
    monkeypatch.setattr(sys, "stdin", io.StringIO("hi\n"))
    code, out, err = cli("dev", str(folder), "--db", str(tmp_path / "s.db"))
    assert code == 0, err
    assert out == f"[user]: hi\n[helper]: {CANNED}\n"


@pytest.mark.parametrize("how", HOW)
def test_eval(cli: Cli, tmp_path: Path, how: str) -> None:
    folder = _folder(tmp_path, how)
    cases = folder / "canned.test.json"
    cases.write_text(
        json.dumps([{"query": "hi", "expected_tool_use": [], "reference": CANNED}]),
        encoding="utf-8",
    )
    code, out, err = cli("eval", str(folder), str(cases))
    assert code == 0, out + err
    # The plugin's answer matches the reference word for word (the script's would not pass).
    assert "PASS  canned.test.json" in out and "response_match_score 1 >= 0.8" in out


async def _run_over_http(app: Any, app_name: str) -> list[dict[str, Any]]:
    # yadk serve's app runs its lifespan; yadk web's wraps it in the host guard, which does
    # not need one for this.
    lifespan = app.router.lifespan_context(app) if hasattr(app, "router") else nullcontext()
    async with lifespan:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://127.0.0.1:8000"
        ) as client:
            created = await client.post(
                f"/apps/{app_name}/users/u/sessions", json={"sessionId": "s"}
            )
            assert created.status_code == 200, created.text
            message = {"role": "user", "parts": [{"text": "hi"}]}
            answer = await client.post(
                "/run",
                json={
                    "appName": app_name,
                    "userId": "u",
                    "sessionId": "s",
                    "newMessage": message,
                },
            )
            assert answer.status_code == 200, answer.text
            events: list[dict[str, Any]] = answer.json()
            return events


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("command", ["serve", "web"])
async def test_serve_and_web(tmp_path: Path, how: str, command: str) -> None:
    from yadk.serve import create_app
    from yadk.serve._webapp import create_web_app

    folder = _folder(tmp_path, how)
    sessions = InMemorySessionService()
    if command == "serve":
        app = create_app(folder.parent, session_service=sessions)
    else:
        app = create_web_app(folder.parent, host="127.0.0.1", port=8000, session_service=sessions)
    events = await _run_over_http(app, "shop")
    texts = [p.get("text") for e in events for p in (e.get("content") or {}).get("parts", [])]
    assert texts == [CANNED]
