"""LineReader: the user's lines, read in the background so ``yadk dev`` can reload while it
waits for the next one."""

from __future__ import annotations

import asyncio
import io
import os
import threading
from collections.abc import Callable
from typing import TextIO

__all__ = ["LineReader"]

_CHUNK = 65536


class LineReader:
    """Reads ``source`` one line at a time in a daemon thread.

    A real file descriptor is read with ``os.read`` into our own buffer rather than through
    ``sys.stdin``: a daemon thread left blocked inside a buffered reader (the user pressed
    Ctrl-C at the prompt) would hold its lock and abort the interpreter at exit.
    """

    def __init__(self, source: TextIO) -> None:
        self._source = source
        self._fd = _fileno(source)
        self._pending = b""
        self._encoding = getattr(source, "encoding", None) or "utf-8"
        self._eof = False

    async def next_line(self, *, idle: Callable[[], None], interval: float) -> str | None:
        """The next line (with its newline, if any), or None at end of input; ``idle`` runs
        every ``interval`` seconds while the user has not finished a line."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[str | None] = loop.create_future()
        thread = threading.Thread(target=self._read, args=(loop, future), daemon=True)
        thread.start()
        while True:
            done, _ = await asyncio.wait({future}, timeout=interval)
            if done:
                return future.result()
            idle()

    def _read(self, loop: asyncio.AbstractEventLoop, future: asyncio.Future[str | None]) -> None:
        line: str | None = None
        error: BaseException | None = None
        try:
            line = self._readline()
        except Exception as exc:  # handed to the loop, which raises it where it awaits
            error = exc
        try:
            loop.call_soon_threadsafe(_settle, future, line, error)
        except RuntimeError:  # the loop has closed: the command is already ending
            pass

    def _readline(self) -> str | None:
        if self._fd is None:
            return self._source.readline() or None
        while b"\n" not in self._pending and not self._eof:
            chunk = os.read(self._fd, _CHUNK)
            if chunk:
                self._pending += chunk
            else:
                self._eof = True
        if not self._pending:
            return None
        line, newline, self._pending = self._pending.partition(b"\n")
        # A newline byte never occurs inside a multi-byte character, so whole lines decode alone.
        return (line + newline).decode(self._encoding, "replace")


def _settle(
    future: asyncio.Future[str | None], line: str | None, error: BaseException | None
) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(line)


def _fileno(source: TextIO) -> int | None:
    try:
        return source.fileno()
    except (OSError, ValueError, io.UnsupportedOperation):
        return None
