"""CLI test fixtures: the repository's demo configs, golden files, and import isolation."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from yadk.cli import main

REPO = Path(__file__).resolve().parents[2]
CONFIGS = REPO / "configs"
GOLDEN = Path(__file__).resolve().parent / "golden"
# Set YADK_UPDATE_GOLDEN=1 to rewrite golden files from the current output (then review the diff).
UPDATE_GOLDEN = os.environ.get("YADK_UPDATE_GOLDEN") == "1"


def _user_module(module: object, roots: tuple[str, ...]) -> bool:
    locations = [
        getattr(module, "__file__", None) or "",
        *(getattr(module, "__path__", None) or []),
    ]
    return any(str(place).startswith(roots) for place in locations if place)


@pytest.fixture(autouse=True)
def isolated_imports(tmp_path: Path) -> Iterator[None]:
    """Forget the agent modules (tools, callbacks) a test's configs imported, and the sys.path
    entries added for them: agent folders in different tmp_paths reuse package names."""
    modules = set(sys.modules)
    path = list(sys.path)
    yield
    roots = (str(CONFIGS), str(tmp_path))
    for name in set(sys.modules) - modules:
        if _user_module(sys.modules[name], roots):
            del sys.modules[name]
    sys.path[:] = path


@pytest.fixture(autouse=True)
def in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run each test in its own folder, so the default session store (.yadk/) lands there."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


Cli = Callable[..., tuple[int, str, str]]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Cli:
    """``cli("run", ...)`` calls ``main`` and returns (exit code, stdout, stderr)."""

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture
def configs() -> Path:
    return CONFIGS


@pytest.fixture
def golden() -> Callable[[str, str], None]:
    """``golden(name, text)``: ``text`` must equal golden file ``name`` (rewritten instead when
    YADK_UPDATE_GOLDEN=1)."""

    def check(name: str, text: str) -> None:
        path = GOLDEN / name
        if UPDATE_GOLDEN:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        assert text == path.read_text(encoding="utf-8")

    return check
