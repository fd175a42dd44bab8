"""Contents kept per session between model calls, so a turn folds only the events it adds.

A runner keeps its session object between turns and appends new events to it; history is
immutable once appended. So the contents folded for an agent on a branch stay right as long as
the session's event list still starts with the events they were folded from. That is checked
on every call (the same list object, its length, and the first and last folded events by
identity); anything else (a session re-read whole, history cut or replaced) folds again from
scratch. The result is what ``build_contents`` returns for the same events. A compaction event
among the new ones replaces events already folded, so the history is folded again, compacted.

``include_contents="none"`` keeps only the current turn, so nothing folded carries over; what
carries over is the set of function-call ids in the history (a tool result the user posts back
continues the turn of the call it answers), kept the same way, so a model call reads only the
events of its turn and those appended since the last call.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

from yadk._compacted import compacted_events, has_compaction
from yadk.agents._contents import (
    Folded,
    _resume_long_running,
    build_contents,
    finish_contents,
    fold_events,
    function_call_ids,
)
from yadk.events import Event
from yadk.sessions import Session
from yadk.types import Content

__all__ = ["session_contents"]


@dataclass
class _Prefix:
    """The prefix of a session's event list a cached value was built from."""

    events: list[Event]
    count: int = 0
    first: Event | None = None
    last: Event | None = None

    def extends(self, events: list[Event]) -> bool:
        if events is not self.events or len(events) < self.count:
            return False
        return self.count == 0 or (events[0] is self.first and events[self.count - 1] is self.last)

    def advance(self, events: list[Event]) -> list[Event]:
        """The events appended since the last call, now counted as read."""
        new = events[self.count :]
        if new:
            self.count = len(events)
            self.first = events[0]
            self.last = events[-1]
        return new


@dataclass
class _Entry(_Prefix):
    folded: Folded = field(default_factory=Folded)
    # Whether the folded events hold a compaction event: what was folded is then the history
    # as compacted, and a tool result may need a call a summary took away (folded again).
    compacted: bool = False


@dataclass
class _CallIds(_Prefix):
    ids: set[str] = field(default_factory=set)
    compacted: bool = False


_CacheKey = tuple[str, str | None, str | None]
_cache: weakref.WeakKeyDictionary[Session, dict[_CacheKey, _Entry]] = weakref.WeakKeyDictionary()
_call_ids: weakref.WeakKeyDictionary[Session, _CallIds] = weakref.WeakKeyDictionary()


def session_contents(
    session: Session,
    *,
    agent_name: str,
    branch: str | None,
    include_contents: str,
    isolation_scope: str | None = None,
) -> list[Content]:
    """``build_contents(session.events, ...)``, folding only events new since the last call."""
    events = session.events
    if include_contents == "none":
        return build_contents(
            events,
            agent_name=agent_name,
            branch=branch,
            include_contents=include_contents,
            isolation_scope=isolation_scope,
            call_ids=(known := _session_call_ids(session, events)).ids,
            compacted=known.compacted,
        )
    if _resume_long_running(events) is not events:
        # A long-running call's history cut short: not a prefix of what was folded.
        return build_contents(
            events,
            agent_name=agent_name,
            branch=branch,
            include_contents=include_contents,
            isolation_scope=isolation_scope,
            compacted=_session_call_ids(session, events).compacted,
        )
    entries = _cache.setdefault(session, {})
    key = (agent_name, branch, isolation_scope)
    entry = entries.get(key)
    if entry is None or not entry.extends(events):
        entry = entries[key] = _Entry(events=events)
    new = entry.advance(events)
    if new and (has_compaction(new) or (entry.compacted and _answers_unseen_call(new, entry))):
        # A new summary replaces events already folded: fold the compacted history afresh.
        entry.compacted = True
        entry.folded = Folded()
        fold_events(
            entry.folded,
            compacted_events(events, agent_name),
            agent_name,
            branch,
            isolation_scope,
        )
    elif new:
        fold_events(entry.folded, new, agent_name, branch, isolation_scope)
    return finish_contents(entry.folded)


def _answers_unseen_call(new: list[Event], entry: _Entry) -> bool:
    """Whether ``new`` answers a call no folded event holds (one a summary took away)."""
    ids = {r.id for e in new for r in e.get_function_responses() if r.id}
    return bool(ids) and bool(ids - entry.folded.call_authors.keys() - function_call_ids(new))


def _session_call_ids(session: Session, events: list[Event]) -> _CallIds:
    """Every function-call id in ``events`` and whether they hold a compaction event, reading
    only the events new since the last call."""
    entry = _call_ids.get(session)
    if entry is None or not entry.extends(events):
        entry = _call_ids[session] = _CallIds(events=events)
    new = entry.advance(events)
    entry.ids |= function_call_ids(new)
    entry.compacted = entry.compacted or has_compaction(new)
    return entry
