"""Failures of user code during ``yadk run`` / ``yadk dev``: tools, callbacks and models.

The engine reports them on the ``yadk`` logger (a raising tool is returned to the model as an
error and the run goes on; a raising callback or model ends the invocation with an error
event). Here each becomes one line on stderr naming the exception and where it was raised in the
user's code (``tools.py:25``); ``--verbose`` (or ``YADK_DEBUG=1``) adds the traceback. Every
failure counts, so a run in which a tool failed exits non-zero.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path

__all__ = ["FailureLog", "reporting_failures"]

_ENGINE = str(Path(__file__).resolve().parents[1])  # src/yadk: frames of yadk itself


class FailureLog(logging.Handler):
    """Prints what the engine logs, one line each, and counts the failures."""

    def __init__(self, prog: str, *, verbose: bool) -> None:
        super().__init__(logging.DEBUG)
        self.prog = prog
        self.verbose = verbose
        self.failures = 0

    def emit(self, record: logging.LogRecord) -> None:
        error = record.exc_info[1] if record.exc_info else None
        if record.levelno < logging.WARNING:
            # An invocation that ended in an error the transcript shows (and the exit status
            # counts) already: only its traceback, and only when asked for.
            if record.name == "yadk.runner" and error is not None and self.verbose:
                self._traceback(error)
            return
        line = f"{self.prog}: {record.getMessage()}"
        if error is not None:
            self.failures += 1
            where = raised_at(error)
            if where:
                line += f" ({where})"
        sys.stdout.flush()
        if error is not None and self.verbose:
            self._traceback(error)
        print(line, file=sys.stderr, flush=True)

    def _traceback(self, error: BaseException) -> None:
        sys.stdout.flush()
        traceback.print_exception(error, file=sys.stderr)


def raised_at(error: BaseException) -> str:
    """``file:line`` of the innermost frame outside yadk where ``error`` (or its cause) was
    raised: the line of the user's tool, callback or model to look at."""
    current: BaseException | None = error
    while current is not None:
        frames = traceback.extract_tb(current.__traceback__)
        for frame in reversed(frames):
            if not frame.filename.startswith(_ENGINE) and not frame.filename.startswith("<"):
                return f"{_shown(frame.filename)}:{frame.lineno}"
        current = current.__cause__
    return ""


def _shown(filename: str) -> str:
    try:
        return str(Path(filename).relative_to(Path.cwd()))
    except ValueError:
        return filename


@contextlib.contextmanager
def reporting_failures(prog: str, *, verbose: bool) -> Iterator[FailureLog]:
    """While inside, the ``yadk`` logger's records go to a ``FailureLog`` (and nowhere else)."""
    logger = logging.getLogger("yadk")
    handler = FailureLog(prog, verbose=verbose)
    saved = (logger.level, logger.propagate)
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(saved[0])
        logger.propagate = saved[1]
