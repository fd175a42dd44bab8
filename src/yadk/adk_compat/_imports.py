"""Static check (``ast``): imports from google-adk / google-genai that the shim does not provide."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

from yadk.adk_compat._table import (
    ROOTS,
    is_shim_module,
    target_available,
    target_of,
    unprovided_reason,
)

__all__ = ["UnprovidedImport", "unprovided_imports", "unprovided_imports_in"]


@dataclasses.dataclass(frozen=True)
class UnprovidedImport:
    """``name`` imported at ``line``:``column`` (1-based) of a file, which the shim lacks;
    ``reason`` says why and what yadk offers instead."""

    line: int
    column: int
    name: str
    reason: str


def unprovided_imports(source: str, *, filename: str = "<string>") -> list[UnprovidedImport]:
    """Every import of a google-adk / google-genai name the shim does not provide."""
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError:
        return []  # the import itself reports it
    found: list[UnprovidedImport] = []
    for node in ast.walk(tree):
        at = (node.lineno, node.col_offset + 1) if isinstance(node, ast.stmt) else (0, 0)
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _covered(alias.name) and not is_shim_module(alias.name):
                    found.append(UnprovidedImport(*at, alias.name, unprovided_reason(alias.name)))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if not _covered(node.module):
                continue
            if not is_shim_module(node.module):
                found.append(UnprovidedImport(*at, node.module, unprovided_reason(node.module)))
                continue
            for alias in node.names:
                problem = _name_problem(node.module, alias.name)
                if problem is not None:
                    found.append(UnprovidedImport(*at, f"{node.module}.{alias.name}", problem))
    return found


def unprovided_imports_in(path: Path) -> list[UnprovidedImport]:
    try:
        return unprovided_imports(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, UnicodeDecodeError):
        return []


def _name_problem(module: str, name: str) -> str | None:
    if name == "*" or is_shim_module(f"{module}.{name}"):
        return None
    target = target_of(module, name)
    if target is not None and target_available(target):
        return None
    return unprovided_reason(module, name)


def _covered(module: str) -> bool:
    return any(module == r or module.startswith(r + ".") for r in ROOTS)
