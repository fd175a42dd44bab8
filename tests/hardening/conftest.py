"""Hardening test fixtures: each test's agent modules and sys.path entries are forgotten after
it, since agent folders in different tmp_paths reuse package names (``my_agent``)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated_imports(tmp_path: Path) -> Iterator[None]:
    modules = set(sys.modules)
    path = list(sys.path)
    yield
    root = str(tmp_path)
    for name in set(sys.modules) - modules:
        file = getattr(sys.modules[name], "__file__", None) or ""
        if file.startswith(root) or name.split(".")[0] == "my_agent":
            del sys.modules[name]
    sys.path[:] = path
