"""Agent folders laid out as google-adk lays them out (``agent.py`` with an ``__init__.py`` doing
``from . import agent``; a package ``__init__.py`` defining ``root_agent``; ``app = ...``),
written with google-adk's imports, run by ``yadk run``, ``inspect``, ``validate`` and served."""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from yadk.adk_compat import disable, enable
from yadk.cli import main
from yadk.config import load_agent, validate_paths
from yadk.sessions import InMemorySessionService

AGENT = '''
import os

from google.adk.agents import Agent
from google.adk.tools.tool_context import ToolContext


def remember(city: str, tool_context: ToolContext) -> dict:
    """Remembers the user's city."""
    tool_context.state["city"] = city
    return {{"status": "ok"}}


root_agent = Agent(
    name="{name}",
    model=os.environ.get("COMPAT_MODEL", "gemini-2.5-flash"),
    instruction="Help with travel.",
    tools=[remember],
)
'''

SCRIPT = "turns:\n  - function_calls: [{name: remember, args: {city: Porto}}]\n  - text: Noted.\n"


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.chdir(tmp_path)
    path = list(sys.path)
    yield
    disable()
    enable()
    sys.path[:] = path
    for name, module in list(sys.modules.items()):
        places = [getattr(module, "__file__", None) or "", *getattr(module, "__path__", [])]
        if any(str(place).startswith(str(tmp_path)) for place in places):
            del sys.modules[name]


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")


def test_agent_py_with_an_init_importing_it_runs_and_inspects(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(
        tmp_path,
        {
            "travel/__init__.py": "from . import agent\n",
            "travel/agent.py": AGENT.format(name="travel"),
            "script.yaml": SCRIPT,
        },
    )
    assert validate_paths([tmp_path / "travel"]) == []
    assert main(["inspect", "travel", "--json"]) == 0
    request = json.loads(capsys.readouterr().out)
    assert (request["agent"], [t["name"] for t in request["tools"]]) == ("travel", ["remember"])
    assert main(["run", "travel", "I live in Porto", "--model", "scripted:script.yaml"]) == 0
    out = capsys.readouterr().out
    assert "[travel]: Noted." in out


def test_a_package_init_defining_root_agent(tmp_path: Path) -> None:
    write(tmp_path, {"travel/__init__.py": AGENT.format(name="from_init")})
    assert load_agent(tmp_path / "travel").name == "from_init"


def test_an_app_is_looked_for_before_root_agent(tmp_path: Path) -> None:
    app = AGENT.format(name="inner") + (
        "\n\nclass Holder:\n    def __init__(self, name, root_agent):\n"
        "        self.name, self.root_agent = name, root_agent\n\n\n"
        'app = Holder(name="travel", root_agent=root_agent)\n'
        "del root_agent\n"
    )
    write(tmp_path, {"travel/__init__.py": app})
    assert validate_paths([tmp_path / "travel"]) == []
    assert load_agent(tmp_path / "travel").name == "inner"


async def test_a_folder_of_google_adk_agents_is_served(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from yadk.serve import create_app

    write(
        tmp_path,
        {
            "apps/travel/__init__.py": "from . import agent\n",
            "apps/travel/agent.py": AGENT.format(name="travel"),
            "apps/hotel/__init__.py": AGENT.format(name="hotel"),
            "script.yaml": SCRIPT,
        },
    )
    monkeypatch.setenv("COMPAT_MODEL", f"scripted:{tmp_path / 'script.yaml'}")
    app = create_app(tmp_path / "apps", session_service=InMemorySessionService())
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            assert (await client.get("/list-apps")).json() == ["hotel", "travel"]
            created = await client.post("/apps/travel/users/u/sessions", json={})
            session = created.json()["id"]
            body = {
                "app_name": "travel",
                "user_id": "u",
                "session_id": session,
                "new_message": {"role": "user", "parts": [{"text": "Porto"}]},
            }
            events = (await client.post("/run", json=body)).json()
            assert events[-1]["content"]["parts"][0]["text"] == "Noted."
            stored = await client.get(f"/apps/travel/users/u/sessions/{session}")
            assert stored.json()["state"] == {"city": "Porto"}


async def test_the_docs_example_runs(tmp_path: Path) -> None:
    """docs/adk_compat.md's example agent, as written there."""
    from yadk import Runner
    from yadk.models import ScriptedModel

    doc = (Path(__file__).parents[2] / "docs" / "adk_compat.md").read_text()
    section = doc[doc.index("## Agent code written for google-adk") :]
    start = section.index("```python\n") + len("```python\n")
    code = section[start : section.index("\n```", start)]
    write(tmp_path, {"travel/agent.py": code})
    agent = load_agent(tmp_path / "travel")
    assert agent.generate_content_config == {"temperature": 0.2}  # type: ignore[attr-defined]
    agent.model = ScriptedModel(  # type: ignore[attr-defined]
        turns=[
            {"function_calls": [{"name": "remember", "args": {"city": "Porto"}}]},
            {"text": "Ok"},
        ]
    )
    runner = Runner(app_name="app", agent=agent)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    texts = [
        e.text
        async for e in runner.run_async(user_id="u", session_id=session.id, new_message="Porto")
    ]
    assert texts[-1] == "Ok"
    closed = await runner.session_service.create_session(
        app_name="app", user_id="u", state={"closed": True}
    )
    texts = [
        e.text async for e in runner.run_async(user_id="u", session_id=closed.id, new_message="hi")
    ]
    assert texts[-1] == "We are closed."


def test_yadk_eval_runs_an_eval_set_against_a_google_adk_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = {
        "eval_set_id": "travel",
        "eval_cases": [
            {
                "eval_id": "porto",
                "conversation": [
                    {
                        "user_content": {"role": "user", "parts": [{"text": "I live in Porto"}]},
                        "final_response": {"role": "model", "parts": [{"text": "Noted."}]},
                        "intermediate_data": {
                            "tool_uses": [{"name": "remember", "args": {"city": "Porto"}}]
                        },
                    }
                ],
            }
        ],
    }
    write(
        tmp_path,
        {
            "travel/__init__.py": "from . import agent\n",
            "travel/agent.py": AGENT.format(name="travel"),
            "script.yaml": SCRIPT,
            "travel.evalset.json": json.dumps(case),
        },
    )
    code = main(["eval", "travel", "travel.evalset.json", "--model", "scripted:script.yaml"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "PASS  porto" in out
