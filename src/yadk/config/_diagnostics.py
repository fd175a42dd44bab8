"""Diagnostics: one problem of a config (or skill) file, with its place, a stable rule id and a hint.

Every config error reaches the user as a ``Diagnostic``. ``format()`` gives the one-line compiler
style ``path:line:col: severity rule: message`` (plus indented ``note:`` and ``hint:`` lines),
which is also what ``ConfigError`` prints, so a traceback is never the message.

``yadk._secrets`` is imported only when a diagnostic is formatted.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any, Literal

from yadk._paths import display_path

__all__ = ["Diagnostic", "Severity", "sort_diagnostics"]

Severity = Literal["error", "warning"]


@dataclasses.dataclass(frozen=True)
class Diagnostic:
    """One problem. ``line`` and ``column`` are 1-based; 0 means the problem is with the path
    itself (a missing file or folder), not a place inside it. ``path`` is absolute. ``note``
    adds context, e.g. the config lines that reference a Python module that fails to import."""

    path: str
    line: int
    column: int
    rule: str
    severity: Severity
    message: str
    hint: str = ""
    note: str = ""

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def location(self) -> str:
        """``path:line:col`` (or just the path for path-level problems), the path shown relative
        to the working directory when it lies inside it."""
        shown = display_path(self.path)
        return f"{shown}:{self.line}:{self.column}" if self.line else shown

    def format(self) -> str:
        """``path:line:col: severity rule: message`` plus ``  note: ...`` and ``  hint: ...``
        on their own lines."""
        from yadk._secrets import mask_secrets

        text = f"{self.location()}: {self.severity} {self.rule}: {self.message}"
        if self.note:
            text += f"\n  note: {self.note}"
        return mask_secrets(f"{text}\n  hint: {self.hint}" if self.hint else text)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping (for ``yadk validate --format json``)."""
        return dataclasses.asdict(self)

    def __str__(self) -> str:
        return self.format()


def sort_diagnostics(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Without duplicates, grouped by file (in the order files were first reported), each file's
    problems by position."""
    first_seen: dict[str, int] = {}
    unique: dict[Diagnostic, None] = {}
    for diagnostic in diagnostics:
        first_seen.setdefault(diagnostic.path, len(first_seen))
        unique.setdefault(diagnostic)
    return sorted(unique, key=lambda d: (first_seen[d.path], d.line, d.column))
