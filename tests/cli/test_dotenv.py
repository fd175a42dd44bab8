"""``.env`` loading in yadk run: the agent folder's nearest ``.env``, then the
working directory's; a variable already set is never overridden; only names are reported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from yadk.cli._dotenv import parse_dotenv

pytestmark = pytest.mark.subprocess

ROOT = """\
name: envbot
model: scripted:turns.yaml
instruction: Read the environment.
tools:
  - name: env_tools.read_env
"""
TURNS = "turns:\n  - function_calls: [{name: read_env, args: {}}]\n  - text: Done.\n"
TOOLS = '''\
import os


def read_env() -> dict:
    """The variables under test."""
    return {name: os.environ.get(name) for name in ("ENVBOT_T_A", "ENVBOT_T_B", "ENVBOT_T_C")}
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    agent = tmp_path / "envbot"
    agent.mkdir()
    (agent / "root_agent.yaml").write_text(ROOT)
    (agent / "turns.yaml").write_text(TURNS)
    (agent / "env_tools.py").write_text(TOOLS)
    return tmp_path


def run(cwd: Path, agent: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("ENVBOT_T_", "YADK_DISABLE"))}
    return subprocess.run(
        [sys.executable, "-m", "yadk.cli", "run", agent, "hi", "--json", "--db", ":memory:"],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**clean, **env},
        timeout=60,
        check=False,
    )


def tool_result(out: str) -> dict[str, object]:
    for line in out.splitlines():
        event = json.loads(line)
        for part in (event.get("content") or {}).get("parts") or []:
            if part.get("function_response"):
                result: dict[str, object] = part["function_response"]["response"]
                return result
    raise AssertionError(f"no function response in {out!r}")


def test_agent_folder_first_then_cwd_and_never_values(project: Path) -> None:
    (project / "envbot" / ".env").write_text("ENVBOT_T_A=from-agent-secret\n")
    (project / ".env").write_text("ENVBOT_T_A=from-cwd\nexport ENVBOT_T_B='cwd b'  \n# comment\n")
    done = run(project, "envbot")
    assert done.returncode == 0, done.stderr
    assert tool_result(done.stdout) == {
        "ENVBOT_T_A": "from-agent-secret",
        "ENVBOT_T_B": "cwd b",
        "ENVBOT_T_C": None,
    }
    assert done.stderr.splitlines()[:2] == [
        "yadk run: loaded ENVBOT_T_A from envbot/.env",
        "yadk run: loaded ENVBOT_T_B from .env",
    ]
    assert "secret" not in done.stderr and "cwd b" not in done.stderr


def test_set_variables_are_never_overridden(project: Path) -> None:
    (project / "envbot" / ".env").write_text("ENVBOT_T_A=file\nENVBOT_T_C=file-c\n")
    done = run(project, "envbot", ENVBOT_T_A="shell")
    assert done.returncode == 0, done.stderr
    assert tool_result(done.stdout) == {
        "ENVBOT_T_A": "shell",
        "ENVBOT_T_B": None,
        "ENVBOT_T_C": "file-c",
    }
    assert done.stderr.splitlines()[0] == "yadk run: loaded ENVBOT_T_C from envbot/.env"


def test_nearest_env_found_walking_up_from_the_agent(project: Path, tmp_path: Path) -> None:
    (project / ".env").write_text('ENVBOT_T_A="up\\tone"\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = run(elsewhere, str(project / "envbot"))
    assert done.returncode == 0, done.stderr
    assert tool_result(done.stdout)["ENVBOT_T_A"] == "up\tone"
    assert (
        done.stderr.splitlines()[0]
        == f"yadk run: loaded ENVBOT_T_A from {project.resolve() / '.env'}"
    )


def test_disabled_loads_nothing(project: Path) -> None:
    (project / "envbot" / ".env").write_text("ENVBOT_T_A=file\n")
    done = run(project, "envbot", ADK_DISABLE_LOAD_DOTENV="1")
    assert done.returncode == 0, done.stderr
    assert tool_result(done.stdout)["ENVBOT_T_A"] is None
    assert "loaded" not in done.stderr


def test_parse_dotenv_syntax() -> None:
    text = (
        "A=1\n"
        "export B = two words # note\n"
        "C='lit\\n #x'\n"
        'D="a\\nb \\"q\\""\n'
        "not a line\n"
        "#E=5\n"
        "F=\n"
    )
    assert parse_dotenv(text) == {
        "A": "1",
        "B": "two words",
        "C": "lit\\n #x",
        "D": 'a\nb "q"',
        "F": "",
    }


def test_yadk_dev_loads_it_too(project: Path) -> None:
    (project / "envbot" / ".env").write_text("ENVBOT_T_B=dev-b\n")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("ENVBOT_T_", "YADK_DISABLE"))}
    done = subprocess.run(
        [sys.executable, "-m", "yadk.cli", "dev", "envbot", "--db", ":memory:"],
        cwd=project,
        input="hi\n",
        capture_output=True,
        text=True,
        env=clean,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert '"ENVBOT_T_B": "dev-b"' in done.stdout
    assert done.stderr.splitlines()[0] == "yadk dev: loaded ENVBOT_T_B from envbot/.env"
