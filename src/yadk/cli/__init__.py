"""The ``yadk`` command line: parse it, and dispatch to one module per command.

Only this package knows about argument parsing (the parser itself is built in ``_parser.py``).
Each command lives in ``_<command>.py`` with an ``execute(args) -> int``; a command's module
(and the engine behind it) is imported only when that command runs, so ``yadk schema`` or
``yadk --help`` stay fast; so are the helpers of the global options (``--trust``,
``--no-adk-compat``), imported only when a command runs.

Exit codes: 0 success, 1 a config, file-content or run error, 2 a usage error.

No command ends in a traceback by default: an exception no command expected is reported as one
line naming the command and the exception; ``yadk --verbose COMMAND`` or ``YADK_DEBUG=1`` prints
the full traceback too.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from yadk.cli._common import (
    EXIT_FAILURE,
    EXIT_USAGE,
    CommandError,
    print_error,
    print_unexpected,
    show_tracebacks,
)
from yadk.cli._parser import _ALIASES, _COMMANDS, build_parser

__all__ = ["build_parser", "main"]


# The global options, exactly as written, and whether each takes a value.
_GLOBAL_OPTIONS = {
    "--trust": True,
    "--allow-code-execution": True,
    "--no-adk-compat": False,
    "-v": False,
    "--verbose": False,
}


def _command_word(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names, when that is certain from the global options before it, so
    only that command's parser need be built (building all twelve is most of parsing's cost);
    None (build them all) for anything else: help, an abbreviated option, no command."""
    tokens = iter(argv)
    for token in tokens:
        if token.startswith(("--trust=", "--allow-code-execution=")):
            continue
        if token in _GLOBAL_OPTIONS:
            if _GLOBAL_OPTIONS[token] and next(tokens, None) is None:
                return None
            continue
        if token.startswith("-"):
            return None
        word = _ALIASES.get(token, token)
        return word if word in _COMMANDS else None
    return None


def _execute(command: Any, args: argparse.Namespace) -> int:
    """Run a command's ``execute`` with the global ``--trust`` modules trusted (and
    ``--allow-code-execution`` kinds allowed) meanwhile."""
    if getattr(args, "no_adk_compat", False):
        from yadk.adk_compat import disable, enable

        disable()
        try:
            return _execute_trusted(command, args)
        finally:
            enable()
    return _execute_trusted(command, args)


def _execute_trusted(command: Any, args: argparse.Namespace) -> int:
    execution = getattr(args, "allow_code_execution", [])
    if not args.trust and not execution:
        return int(command.execute(args))
    from yadk.config import allow_code_execution_on_command_line, trust_on_command_line

    trust_on_command_line(args.trust)
    allow_code_execution_on_command_line(execution)
    try:
        return int(command.execute(args))
    finally:
        trust_on_command_line([])
        allow_code_execution_on_command_line([])


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``yadk`` command line; returns the exit status."""
    return _main(argv)


def run() -> NoReturn:
    """The ``yadk`` console script and ``python -m yadk.cli``: the process's own command line,
    run as the one command this process exists for, and its exit status."""
    sys.exit(_main(None))


def _main(argv: Sequence[str] | None) -> int:
    line = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(only=_command_word(line))
    try:
        args = parser.parse_args(line)
    except SystemExit as exc:  # --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    module_name = getattr(args, "command_module", None)
    if module_name is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    prog = f"yadk {module_name.rsplit('_', 1)[-1]}"
    try:
        command = importlib.import_module(module_name)
        code: int = _execute(command, args)
    except CommandError as exc:
        print_error(prog, exc)
        return exc.exit_code
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`yadk run ... | head`): stop quietly, as other tools do. Point
        # stdout at /dev/null so the interpreter's final flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except Exception as exc:  # the last line of defence: one line, never a traceback by default
        print_unexpected(prog, exc, traceback=show_tracebacks(args))
        return EXIT_FAILURE
    return code
