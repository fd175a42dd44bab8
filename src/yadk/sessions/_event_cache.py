"""The parsed events of recently read sessions, kept by a durable session service.

Parsing stored JSON into events is most of what ``get_session`` costs (see ``_stored_events``
and ``bench/bench_event_parse.py``). Stored events never change (a store only appends them, and deletes them with
their session), so a service may keep the frozen events it parsed and, on the next read of that
session, parse only the rows stored after them, also when another process appended those rows.

An entry is (creation stamp, last seq, events); it serves a read only when the session still has
the same creation stamp and its version has not gone below the seq kept, so a session deleted and
created again under the same id (here or in another process) is read afresh. Entries are evicted
least recently read first once the events kept pass ``max_events`` (or the sessions
``max_sessions``).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from yadk.events import Event

__all__ = ["EventCache"]

_Key = tuple[str, str, str]


class EventCache:
    """Frozen events per session (see the module docstring). Not thread-safe: each service
    uses it on its event loop only."""

    def __init__(self, max_events: int = 100_000, max_sessions: int = 10_000) -> None:
        self.max_events = max_events
        self.max_sessions = max_sessions
        self._entries: OrderedDict[_Key, tuple[Any, int, list[Event]]] = OrderedDict()
        self._count = 0

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
        self, key: _Key, epoch: Any, version: int, kept: list[Event], parsed: list[Event]
    ) -> list[Event]:
        """Keep ``kept`` and ``parsed`` (the frozen events of the rows after ``kept``) as
        ``key``'s events up to ``version``, and return them."""
        events = kept + parsed
        self.drop(key)
        if len(events) <= self.max_events:
            self._entries[key] = (epoch, version, events)
            self._count += len(events)
            while self._count > self.max_events or len(self._entries) > self.max_sessions:
                _, (_, _, evicted) = self._entries.popitem(last=False)
                self._count -= len(evicted)
        return list(events)

    def drop(self, key: _Key) -> None:
        entry = self._entries.pop(key, None)
        if entry is not None:
            self._count -= len(entry[2])
