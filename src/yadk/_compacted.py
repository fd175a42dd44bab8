"""A session's history as requests see it once compaction events are in it: each summary stands
at the end of the range it replaced, and the events inside a range are left out (they stay in
the store). The rules are google-adk 2.13's, so a compacted session gives the same request:

* a compaction event whose range lies inside another's is superseded by it (the same range twice:
  the later event wins); ranges that only overlap are both kept;
* a summary becomes an event of the agent the request is for, at its range's end timestamp, so
  the agent reads its compacted history as its own earlier turns;
* a function call whose response survived outside every range (a long-running tool answered
  after the call was summarised) is put back before that response, with its sibling responses,
  so calls and responses stay paired.
"""

from __future__ import annotations

import functools
import math
import weakref
from bisect import bisect_right
from collections.abc import Iterable

from yadk.events import Event

__all__ = ["compacted_events", "compaction_ranges", "has_compaction"]


def has_compaction(events: Iterable[Event]) -> bool:
    """Whether any of ``events`` is a compaction event."""
    return any(e.actions.compaction is not None for e in events)


def compaction_ranges(events: list[Event]) -> list[tuple[int, float, float]]:
    """``(index, start, end)`` of each compaction event not superseded, in event order."""
    ranges: list[tuple[int, float, float]] = []
    comparable: list[tuple[int, float, float]] = []
    kept: set[int] = set()
    for index, event in enumerate(events):
        compaction = event.actions.compaction
        if compaction is None:
            continue
        item = (index, compaction.start_timestamp, compaction.end_timestamp)
        ranges.append(item)
        if math.isnan(item[1]) or math.isnan(item[2]):
            kept.add(index)  # contains nothing and is contained by nothing
        else:
            comparable.append(item)
    # By start, then widest first, then latest first: a range is superseded exactly when an
    # earlier item in this order reaches at least as far.
    comparable.sort(key=lambda item: (item[1], -item[2], -item[0]))
    reach: float | None = None
    for index, _, end in comparable:
        if reach is None or end > reach:
            kept.add(index)
            reach = end
    return [item for item in ranges if item[0] in kept]


def compacted_events(events: list[Event], agent_name: str = "") -> list[Event]:
    """``events`` with each kept summary in place of the events its range covers."""
    ranges = compaction_ranges(events)
    kept = {index for index, _, _ in ranges}
    coverage: list[tuple[float, float]] = []
    for start, end in sorted((start, end) for _, start, end in ranges if start <= end):
        if coverage and start <= coverage[-1][1]:
            coverage[-1] = (coverage[-1][0], max(coverage[-1][1], end))
        else:
            coverage.append((start, end))
    starts = [start for start, _ in coverage]

    def covered(timestamp: float) -> bool:
        at = bisect_right(starts, timestamp) - 1
        return at >= 0 and timestamp <= coverage[at][1]

    items: list[tuple[float, int, Event]] = []
    for index, event in enumerate(events):
        compaction = event.actions.compaction
        if compaction is not None:
            if index in kept:
                summary = _summary_event(event, agent_name or "model")
                items.append((compaction.end_timestamp, index, summary))
        elif not covered(event.timestamp):
            items.append((event.timestamp, index, event))
    items.sort(key=lambda item: (item[0], item[1]))
    return _recover_calls([event for _, _, event in items], events)


# The event each summary stands as in a request, built once per compaction event and agent
# (a history is compacted again each time a summary lands). Keyed by the compaction event's id,
# checked by a weak reference to it.
_SUMMARIES: dict[tuple[int, str], tuple[weakref.ref[Event], Event]] = {}


def _summary_event(event: Event, author: str) -> Event:
    key = (id(event), author)
    known = _SUMMARIES.get(key)
    if known is not None and known[0]() is event:
        return known[1]
    compaction = event.actions.compaction
    assert compaction is not None
    summary = Event(
        timestamp=compaction.end_timestamp,
        author=author,
        content=compaction.compacted_content,
        branch=event.branch,
        invocation_id=event.invocation_id,
        actions=event.actions,
    )
    _SUMMARIES[key] = (weakref.ref(event, functools.partial(_forget, key)), summary)
    return summary


def _forget(key: tuple[int, str], dead: weakref.ref[Event]) -> None:
    known = _SUMMARIES.get(key)
    if known is not None and known[0] is dead:
        del _SUMMARIES[key]


def _recover_calls(events: list[Event], source: list[Event]) -> list[Event]:
    """Put back each call event a summary removed whose response is still in ``events``."""
    responses = {r.id for e in events for r in e.get_function_responses() if r.id}
    if not responses or responses <= {c.id for e in events for c in e.get_function_calls()}:
        return events  # every response has its call: nothing to put back
    present = {id(e) for e in events}
    latest_call: dict[str, Event] = {}
    call_of: dict[tuple[int, str], Event] = {}  # (response event, call id) -> call event
    response_of: dict[tuple[int, str], Event] = {}  # (call event, call id) -> latest response
    surviving: set[tuple[int, str]] = set()
    for event in source:
        for call in event.get_function_calls():
            if call.id:
                latest_call[call.id] = event
        for response in event.get_function_responses():
            call_event = latest_call.get(response.id or "")
            if not response.id or call_event is None:
                continue
            call_of[id(event), response.id] = call_event
            key = (id(call_event), response.id)
            if id(event) in present:
                surviving.add(key)
            previous = response_of.get(key)
            if previous is None or event.timestamp >= previous.timestamp:
                response_of[key] = event
    result: list[Event] = []
    restored: set[int] = set()
    for event in events:
        for response in event.get_function_responses():
            call_event = call_of.get((id(event), response.id or ""))
            if call_event is None or id(call_event) in present or id(call_event) in restored:
                continue
            result.append(call_event)
            restored.add(id(call_event))
            for sibling in call_event.get_function_calls():
                key = (id(call_event), sibling.id or "")
                answer = response_of.get(key)
                if sibling.id and key not in surviving and answer is not None:
                    if id(answer) not in restored:
                        result.append(answer)
                        restored.add(id(answer))
        result.append(event)
    return result if restored else events
