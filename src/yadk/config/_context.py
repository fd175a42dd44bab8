"""What a load keeps while it walks a config tree: the file at hand, the problems found so far,
and a record of every agent for the whole-tree checks.

``difflib`` is imported only when a did-you-mean is needed.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from yadk._files import FileProblem, read_text
from yadk._yaml import type_name
from yadk.config._diagnostics import Diagnostic, Severity
from yadk.config._yaml import Document, KeyPath, parse_document

__all__ = [
    "AgentRecord",
    "FileScope",
    "Reporter",
    "TextSource",
    "did_you_mean",
    "inside",
    "yaml_type",
]


@dataclasses.dataclass
class FileScope:
    """One config file being read. ``root`` is the folder no referenced file may leave."""

    doc: Document
    root: Path

    @property
    def file(self) -> Path:
        return self.doc.path

    @property
    def folder(self) -> Path:
        return self.doc.path.parent

    @property
    def package(self) -> str:
        """The package a leading-dot name is relative to: the config folder's name (as ADK)."""
        return self.folder.name


@dataclasses.dataclass
class TextSource:
    """An instruction text and where it was written: a YAML value or a whole file."""

    text: str
    scope: FileScope | None = None
    at: KeyPath = ()
    file: Path | None = None


@dataclasses.dataclass
class AgentRecord:
    """One agent of the tree as the config describes it (built or not)."""

    name: str | None
    scope: FileScope | None
    at: KeyPath
    agent: Any = None
    kind: str = "LlmAgent"
    from_code: bool = False
    children: list[AgentRecord] = dataclasses.field(default_factory=list)
    instructions: list[TextSource] = dataclasses.field(default_factory=list)
    output_key: str | None = None
    state_keys: list[str] | None = None
    # `model:` as written ("" for `model_code:`, None when the agent sets neither); whether the
    # agent is a built-in LlmAgent (a custom class may supply its own model in Python).
    model: str | None = None
    builtin_llm: bool = False
    # `mode:` as written (an LlmAgent's), None when unset.
    mode: str | None = None
    # Fields an unknown key of this agent looks like a misspelling of: the unknown-key error
    # already says "did you mean", so a missing-field error for the same field would repeat it.
    misspelled: set[str] = dataclasses.field(default_factory=set)
    ok: bool = True

    def walk(self) -> list[AgentRecord]:
        found = [self]
        for child in self.children:
            found.extend(child.walk())
        return found


def yaml_type(value: Any) -> str:
    """How YAML would name the type of ``value``, with an article."""
    return type_name(value)


def did_you_mean(word: str, candidates: Sequence[str]) -> str | None:
    # Two letters swapped is the commonest slip, and difflib would rather drop one: `modle` is
    # `model`, not `mode`.
    swapped = [c for c in candidates if len(c) == len(word) and sorted(c) == sorted(word)]
    if swapped:
        return swapped[0]
    import difflib  # only a mistake needs a suggestion: imported then, not by every load

    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return close[0] if close else None


def inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` (resolved, symlinks followed) lies in ``folder``."""
    real, base = os.path.realpath(path), os.path.realpath(folder)
    return os.path.commonpath([real, base]) == base


class Reporter:
    """Collects diagnostics; ``errors`` counts errors so callers can tell whether a step failed."""

    def __init__(self) -> None:
        self.diagnostics: list[Diagnostic] = []
        self.errors = 0

    def report(
        self,
        path: Path | str,
        line: int,
        column: int,
        rule: str,
        message: str,
        hint: str = "",
        *,
        severity: Severity = "error",
    ) -> None:
        self.diagnostics.append(
            Diagnostic(os.fspath(path), line, column, rule, severity, message, hint)
        )
        if severity == "error":
            self.errors += 1

    def read_document(self, file: Path, read: set[Path]) -> Document | None:
        """The YAML document of the config ``file``, or None when it cannot be read or parsed
        (every problem reported, located in ``file``); a file that could be read joins
        ``read``."""
        try:
            text = read_text(file, kind="config")
        except FileProblem as problem:
            self.report(
                file, problem.line, problem.column, problem.rule, problem.message, problem.hint
            )
            return None
        read.add(file)
        return parse_document(
            file,
            text,
            lambda line, col, rule, msg, hint: self.report(file, line, col, rule, msg, hint),
        )

    def error(
        self,
        scope: FileScope,
        at: KeyPath,
        rule: str,
        message: str,
        hint: str = "",
        *,
        key: bool = False,
    ) -> None:
        if scope.doc.is_invalid(at):
            return  # the unreadable value was reported where it was read
        line, column = scope.doc.where(at, key=key)
        self.report(scope.file, line, column, rule, message, hint)

    def warn(self, scope: FileScope, at: KeyPath, rule: str, message: str, hint: str = "") -> None:
        line, column = scope.doc.where(at)
        self.report(scope.file, line, column, rule, message, hint, severity="warning")

    # --- shape checks: report and say whether the value is usable ---------------------------

    def expect(
        self,
        scope: FileScope,
        at: KeyPath,
        value: Any,
        types: type | tuple[type, ...],
        expected: str,
        hint: str = "",
    ) -> bool:
        ok = isinstance(value, types) and not (
            isinstance(value, bool) and bool not in _as_tuple(types)
        )
        if not ok:
            self.error(
                scope,
                at,
                "wrong-type",
                f"`{_label(at)}` must be {expected}, got {yaml_type(value)}.",
                hint,
            )
        return ok

    def unknown_keys(
        self,
        scope: FileScope,
        at: KeyPath,
        mapping: dict[Any, Any],
        allowed: Sequence[str],
        what: str,
        elsewhere: dict[str, str] | None = None,
    ) -> None:
        """Report every key of ``mapping`` not in ``allowed``, with a did-you-mean."""
        for key in mapping:
            if key in allowed:
                continue
            text = str(key)
            guess = did_you_mean(text, allowed)
            if guess is not None:
                hint = f"Did you mean `{guess}`?"
            elif elsewhere and text in elsewhere:
                hint = elsewhere[text]
            else:
                hint = "Valid keys: " + ", ".join(sorted(allowed)) + "."
            self.error(
                scope,
                (*at, key),
                "unknown-key",
                f"Unknown key `{text}` in {what}.",
                hint,
                key=True,
            )


def _as_tuple(types: type | tuple[type, ...]) -> tuple[type, ...]:
    return types if isinstance(types, tuple) else (types,)


def _label(at: KeyPath) -> str:
    """``tools[0].name`` for ``("tools", 0, "name")``."""
    text = ""
    for part in at:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "config"
