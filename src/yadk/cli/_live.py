"""Printing an invocation as it runs: streamed (partial) text appears as it arrives, and the
final event that repeats it only finishes the line."""

from __future__ import annotations

import sys
from typing import TextIO

from yadk.cli._transcript import event_lines
from yadk.events import Event

__all__ = ["LivePrinter"]


class LivePrinter:
    """Transcript lines for one invocation's events, text streamed in place.

    Partial events print ``[author]: `` once and then each piece of text; the final event of
    that answer ends the line and prints only what was not streamed (function calls, errors).
    """

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self._author: str | None = None
        self._streamed = ""

    def show(self, event: Event, *, echo_user: bool) -> None:
        if event.partial:
            self._piece(event)
            return
        if event.author == "user" and not echo_user:
            return
        lines = event_lines(event)
        if self._author is not None:
            already = f"[{self._author}]: {self._streamed}"
            self.finish()
            if lines and lines[0].text == already:
                lines = lines[1:]
        for line in lines:
            if line.error:
                self.out.flush()
                print(line.text, file=sys.stderr, flush=True)
            else:
                print(line.text, file=self.out)

    def finish(self) -> None:
        """End a line left open by streamed text (the invocation stopped before its final event)."""
        if self._author is not None:
            print(file=self.out, flush=True)
            self._author = None
            self._streamed = ""

    def _piece(self, event: Event) -> None:
        text = event.text
        if not text:
            return
        if self._author != event.author:
            self.finish()
            self.out.write(f"[{event.author}]: ")
            self._author = event.author
        self.out.write(text)
        self.out.flush()
        self._streamed += text
