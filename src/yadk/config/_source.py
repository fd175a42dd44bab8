"""What a module's source defines at its top level, read with ``ast`` (nothing is imported).

``validate`` without ``--import`` learns from this whether a dotted name is a function, a class or
a value, which argument names a class accepts from YAML, and where a name a module imports from
elsewhere really comes from (``from subprocess import check_output`` re-exports the standard
library under another module's name).
"""

from __future__ import annotations

import ast
import dataclasses

from yadk.config._trust import ARGS_ATTRIBUTE

__all__ = ["Definitions", "Reexport", "literal_args", "top_level"]


@dataclasses.dataclass(frozen=True)
class Reexport:
    """``from module import name`` at a module's top level (``level`` dots for relative)."""

    module: str
    name: str
    level: int

    def absolute(self, importer: str, *, is_package: bool) -> str:
        """The imported module's absolute name, as seen from module ``importer``."""
        if not self.level:
            return self.module
        parts = importer.split(".")
        base = parts if is_package else parts[:-1]
        if self.level > 1:
            base = base[: len(base) - (self.level - 1)]
        return ".".join([*base, *([self.module] if self.module else [])])


# name -> (kind, the defining node, or the Reexport it came from)
Definitions = dict[str, tuple[str, "ast.AST | Reexport | None"]]


def top_level(body: list[ast.stmt]) -> Definitions | None:
    """The names a module body binds, or None when they cannot be known statically."""
    names: Definitions = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.name == "__getattr__":
                return None  # the module makes up attributes at run time
            names[node.name] = ("function", node)
        elif isinstance(node, ast.ClassDef):
            names[node.name] = ("class", node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            kind = "function" if isinstance(node.value, ast.Lambda) else "value"
            for target in targets:
                for leaf in ast.walk(target):
                    if isinstance(leaf, ast.Name):
                        if leaf.id == "__getattr__" and not _lazy_facade(node.value, names):
                            return None
                        names[leaf.id] = (kind, None)
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name == "*":
                    return None
                reexport = Reexport(node.module or "", alias.name, node.level)
                names[alias.asname or alias.name] = ("unknown", reexport)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.asname or alias.name.split(".", 1)[0]] = ("module", None)
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            blocks: list[list[ast.stmt]] = [node.body]
            if isinstance(node, ast.If):
                blocks.append(node.orelse)
            if isinstance(node, ast.Try):
                blocks += [node.orelse, node.finalbody, *[h.body for h in node.handlers]]
            for block in blocks:
                inner = top_level(block)
                if inner is None:
                    return None
                for key, value in inner.items():
                    names.setdefault(key, value)
    return names


def _lazy_facade(value: ast.expr | None, names: Definitions) -> bool:
    """``__getattr__, __dir__ = lazy_facade(...)`` (``yadk._lazy``): its names are imported
    under ``TYPE_CHECKING`` too, where this reads them, so the module stays statically known."""
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and names.get(value.func.id, ("", None))[1] == Reexport("yadk._lazy", "lazy_facade", 0)
    )


def literal_args(node: ast.AST | Reexport | None) -> frozenset[str] | None:
    """A class's ``yadk_config_args = {...}`` when written as a literal in its own body."""
    if not isinstance(node, ast.ClassDef):
        return None
    for statement in node.body:
        targets: list[ast.expr] = []
        if isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets, value = [statement.target], statement.value
        if not any(isinstance(t, ast.Name) and t.id == ARGS_ATTRIBUTE for t in targets):
            continue
        if isinstance(value, ast.Call) and not value.keywords and len(value.args) == 1:
            value = value.args[0]  # frozenset({...})
        try:
            literal = ast.literal_eval(value)
        except ValueError:
            return None
        if isinstance(literal, (set, list, tuple, frozenset)):
            return frozenset(str(item) for item in literal)
    return None
