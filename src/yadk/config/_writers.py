"""Which state keys Python code writes, found statically with ``ast`` (no import): what the
placeholder check needs to know about tools and callbacks that set state.

Recognised writes: ``<x>.state["key"] = ...``, ``<x>.state.update({"key": ...})`` or
``update(key=...)``, ``<x>.state.setdefault("key", ...)``, and the same on a name or attribute
called ``state_delta``. A write whose key is computed (``state[name] = ...``,
``state.update(values)``) makes the set of written keys unknowable: ``computed`` names where.
"""

from __future__ import annotations

import ast
import dataclasses
import os
from collections.abc import Iterable

__all__ = ["StateWrites", "state_writes"]

_TARGETS = {"state", "state_delta"}
_MAX_BYTES = 1_000_000  # a module this large is not an agent's tool module; skip it


@dataclasses.dataclass
class StateWrites:
    """Keys written with a literal name, and ``file:line`` of writes with a computed one."""

    keys: set[str] = dataclasses.field(default_factory=set)
    computed: list[str] = dataclasses.field(default_factory=list)


def state_writes(files: Iterable[str | os.PathLike[str]]) -> StateWrites:
    """The state writes of every Python file in ``files`` (unreadable files are skipped)."""
    found = StateWrites()
    for file in sorted({os.fspath(f) for f in files}):
        try:
            if os.path.getsize(file) > _MAX_BYTES:
                continue
            with open(file, encoding="utf-8") as handle:
                tree = ast.parse(handle.read(), filename=file)
        except (OSError, SyntaxError, ValueError):
            continue
        _Visitor(found, file).visit(tree)
    return found


def _is_state(node: ast.expr) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr in _TARGETS
    return isinstance(node, ast.Name) and node.id in _TARGETS


def _literal(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


class _Visitor(ast.NodeVisitor):
    def __init__(self, found: StateWrites, file: str) -> None:
        self.found = found
        self.file = file

    def _computed(self, node: ast.AST) -> None:
        self.found.computed.append(f"{os.path.basename(self.file)}:{getattr(node, 'lineno', 0)}")

    def _subscript(self, target: ast.expr) -> None:
        if isinstance(target, ast.Subscript) and _is_state(target.value):
            key = _literal(target.slice)
            if key is None:
                self._computed(target)
            else:
                self.found.keys.add(key)

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self._subscript(target)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._subscript(node.target)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._subscript(node.target)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        function = node.func
        if isinstance(function, ast.Attribute) and _is_state(function.value):
            if function.attr == "update":
                self._update(node)
            elif function.attr == "setdefault" and node.args:
                key = _literal(node.args[0])
                if key is None:
                    self._computed(node)
                else:
                    self.found.keys.add(key)
        self.generic_visit(node)

    def _update(self, node: ast.Call) -> None:
        for keyword in node.keywords:
            if keyword.arg is None:
                self._computed(node)
            else:
                self.found.keys.add(keyword.arg)
        for argument in node.args:
            if not isinstance(argument, ast.Dict):
                self._computed(node)
                continue
            for key in argument.keys:
                name = _literal(key) if key is not None else None
                if name is None:
                    self._computed(node)
                else:
                    self.found.keys.add(name)
