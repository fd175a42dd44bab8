"""Imports across packages point down the layers drawn in ARCHITECTURE.md ("Layers").

Every import in src/yadk (at module level or inside a function; names a lazy facade loads count
too) is read with ``ast``; type-only imports (under ``if TYPE_CHECKING:``) are left out, as they
never run. An import from a lower layer to a higher one is a violation, unless it is listed in
``KNOWN`` with the reason it stays: that list may only shrink.

Packages also reach each other only through facades (``yadk.sessions``, never
``yadk.sessions._pg``), type-only imports included: a private module may be split, renamed or
merged without a look outside its package. Top-level private modules (``yadk._yaml``) are the
shared bottom layers and anyone may import them. A name a facade offers outside ``__all__`` is
for yadk's own packages, so some other package imports it.

Imports of yadk's own modules inside functions are counted, and the count may only go down.
"""

from __future__ import annotations

import ast
import functools
import importlib
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "yadk"

# Bottom to top, as ARCHITECTURE.md draws them; modules of one layer may import each other.
# Top-level private modules are placed where their imports put them.
LAYERS: list[set[str]] = [
    {
        "types",
        "errors",
        "_yaml",
        "_files",
        "_lazy",
        "_bm25",
        "_docx",
        "_secrets",
        "_version",
        "_paths",
        "_case",
        "_tool_confirmation",
        "_telemetry_config",
        "_sealed",
    },
    {"_tracing"},
    {"_blocked_modules"},
    {"_model_names", "_script_format", "_graph_shape"},
    {"sessions", "artifacts", "events", "_compacted"},
    {"models"},
    {"_contexts", "_usage", "_plugin_manager", "_resume"},
    {"templating"},
    {"memory"},
    {"tools", "code_executors"},
    {"examples", "skills"},
    {"agents"},
    {"workflow"},
    {"a2a"},
    {"telemetry"},
    {"runner", "stores"},
    {"apps"},
    {"adk_compat"},
    {"config"},
    {"reload"},
    {"eval"},
    {"serve"},
    {"cli", "testing"},
    {"__init__", "__main__"},
]
LEVEL = {name: level for level, names in enumerate(LAYERS) for name in names}

# (importing package, imported package): why the edge stays. Shrink only.
KNOWN: dict[tuple[str, str], str] = {
    ("tools", "examples"): "yadk.tools names ExampleTool (public contract), loaded on first use",
}


