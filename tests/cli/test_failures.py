"""A failing tool, callback or model in yadk run: one line naming the exception and the user's
file:line, the traceback with --verbose / YADK_DEBUG=1, and a non-zero exit."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess

ROOT = """\
name: raiser
model: scripted:turns.yaml
instruction: Use the tool.
tools:
  - name: raiser_tools.boom
"""
CALLBACK_ROOT = """\
name: raiser
model: scripted:turns.yaml
instruction: Answer.
before_model_callbacks:
  - name: raiser_tools.guard
"""
TURNS = "turns:\n  - function_calls: [{name: boom, args: {}}]\n  - text: Recovered.\n"
TOOLS = '''\
def boom() -> dict:
    """Fails."""
    return {"x": 1 / 0}


def guard(callback_context, llm_request):
    raise RuntimeError("guard is broken")
'''


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "turns.yaml").write_text(TURNS)
    (tmp_path / "raiser_tools.py").write_text(TOOLS)
    return tmp_path


def yadk(folder: Path, *argv: str, debug: bool = False) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "YADK_DEBUG"}
    if debug:
        env["YADK_DEBUG"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "yadk.cli", *argv],
        cwd=folder,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def test_a_raising_tool_is_one_line_with_its_location_and_the_run_fails(folder: Path) -> None:
    (folder / "root_agent.yaml").write_text(ROOT)
    result = yadk(folder, "run", ".", "go", "--db", ":memory:")
    assert result.returncode == 1
    assert result.stdout.endswith("[raiser]: Recovered.\n")
    assert result.stderr == (
        "yadk run: tool boom raised ZeroDivisionError: division by zero (raiser_tools.py:3)\n"
        "yadk run: a tool or model failed during the run (see above); exit status 1\n"
    )


@pytest.mark.parametrize("how", ["--verbose", "YADK_DEBUG=1"])
def test_verbose_shows_the_traceback_of_the_tool(folder: Path, how: str) -> None:
    (folder / "root_agent.yaml").write_text(ROOT)
    argv = ["--verbose"] if how == "--verbose" else []
    result = yadk(folder, *argv, "run", ".", "go", "--db", ":memory:", debug=how != "--verbose")
    assert result.returncode == 1
    assert "Traceback (most recent call last):" in result.stderr
    assert f'File "{folder / "raiser_tools.py"}", line 3, in boom' in result.stderr
    assert "ZeroDivisionError: division by zero\n" in result.stderr


def test_a_raising_callback_is_named_and_its_traceback_shown_with_verbose(folder: Path) -> None:
    (folder / "root_agent.yaml").write_text(CALLBACK_ROOT)
    quiet = yadk(folder, "run", ".", "go", "--db", ":memory:")
    assert quiet.returncode == 1
    assert "Traceback" not in quiet.stderr
    assert "before_model_callback 'raiser_tools.guard' raised RuntimeError: guard is broken" in (
        quiet.stderr
    )
    verbose = yadk(folder, "--verbose", "run", ".", "go", "--db", ":memory:")
    assert verbose.returncode == 1
    assert f'File "{folder / "raiser_tools.py"}", line 7, in guard' in verbose.stderr
