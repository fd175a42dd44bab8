"""Fixtures of the web UI tests: a copy of the test agent that a test may edit."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

DESK = Path(__file__).parent / "desk"


@pytest.fixture
def desk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh copy of ``tests/web/desk`` inside a folder of agents (``tmp_path/agents``)."""
    target = tmp_path / "agents" / "desk"
    shutil.copytree(DESK, target, ignore=shutil.ignore_patterns("__pycache__"))
    # Each copy's tools module is imported as `desk.tools` from a folder the loader puts on
    # sys.path: give every test its own sys.path and forget the module afterwards.
    monkeypatch.setattr(sys, "path", list(sys.path))
    _forget_desk_modules()
    yield target
    _forget_desk_modules()


def _forget_desk_modules() -> None:
    for name in [n for n in sys.modules if n == "desk" or n.startswith("desk.")]:
        del sys.modules[name]
