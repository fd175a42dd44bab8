"""Config-tree fixtures: agent folders written into tmp_path, and import isolation between tests.

Tests name their agent folders alike (``my_agent``), so modules imported from one test's folder
are forgotten after it, and ``sys.path`` is restored.
"""

from __future__ import annotations

import importlib
import os
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

WriteTree = Callable[..., Path]


def _forget_modules_under(folder: Path) -> None:
    prefixes = (str(folder), os.path.realpath(folder))
    for name, module in list(sys.modules.items()):
        locations = [getattr(module, "__file__", None) or "", *getattr(module, "__path__", [])]
        if any(isinstance(loc, str) and loc.startswith(prefixes) for loc in locations if loc):
            del sys.modules[name]
    importlib.invalidate_caches()


@pytest.fixture(autouse=True)
def _isolate_imports(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    # Any test's temporary agent folders (this one's, or another suite's) must not leave
    # modules behind that a later test with the same folder name would import instead.
    temp_root = tmp_path_factory.getbasetemp()
    _forget_modules_under(temp_root)
    # ... nor sys.path entries into their folders (a test elsewhere may have left one).
    prefixes = (str(temp_root), os.path.realpath(temp_root))
    sys.path[:] = [entry for entry in sys.path if not entry.startswith(prefixes)]
    path = list(sys.path)
    yield
    sys.path[:] = path
    _forget_modules_under(temp_root)


@pytest.fixture
def write_tree(tmp_path: Path) -> WriteTree:
    """``write_tree({"my_agent/root_agent.yaml": "...", ...})`` writes dedented files under
    tmp_path and returns tmp_path."""

    def write(files: dict[str, str]) -> Path:
        for name, text in files.items():
            target = tmp_path / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return tmp_path

    return write
