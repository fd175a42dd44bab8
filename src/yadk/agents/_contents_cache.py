"""Contents kept per session between model calls, so a turn folds only the events it adds.

A runner keeps its session object between turns and appends new events to it; history is
immutable once appended. So the contents folded for an agent on a branch stay right as long as
the session's event list still starts with the events they were folded from. That is checked
on every call (the same list object, its length, and the first and last folded events by
identity); anything else (a session re-read whole, history cut or replaced) folds again from
scratch. The result is what ``build_contents`` returns for the same events.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

from yadk.agents._contents import (
    Folded,
    _resume_long_running,
    build_contents,
    finish_contents,
    fold_events,
)
from yadk.events import Event
from yadk.sessions import Session
from yadk.types import Content

__all__ = ["session_contents"]


@dataclass
class _Entry:
    events: list[Event]
    count: int = 0
    first: Event | None = None
    last: Event | None = None
    folded: Folded = field(default_factory=Folded)

    def extends(self, events: list[Event]) -> bool:
        if events is not self.events or len(events) < self.count:
            return False
        return self.count == 0 or (events[0] is self.first and events[self.count - 1] is self.last)


_CacheKey = tuple[str, str | None]
_cache: weakref.WeakKeyDictionary[Session, dict[_CacheKey, _Entry]] = weakref.WeakKeyDictionary()


def session_contents(
    session: Session, *, agent_name: str, branch: str | None, include_contents: str
) -> list[Content]:
    """``build_contents(session.events, ...)``, folding only events new since the last call."""
    events = session.events
    if include_contents == "none" or _resume_long_running(events) is not events:
        # The current turn only, or a long-running call's history cut short: not a prefix.
        return build_contents(
            events, agent_name=agent_name, branch=branch, include_contents=include_contents
        )
    entries = _cache.setdefault(session, {})
    key = (agent_name, branch)
    entry = entries.get(key)
    if entry is None or not entry.extends(events):
        entry = entries[key] = _Entry(events=events)
    if len(events) > entry.count:
        fold_events(entry.folded, events[entry.count :], agent_name, branch)
        entry.count = len(events)
        entry.first = events[0]
        entry.last = events[-1]
    return finish_contents(entry.folded)
