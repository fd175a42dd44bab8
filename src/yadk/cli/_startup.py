"""Loading an agent for a conversation (``yadk run``, ``yadk dev``): everything that would stop
it is found before the first prompt, and the load-time warnings are shown, as ``validate`` would
print them.

An agent without a model is refused at its config line (unless ``--model`` replaces every
model); a model whose API key is not set is refused with exit status 2, naming the variable and
the ``.env`` file it may live in.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from yadk.cli._common import EXIT_USAGE, OFFLINE_HINT, CommandError
from yadk.errors import AgentLoadError
from yadk.reload import load, missing_credentials

if TYPE_CHECKING:
    from yadk.agents import BaseAgent
    from yadk.config import Diagnostic, LoadedAgent
    from yadk.models import BaseLlm

__all__ = ["check_credentials", "load_for_conversation", "print_warnings"]


def load_for_conversation(
    path: Path, *, model: BaseLlm | None, given_keys: Iterable[str] = ()
) -> LoadedAgent:
    """The agent at ``path`` (``model`` replacing every model), checked for running, its
    warnings printed on stderr; a CommandError says what stops it. ``given_keys`` are the
    state keys the caller sets (``--state``, a replay file)."""
    try:
        loaded = load(
            path, model=model, model_hint=OFFLINE_HINT, run_checks=True, given_keys=given_keys
        )
    except AgentLoadError as exc:
        raise CommandError(exc.message, details=exc.details) from None
    print_warnings(loaded.diagnostics)
    check_credentials(loaded.agent, path)
    return loaded


def print_warnings(diagnostics: Iterable[Diagnostic]) -> None:
    """Each load-time warning on stderr, in validate's format."""
    sys.stdout.flush()
    for diagnostic in diagnostics:
        print(diagnostic.format(), file=sys.stderr)
    sys.stderr.flush()


def check_credentials(agent: BaseAgent, path: Path) -> None:
    """Refuse (exit status 2) a tree whose models cannot be called for a missing API key."""
    problems = missing_credentials(agent)
    if not problems:
        return
    folder = path if path.is_dir() else path.parent
    lines = [f"cannot start: {problems[0]}", *(f"  {problem}" for problem in problems[1:])]
    lines.append(
        f"  hint: export the variable, or put it in {folder / '.env'} (loaded at start, never"
        f" overriding the environment); {OFFLINE_HINT}"
    )
    raise CommandError("\n".join(lines), exit_code=EXIT_USAGE)
