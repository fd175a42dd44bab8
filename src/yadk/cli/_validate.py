"""``yadk validate``: every problem in configs and skills, as text, JSON or GitHub annotations.

Secrets are masked with ``yadk._secrets`` only when a diagnostic is printed as JSON or a GitHub
annotation: the text form of a clean run never loads it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yadk.cli._common import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, CommandError
from yadk.cli._discover import discover
from yadk.cli._dotenv import load_dotenv_files, loaded_notes
from yadk.config import ENVIRONMENT_RULES
from yadk.eval import check_with_eval_sets, find_eval_files

if TYPE_CHECKING:
    from yadk.config import Diagnostic

__all__ = ["diagnostic_dict", "execute", "github_line", "summary"]


def execute(args: argparse.Namespace) -> int:
    # os.path.exists, unlike Path.exists, is False for a name too long to look up.
    missing = [p for p in args.paths if not os.path.exists(p)]
    if missing:
        raise CommandError(
            f"{missing[0]!r} does not exist; expected config files, agent folders or skill folders",
            exit_code=EXIT_USAGE,
        )
    targets = _targets(args.paths)
    # What `yadk run` would see: `${env:VAR}` values and API keys from the agents' .env files.
    for target in targets:
        for line in loaded_notes(load_dotenv_files(target)):
            if line.startswith("warning: "):  # a refused line; what loaded is not news here
                print(f"yadk validate: {line}", file=sys.stderr)
    checked, eval_files = check_with_eval_sets(
        targets, import_code=args.import_code, run_checks=True, network=args.network
    )
    diagnostics = checked.diagnostics
    counts = {"agent": checked.agents, "skill": checked.skills, "eval file": eval_files}
    if args.format == "json":
        print(json.dumps([diagnostic_dict(d) for d in diagnostics], indent=2, ensure_ascii=False))
        sys.stdout.flush()
        print(summary(diagnostics, counts), file=sys.stderr)
    else:
        for diagnostic in diagnostics:
            print(github_line(diagnostic) if args.format == "github" else diagnostic.format())
        print(summary(diagnostics, counts))
    return _status(diagnostics, strict=args.strict)


def _targets(paths: Sequence[str]) -> list[Path]:
    """Files as given; a folder becomes every agent folder and skill under it, plus the eval
    files outside those (a folder holding no agent or skill stays itself, so that validation
    reports what it holds, or that it holds nothing)."""
    targets: list[Path] = []
    for text in paths:
        path = Path(text)
        found = discover(path) if path.is_dir() else []
        if not found:
            targets.append(path)
            continue
        targets.extend(found)
        targets.extend(
            file
            for file in find_eval_files(path)
            if not any(file.is_relative_to(folder) for folder in found)
        )
    return targets


def _count(diagnostics: Sequence[Diagnostic], severity: str) -> int:
    return sum(1 for d in diagnostics if str(d.severity) == severity)


def _status(diagnostics: Sequence[Diagnostic], *, strict: bool) -> int:
    # A missing API key says something about this machine, not the config: not a --strict failure.
    strict_fails = [d for d in diagnostics if d.rule not in ENVIRONMENT_RULES]
    if _count(diagnostics, "error") or (strict and _count(strict_fails, "warning")):
        return EXIT_FAILURE
    return EXIT_OK


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def summary(diagnostics: Sequence[Diagnostic], counts: Mapping[str, int]) -> str:
    """The closing line: errors and warnings counted apart, and what was checked
    (``counts``: how many of each kind of thing, e.g. ``{"agent": 3, "skill": 1}``), as in
    ``2 errors, 1 warning in 3 agents``."""
    found = [_plural(n, word) for word, n in counts.items() if n]
    where = f" in {', '.join(found)}" if found else ""
    errors, warnings = _count(diagnostics, "error"), _count(diagnostics, "warning")
    problems = [_plural(n, word) for word, n in (("error", errors), ("warning", warnings)) if n]
    return f"{', '.join(problems) or 'no problems found'}{where}"


def diagnostic_dict(diagnostic: Diagnostic) -> dict[str, Any]:
    """A diagnostic as JSON: every field, ``path`` absolute (secrets in URLs masked)."""
    from yadk._secrets import mask_secrets

    return {
        "path": str(diagnostic.path),
        "line": diagnostic.line,
        "column": diagnostic.column,
        "rule": diagnostic.rule,
        "severity": str(diagnostic.severity),
        "message": mask_secrets(diagnostic.message),
        "hint": mask_secrets(diagnostic.hint),
        "note": mask_secrets(diagnostic.note) if diagnostic.note else diagnostic.note,
    }


def _relative(path: str) -> str:
    # Annotations name files relative to the repository root, where CI runs the check.
    try:
        return str(Path(path).relative_to(Path.cwd()))
    except ValueError:
        return path


def _escape(text: str, *, property_value: bool = False) -> str:
    # GitHub workflow commands: '%', CR and LF are escaped everywhere, ':' and ',' in properties.
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_value:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def github_line(diagnostic: Diagnostic) -> str:
    """A ``::error``/``::warning``/``::notice`` workflow command for one diagnostic."""
    level = {"error": "error", "warning": "warning"}.get(str(diagnostic.severity), "notice")
    props = [f"file={_escape(_relative(str(diagnostic.path)), property_value=True)}"]
    if diagnostic.line:
        props.append(f"line={diagnostic.line}")
    if diagnostic.column:
        props.append(f"col={diagnostic.column}")
    message = f"{diagnostic.rule}: {diagnostic.message}"
    if diagnostic.note:
        message += f"\n{diagnostic.note}"
    if diagnostic.hint:
        message += f"\n{diagnostic.hint}"
    from yadk._secrets import mask_secrets

    message = mask_secrets(message)
    return f"::{level} {','.join(props)}::{_escape(message)}"
