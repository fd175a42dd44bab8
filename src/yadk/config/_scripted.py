"""Checking a scripted model file (``model: scripted:turns.yaml``) the way configs are checked:
every problem located in the scripted file itself, with a did-you-mean, and without importing
the engine (``yadk validate`` stays fast). The rules are ``ScriptedModel``'s own
(``yadk._script_format``), so validate and a run word every problem alike."""

from __future__ import annotations

from pathlib import Path

from yadk._files import read_text
from yadk._script_format import check_script
from yadk.config._context import Reporter
from yadk.config._yaml import parse_document

__all__ = ["check_scripted_file"]


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
    for problem in check_script(doc.data):
        line, column = doc.where(problem.at, key=problem.at_key)
        reporter.report(path, line, column, problem.rule, problem.message, problem.hint)
    return reporter.errors == before
