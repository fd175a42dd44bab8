"""TerminalPrompt: the ``[user]:`` prompt of ``yadk run`` and ``yadk dev`` in a terminal.

Lines are read with ``input()`` on the main thread while no event loop runs, so GNU readline
gives line editing and history, and Ctrl-C at the prompt is an ordinary ``KeyboardInterrupt``.
History is kept per agent in ``.yadk/history/<agent>``. Another thread (the dev loop's reload
watcher) may print notices while the prompt waits: ``notice`` clears the prompt line, prints
them, and draws the prompt again with what the user had typed so far. ``readline`` (whose import changes
how ``input()`` behaves) and ``ctypes`` are imported only when a terminal prompt needs them.
"""

from __future__ import annotations

import contextlib
import re
import sys
import threading
from pathlib import Path
from types import ModuleType
from typing import Any, TextIO

__all__ = ["HISTORY_DIR", "TerminalPrompt", "history_file"]

HISTORY_DIR = Path(".yadk") / "history"
_HISTORY_LENGTH = 1000
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def history_file(agent_name: str) -> Path:
    """Where the prompt keeps the lines typed to ``agent_name``."""
    return HISTORY_DIR / (_UNSAFE.sub("_", agent_name) or "agent")


def _readline() -> ModuleType | None:
    try:
        import readline
    except ImportError:  # Python built without readline: plain input(), still usable
        return None
    return readline


class TerminalPrompt:
    """Reads one line at a time from the terminal with line editing and per-agent history."""

    def __init__(self, prompt: str, *, agent_name: str, out: TextIO | None = None) -> None:
        self.prompt = prompt
        self.out = out or sys.stdout
        self._history = history_file(agent_name)
        self._lock = threading.Lock()
        self._waiting = False
        self._readline = _readline()
        self._redraw = _forced_redisplay(self._readline)
        if self._readline is not None:
            self._readline.clear_history()
            self._readline.set_history_length(_HISTORY_LENGTH)
            with contextlib.suppress(OSError):
                self._readline.read_history_file(self._history)

    def read(self) -> str | None:
        """The next line, or None at end of input (Ctrl-D); Ctrl-C raises KeyboardInterrupt."""
        with self._lock:
            self._waiting = True
        try:
            if self.out is sys.stdout:
                line = input(self.prompt)
            else:  # the prompt stays off stdout (JSON lines there); no readline prompt then
                print(self.prompt, end="", file=self.out, flush=True)
                line = input()
        except EOFError:
            return None
        finally:
            with self._lock:
                self._waiting = False
        if line.strip():
            self._remember()
        return line

    def notice(self, lines: list[str], *, to: TextIO | None = None) -> None:
        """Print ``lines`` (on stderr by default) above the prompt; if the prompt is waiting,
        it is drawn again below them with the half-typed line intact."""
        target = to or sys.stderr
        with self._lock:
            if not self._waiting:
                sys.stdout.flush()
                for line in lines:
                    print(line, file=target, flush=True)
                return
            typed = self._readline.get_line_buffer() if self._readline is not None else ""
            # Back to column 0 and clear what is there (the prompt and the typed text).
            self.out.write("\r\x1b[K")
            self.out.flush()
            for line in lines:
                print(line, file=target, flush=True)
            if self._redraw is not None:
                self._redraw()
            else:
                self.out.write(self.prompt + typed)
                self.out.flush()

    def _remember(self) -> None:
        if self._readline is None:
            return
        with contextlib.suppress(OSError):
            self._history.parent.mkdir(parents=True, exist_ok=True)
            self._readline.write_history_file(self._history)


def _forced_redisplay(readline: ModuleType | None) -> Any:
    """GNU readline's ``rl_forced_update_display`` (redraws prompt and line, cursor where it
    was), or None where it cannot be reached (libedit, no readline): then the prompt and the
    typed text are written again, with the cursor at the end."""
    if readline is None or "GNU" not in (readline.__doc__ or ""):
        return None
    try:
        import ctypes

        function = ctypes.CDLL(readline.__file__).rl_forced_update_display
    except (OSError, AttributeError):
        return None
    function.restype = ctypes.c_int
    function.argtypes = []
    return function
