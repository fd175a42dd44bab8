"""The parsed events of recently read sessions, kept by a durable session service.

Parsing stored JSON into events is most of what ``get_session`` costs. Stored events never change (a store only appends them, and deletes them with
their session), so a service may keep the frozen events it parsed and, on the next read of that
session, parse only the rows stored after them, also when another process appended those rows.

An entry is (creation stamp, last seq, events, their stored text's length); it serves a read only when the session still has
the same creation stamp and its version has not gone below the seq kept, so a session deleted and
created again under the same id (here or in another process) is read afresh. Entries are evicted
least recently read first once the events kept pass ``max_events``, their stored text
``max_bytes`` (default 256 MiB, or ``YADK_SESSION_CACHE_BYTES``), or the sessions
``max_sessions``; a session larger than the whole budget is not kept.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from typing import Any

from yadk.events import Event

__all__ = ["EventCache"]

_Key = tuple[str, str, str]
DEFAULT_MAX_BYTES = 256 * 1024 * 1024
BYTES_ENV = "YADK_SESSION_CACHE_BYTES"


class EventCache:
    """Frozen events per session (see the module docstring). Not thread-safe: each service
    uses it on its event loop only."""

    def __init__(
        self, max_events: int = 100_000, max_sessions: int = 10_000, max_bytes: int | None = None
    ) -> None:
        self.max_events = max_events
        self.max_sessions = max_sessions
        if max_bytes is None:
            text = os.environ.get(BYTES_ENV, "").strip().replace("_", "")
            max_bytes = int(text) if text.isdigit() else DEFAULT_MAX_BYTES
        self.max_bytes = max_bytes
        # key -> (creation stamp, seq, events, their stored text's length)
        self._entries: OrderedDict[_Key, tuple[Any, int, list[Event], int]] = OrderedDict()
        self._count = 0
        self._bytes = 0

    def peek(self, key: _Key) -> tuple[Any, int] | None:
        """(creation stamp, seq) of what is kept for ``key``, or ``None``; changes nothing."""
        entry = self._entries.get(key)
        return None if entry is None else (entry[0], entry[1])

    def read(self, key: _Key, epoch: Any, version: int) -> tuple[int, list[Event]]:
        """(seq to read the rows after, the events kept up to it) for ``key`` at ``version``:
        ``(0, [])`` when nothing kept still belongs to this session."""
        entry = self._entries.get(key)
        if entry is None:
            return 0, []
        if entry[0] != epoch or entry[1] > version:
            self.drop(key)
            return 0, []
        self._entries.move_to_end(key)
        return entry[1], list(entry[2])

    def update(
        self,
        key: _Key,
        epoch: Any,
        version: int,
        kept: list[Event],
        parsed: list[Event],
        parsed_bytes: int = 0,
    ) -> list[Event]:
        """Keep ``kept`` and ``parsed`` (the frozen events of the rows after ``kept``, whose
        stored text is ``parsed_bytes`` long) as ``key``'s events up to ``version``, and return
        them."""
        events = kept + parsed
        old = self._entries.get(key)
        kept_bytes = old[3] if old is not None and kept and len(old[2]) == len(kept) else 0
        size = kept_bytes + parsed_bytes
        self.drop(key)
        if len(events) <= self.max_events and size <= self.max_bytes:
            self._entries[key] = (epoch, version, events, size)
            self._count += len(events)
            self._bytes += size
            while (
                self._count > self.max_events
                or self._bytes > self.max_bytes
                or len(self._entries) > self.max_sessions
            ):
                _, (_, _, evicted, evicted_bytes) = self._entries.popitem(last=False)
                self._count -= len(evicted)
                self._bytes -= evicted_bytes
        return list(events)

    @property
    def kept_bytes(self) -> int:
        """The stored text length of every event kept."""
        return self._bytes

    def drop(self, key: _Key) -> None:
        entry = self._entries.pop(key, None)
        if entry is not None:
            self._count -= len(entry[2])
            self._bytes -= entry[3]
