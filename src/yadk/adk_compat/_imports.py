"""Static check (``ast``): imports from google-adk / google-genai that the shim does not provide."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

from yadk.adk_compat._finder import _is_parent
from yadk.adk_compat._table import PROVIDED

__all__ = ["UnprovidedImport", "unprovided_imports"]

_ROOTS = ("google.adk", "google.genai")


@dataclasses.dataclass(frozen=True)
class UnprovidedImport:
    """``name`` imported at ``line``:``column`` (1-based) of a file, which the shim lacks."""

    line: int
    column: int
    name: str


def unprovided_imports(source: str, *, filename: str = "<string>") -> list[UnprovidedImport]:
    """Every import of a google-adk / google-genai name the shim does not provide."""
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError:
        return []  # the import itself reports it
    found: list[UnprovidedImport] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _covered(alias.name) and not _module_ok(alias.name):
                    found.append(UnprovidedImport(node.lineno, node.col_offset + 1, alias.name))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if not _covered(node.module):
                continue
            if not _module_ok(node.module):
                found.append(UnprovidedImport(node.lineno, node.col_offset + 1, node.module))
                continue
            provided = PROVIDED.get(node.module, {})
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if alias.name not in provided and full not in PROVIDED:
                    found.append(UnprovidedImport(node.lineno, node.col_offset + 1, full))
    return found


def unprovided_imports_in(path: Path) -> list[UnprovidedImport]:
    try:
        return unprovided_imports(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, UnicodeDecodeError):
        return []


def _covered(module: str) -> bool:
    return any(module == r or module.startswith(r + ".") for r in _ROOTS)


def _module_ok(module: str) -> bool:
    return module in PROVIDED or _is_parent(module)
