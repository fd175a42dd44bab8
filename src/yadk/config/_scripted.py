"""Checking a scripted model file (``model: scripted:turns.yaml``) the way configs are checked:
every problem located in the scripted file itself, with a did-you-mean, and without importing
the engine (``yadk validate`` stays fast). The format is ``ScriptedModel``'s (docs/models.md)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from yadk._files import read_text
from yadk.config._context import Reporter, did_you_mean
from yadk.config._yaml import Document, KeyPath, parse_document

__all__ = ["check_scripted_file"]

_TURN_KEYS = ("text", "function_calls", "parts", "when", "agent", "delay")
_CALL_KEYS = ("name", "args")
_FORMAT = "See the scripted model format in docs/models.md."


def check_scripted_file(reporter: Reporter, path: Path) -> bool:
    """Report every problem of the scripted model file ``path``; True when it has none.

    A file that cannot be read at all raises ``FileProblem``: the config line naming it is
    where that is reported."""
    before = reporter.errors
    text = read_text(path, kind="scripted")

    def report(line: int, column: int, rule: str, message: str, hint: str) -> None:
        reporter.report(path, line, column, rule, message, hint)

    doc = parse_document(path, text, report)
    if doc is None or reporter.errors > before:
        return False
    _Checker(reporter, doc).turns()
    return reporter.errors == before


class _Checker:
    def __init__(self, reporter: Reporter, doc: Document) -> None:
        self.reporter = reporter
        self.doc = doc

    def problem(
        self, at: KeyPath, rule: str, message: str, hint: str = _FORMAT, *, key: bool = False
    ) -> None:
        line, column = self.doc.where(at, key=key)
        self.reporter.report(self.doc.path, line, column, rule, message, hint)

    def turns(self) -> None:
        data = self.doc.data
        if not isinstance(data, dict) or not isinstance(data.get("turns"), list):
            self.problem(
                (),
                "scripted-invalid",
                "A scripted model file must be a mapping with a `turns:` list.",
                "e.g. `turns: [{text: Hello}]`. " + _FORMAT,
            )
            return
        for key in data:
            if key != "turns":
                self.unknown((key,), key, ("turns",), "a scripted model file")
        for index, turn in enumerate(data["turns"]):
            self.turn(("turns", index), turn)

    def unknown(self, at: KeyPath, key: Any, known: tuple[str, ...], where: str) -> None:
        suggestion = did_you_mean(str(key), known)
        hint = f"Did you mean `{suggestion}`?" if suggestion else f"Known keys: {', '.join(known)}."
        self.problem(at, "unknown-key", f"Unknown key `{key}` in {where}.", hint, key=True)

    def turn(self, at: KeyPath, turn: Any) -> None:
        if not isinstance(turn, dict):
            self.problem(
                at, "scripted-invalid", "A turn must be a mapping such as `{text: Hello}`."
            )
            return
        for key, value in turn.items():
            where = (*at, key)
            if key not in _TURN_KEYS:
                self.unknown(where, key, _TURN_KEYS, "a scripted turn")
            elif key in ("text", "when", "agent") and not isinstance(value, str):
                self.problem(where, "wrong-type", f"`{key}` must be a string.")
            elif key == "when":
                self.pattern(where, value)
            elif key == "delay" and (isinstance(value, bool) or not isinstance(value, int | float)):
                self.problem(where, "wrong-type", "`delay` must be a number of seconds.")
            elif key == "function_calls":
                self.calls(where, value)
            elif key == "parts":
                self.parts(where, value)

    def parts(self, at: KeyPath, value: Any) -> None:
        """``parts:`` as google-genai part mappings (e.g. ``executable_code``)."""
        from pydantic import ValidationError

        from yadk.types import Part

        if not isinstance(value, list):
            self.problem(at, "wrong-type", "`parts` must be a list of parts such as `{text: Hi}`.")
            return
        for index, part in enumerate(value):
            try:
                Part.model_validate(part)
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"]) or "the part"
                self.problem(
                    (*at, index),
                    "scripted-invalid",
                    f"Not a part: {where}: {first['msg']}.",
                    "A part is google-genai's shape, e.g. `{text: Hi}` or"
                    " `{executable_code: {code: print(1), language: PYTHON}}`.",
                )

    def pattern(self, at: KeyPath, value: str) -> None:
        try:
            re.compile(value)
        except re.error as exc:
            self.problem(
                at, "scripted-invalid", f"`when` is not a valid regular expression: {exc}."
            )

    def calls(self, at: KeyPath, value: Any) -> None:
        if not isinstance(value, list):
            self.problem(at, "wrong-type", "`function_calls` must be a list of `{name, args}`.")
            return
        for index, call in enumerate(value):
            where = (*at, index)
            if not isinstance(call, dict):
                self.problem(
                    where, "wrong-type", "A function call must be a mapping `{name, args}`."
                )
                continue
            for key in call:
                if key not in _CALL_KEYS:
                    self.unknown((*where, key), key, _CALL_KEYS, "a scripted function call")
            if not isinstance(call.get("name"), str):
                self.problem(where, "missing-field", "A function call needs a `name` (a string).")
            if "args" in call and not isinstance(call["args"], dict):
                self.problem((*where, "args"), "wrong-type", "`args` must be a mapping.")
