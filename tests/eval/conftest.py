"""Eval test fixtures: the weather agent folder, import isolation and the CLI runner."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.eval._helpers import AGENT_YAML, SCRIPT_YAML, TOOLS_PY, Cli

from yadk.cli import main


@pytest.fixture
def agent_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "weather"
    folder.mkdir()
    (folder / "root_agent.yaml").write_text(AGENT_YAML)
    (folder / "tools.py").write_text(TOOLS_PY)
    (folder / "scripted.yaml").write_text(SCRIPT_YAML)
    return folder


@pytest.fixture(autouse=True)
def isolated_imports(tmp_path: Path) -> Iterator[None]:
    """Forget the agent modules a test imported: agent folders in different tmp_paths reuse
    module names."""
    modules = set(sys.modules)
    path = list(sys.path)
    yield
    for name in set(sys.modules) - modules:
        where = getattr(sys.modules[name], "__file__", None) or ""
        if where.startswith(str(tmp_path)) or "/configs/" in where:
            del sys.modules[name]
    sys.path[:] = path


@pytest.fixture(autouse=True)
def in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Cli:
    """``cli("eval", ...)`` calls ``main`` and returns (exit code, stdout, stderr)."""

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run
