"""yadk._lazy.lazy_facade: the package facades load their names on first use, and only then."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import types
from pathlib import Path

import pytest

from yadk._lazy import lazy_facade
from yadk.config._source import top_level

FACADES = [
    "yadk",
    "yadk.artifacts",
    "yadk.eval",
    "yadk.examples",
    "yadk.memory",
    "yadk.reload",
    "yadk.sessions",
    "yadk.skills",
    "yadk.templating",
    "yadk.tools",
]


def _package(names: dict[str, str]) -> types.ModuleType:
    module = types.ModuleType("pkg")
    module.__all__ = sorted(names)  # type: ignore[attr-defined]
    module.__getattr__, module.__dir__ = lazy_facade(vars(module), names)  # type: ignore[method-assign]
    return module


def test_a_name_is_imported_on_first_use_and_then_cached() -> None:
    module = _package({"dedent": "textwrap", "JSONDecoder": "json"})
    assert "dedent" not in vars(module)
    import textwrap

    assert module.dedent is textwrap.dedent
    assert vars(module)["dedent"] is textwrap.dedent  # later lookups skip __getattr__


def test_unknown_names_and_dir() -> None:
    module = _package({"dedent": "textwrap"})
    with pytest.raises(AttributeError, match="^module 'pkg' has no attribute 'nope'$"):
        _ = module.nope
    assert {"dedent", "__all__"} <= set(dir(module))
    assert dir(module) == sorted(dir(module))


@pytest.mark.parametrize("name", FACADES)
@pytest.mark.subprocess
def test_importing_a_facade_imports_none_of_its_modules(name: str) -> None:
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        f"import {name} as package\n"
        "added = set(sys.modules) - before\n"
        "cheap = {package.__name__, 'yadk._lazy', 'yadk.errors'}\n"
        "print(sorted(m for m in added if m.startswith('yadk.') and m not in cheap))\n"
        "print(sorted(set(package.__all__) - set(dir(package))))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout == "[]\n[]\n"


@pytest.mark.parametrize("name", FACADES)
def test_validate_still_reads_a_facade_statically(name: str) -> None:
    """`yadk validate` checks `yadk.tools.FunctionTool` without importing: every public name of
    a facade is visible to its static reader (the TYPE_CHECKING imports)."""
    package = importlib.import_module(name)
    assert package.__file__ is not None
    names = top_level(ast.parse(Path(package.__file__).read_text(encoding="utf-8")).body)
    assert names is not None
    assert sorted(set(package.__all__) - set(names)) == []
