"""Python agent folders (google-adk's convention): agent.py defining root_agent, for run, inspect
and the dev loop's reload."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from yadk.cli import main
from yadk.config import ConfigError, load_agent

AGENT = '''
from yadk import LlmAgent


def shout(text: str) -> str:
    """Shout the text."""
    return text.upper()


root_agent = LlmAgent(name="{name}", model="gemini-2.5-flash", instruction="{instruction}", tools=[shout])
'''


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)
    path = list(sys.path)
    made = tmp_path / "pyagent"
    made.mkdir()
    (made / "__init__.py").write_text("from . import agent\n")
    (made / "agent.py").write_text(AGENT.format(name="loud", instruction="Be loud."))
    yield made
    sys.path[:] = path
    for name in [n for n in sys.modules if n == "pyagent" or n.startswith("pyagent.")]:
        del sys.modules[name]


def test_load_agent_accepts_a_python_agent_folder(folder: Path) -> None:
    agent = load_agent(folder)
    assert agent.name == "loud"


def test_inspect_and_run(folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", str(folder), "--json"]) == 0
    request = json.loads(capsys.readouterr().out)
    assert request["agent"] == "loud" and [t["name"] for t in request["tools"]] == ["shout"]
    script = tmp_path / "script.yaml"
    script.write_text(
        "turns:\n  - function_calls: [{name: shout, args: {text: hi}}]\n  - text: HI\n"
    )
    assert main(["run", str(folder), "hi", "--model", f"scripted:{script}"]) == 0
    assert "[loud]: HI" in capsys.readouterr().out


def test_a_folder_without_root_agent_says_so(folder: Path) -> None:
    (folder / "agent.py").write_text("x = 1\n")
    with pytest.raises(ConfigError, match="agent.py defines no `root_agent`"):
        load_agent(folder)


def test_the_reload_covers_agent_py(folder: Path) -> None:
    from yadk.reload import AgentReloader

    reloader = AgentReloader(folder)
    assert folder / "agent.py" in reloader.files
    (folder / "agent.py").write_text(AGENT.format(name="quiet", instruction="Whisper."))
    result = reloader.reload({folder / "agent.py"})
    assert result.ok and reloader.agent.name == "quiet"