def _package(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "yadk":
        return None
    return parts[1] if len(parts) > 1 else "__init__"


def _own_package(file: Path) -> str:
    relative = file.relative_to(SRC).with_suffix("")
    return relative.parts[0]


_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")


def _statements(nodes: list[ast.AST], *, type_only: bool = False) -> Iterator[ast.AST]:
    """Every statement in ``nodes`` and in the blocks they hold (imports are statements, so
    expressions need no visit), leaving out the body of an ``if TYPE_CHECKING:`` unless
    ``type_only``."""
    for node in nodes:
        yield node
        for name in _BODIES:
            if (
                not type_only
                and name == "body"
                and isinstance(node, ast.If)
                and "TYPE_CHECKING" in ast.unparse(node.test)
            ):
                continue  # type-only imports never run
            yield from _statements(getattr(node, name, None) or [], type_only=type_only)


def _imports(file: Path, *, type_only: bool = False) -> list[tuple[int, str]]:
    """(line, imported module) for each import in ``file`` that may run (with ``type_only``,
    those under ``if TYPE_CHECKING:`` too); ``from m import n`` gives both ``m`` and ``m.n``."""
    tree = ast.parse(file.read_text(encoding="utf-8"))
    found: list[tuple[int, str]] = []
    package = ".".join(("yadk", *file.relative_to(SRC).with_suffix("").parts[:-1]))
    for node in _statements(tree.body, type_only=type_only):
        if isinstance(node, (ast.Assign, ast.Expr)) and isinstance(node.value, ast.Call):
            node = node.value  # a lazy facade: `__getattr__, __dir__ = lazy_facade(...)`
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            if base != "yadk":  # `from yadk import _yaml` imports the names, not the facade
                found.append((node.lineno, base))
            found.extend((node.lineno, f"{base}.{alias.name}") for alias in node.names)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "lazy_facade":
            for arg in node.args:
                if isinstance(arg, ast.Dict):
                    found.extend(
                        (node.lineno, value.value)
                        for value in arg.values
                        if isinstance(value, ast.Constant) and isinstance(value.value, str)
                    )
    return found


@functools.cache  # the tests only read it
def _edges() -> dict[tuple[str, str], list[str]]:
    edges: dict[tuple[str, str], list[str]] = {}
    for file in sorted(SRC.rglob("*.py")):
        own = _own_package(file)
        for line, module in _imports(file):
            target = _package(module)
            if target is None or target == own:
                continue
            edges.setdefault((own, target), []).append(f"{file.relative_to(SRC)}:{line}")
    return edges


def test_every_package_has_a_layer() -> None:
    packages = {_own_package(f) for f in SRC.rglob("*.py")}
    assert sorted(packages - LEVEL.keys()) == []


def test_imports_point_down_the_layers() -> None:
    upward = {
        (own, target): where
        for (own, target), where in _edges().items()
        if target in LEVEL and LEVEL[target] > LEVEL[own]
    }
    unexplained = {edge: where for edge, where in upward.items() if edge not in KNOWN}
    assert unexplained == {}
    # A known exception that no longer happens is taken off the list.
    assert sorted(set(KNOWN) - set(upward)) == []


def test_the_known_exceptions_are_what_the_code_does() -> None:
    edges = _edges()
    assert [edges[("tools", "examples")]] == [["tools/__init__.py:62"]]


def _private_part(module: str) -> str | None:
    """``module`` up to its first private part below a package (``yadk.sessions._pg`` for
    ``yadk.sessions._pg.PgDatabase``), or None for a facade, a public module or a top-level
    ``yadk._x``."""
    parts = module.split(".")
    for end in range(3, len(parts) + 1):
        if parts[end - 1].startswith("_") and not parts[end - 1].startswith("__"):
            return ".".join(parts[:end])
    return None


def test_packages_import_each_other_through_facades() -> None:
    reaching_in = set()
    for file in sorted(SRC.rglob("*.py")):
        own = _own_package(file)
        for line, module in _imports(file, type_only=True):
            private = _private_part(module)
            if private is not None and _package(private) != own:
                reaching_in.add(f"{file.relative_to(SRC)}:{line} imports {private}")
    assert sorted(reaching_in) == []


def _offered_outside_all(facade: Path) -> set[str]:
    """The names a facade offers besides its ``__all__``: its lazy table's keys and its
    ``from m import name as name`` re-exports (type-only ones included)."""
    tree = ast.parse(facade.read_text(encoding="utf-8"))
    offered: set[str] = set()
    public: set[str] = set()
    for node in _statements(tree.body, type_only=True):
        if isinstance(node, ast.ImportFrom):
            offered.update(alias.name for alias in node.names if alias.asname == alias.name)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            if getattr(node.value.func, "id", None) == "lazy_facade":
                for arg in node.value.args:
                    if isinstance(arg, ast.Dict):
                        offered.update(
                            key.value for key in arg.keys if isinstance(key, ast.Constant)
                        )
        if isinstance(node, ast.Assign) and any(
            getattr(target, "id", None) == "__all__" for target in node.targets
        ):
            public.update(ast.literal_eval(node.value))
    return offered - public


def test_a_facade_offers_outside_its_contract_only_what_other_packages_import() -> None:
    imported: set[str] = set()
    for file in sorted(SRC.rglob("*.py")):
        own = _own_package(file)
        imported.update(
            module
            for _, module in _imports(file, type_only=True)
            if _package(module) not in (None, own)
        )
    unused = {
        f"{'.'.join(('yadk', *facade.parent.relative_to(SRC).parts))}.{name}"
        for facade in sorted(SRC.rglob("__init__.py"))
        if facade.parent != SRC
        for name in _offered_outside_all(facade)
    } - imported
    assert sorted(unused) == []


def test_every_name_a_facade_offers_outside_its_contract_resolves() -> None:
    # A lazy table's entries are strings: a wrong module shows only when the name is used.
    missing = [
        f"{module}.{name}"
        for facade in sorted(SRC.rglob("__init__.py"))
        if facade.parent != SRC
        for module in [".".join(("yadk", *facade.parent.relative_to(SRC).parts))]
        for name in sorted(_offered_outside_all(facade))
        if not hasattr(importlib.import_module(module), name)
    ]
    assert missing == []


# Imports of yadk's own modules inside functions: each hides an edge of the import graph from
# tools that read module tops. The ones left keep a heavy module off a command's start (e.g.
# the engine off `yadk validate`, OpenTelemetry off an untraced `yadk run`) or break a cycle,
# and each module says why once. This number may only go down.
MAX_FUNCTION_LEVEL_IMPORTS = 150


def _function_level_own_imports(file: Path) -> list[int]:
    """The lines of ``file``'s imports of yadk modules made inside a function."""
    found: list[int] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if in_function and isinstance(child, ast.ImportFrom):
                if child.level or (child.module or "").split(".")[0] == "yadk":
                    found.append(child.lineno)
            elif in_function and isinstance(child, ast.Import):
                if any(alias.name.split(".")[0] == "yadk" for alias in child.names):
                    found.append(child.lineno)
            visit(child, in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef))

    visit(ast.parse(file.read_text(encoding="utf-8")), False)
    return found


def test_imports_of_yadk_modules_inside_functions_do_not_grow() -> None:
    found = [
        f"{file.relative_to(SRC)}:{line}"
        for file in sorted(SRC.rglob("*.py"))
        for line in _function_level_own_imports(file)
    ]
    assert len(found) <= MAX_FUNCTION_LEVEL_IMPORTS, (
        f"{len(found)} imports of yadk modules inside functions, over the"
        f" {MAX_FUNCTION_LEVEL_IMPORTS} allowed. Move the new one to the top of its module;"
        " if it must stay inside the function (it keeps a heavy module off a command's start,"
        " or breaks an import cycle), say why in the module's docstring and raise"
        " MAX_FUNCTION_LEVEL_IMPORTS in tests/test_layers.py with that reason in the commit."
    )
