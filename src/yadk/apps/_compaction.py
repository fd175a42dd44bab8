"""When event compaction runs and which events it summarises, as google-adk 2.13 decides.

Two triggers (``EventsCompactionConfig``):

* **sliding window** (``compaction_interval``, ``overlap_size``), after an invocation: once
  ``compaction_interval`` invocations are new since the last summary's end, the window from
  ``overlap_size`` invocations before the first new one to the end of the last is summarised;
* **token threshold** (``token_threshold``, ``event_retention_size``), after an invocation and
  before each model call: when the latest prompt size (the model's reported
  ``prompt_token_count``, else the request's characters / 4) reached the threshold, every event
  since the last summary but the last ``event_retention_size`` is summarised, the last summary
  first, so the new one supersedes it. It goes first: when it summarises, the window does not.

A window is cut back to its longest prefix that leaves no function call waiting for a response
(a call that can provably never be answered does not block it), and a range is summarised only
when it could remove more than the last summary's size. A summariser that fails leaves the
history whole (a warning is logged): compaction never fails a turn. The summary is appended to
the session; the events it covers stay in the store.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from yadk._compacted import compacted_events, compaction_ranges
from yadk._contexts import new_invocation_id
from yadk.agents import LlmAgent
from yadk.apps._summarizer import LlmEventSummarizer
from yadk.events import Event, EventActions, EventCompaction
from yadk.sessions import BaseSessionService, Session, StaleSessionError
from yadk.types import Content

if TYPE_CHECKING:
    from yadk.apps._configs import EventsCompactionConfig

__all__ = ["compact_after_invocation", "compact_for_token_threshold"]

logger = logging.getLogger("yadk.compaction")


async def compact_after_invocation(
    config: EventsCompactionConfig,
    *,
    session: Session,
    session_service: BaseSessionService,
    root_agent: Any,
) -> Event | None:
    """The summary appended after an invocation ended (token threshold first, then the
    sliding window), or ``None``."""
    if not session.events:
        return None
    if config.token_threshold is not None:
        summary = await compact_for_token_threshold(
            config, session=session, session_service=session_service, agent=root_agent
        )
        if summary is not None:
            return summary
    if config.compaction_interval is None or config.overlap_size is None:
        return None
    events = session.events
    window = _sliding_window(events, config.compaction_interval, config.overlap_size)
    window = _longest_self_contained_prefix(window, events)
    if not window or not _worth_compacting(events, window):
        return None
    return await _summarize_and_append(config, root_agent, session, session_service, window)


async def compact_for_token_threshold(
    config: EventsCompactionConfig,
    *,
    session: Session,
    session_service: BaseSessionService,
    agent: Any,
    agent_name: str = "",
    branch: str | None = None,
) -> Event | None:
    """The summary appended because the prompt reached ``token_threshold``, or ``None``.
    ``agent_name`` set (before a model call): only that agent's reported prompt sizes count."""
    threshold, retention = config.token_threshold, config.event_retention_size
    if threshold is None or retention is None:
        return None
    events = session.events
    size = _latest_prompt_tokens(events, agent_name=agent_name, branch=branch)
    if size is None or size < threshold:
        return None
    window = _token_threshold_window(events, retention)
    if not window or not _worth_compacting(events, window):
        return None
    return await _summarize_and_append(config, agent, session, session_service, window)


def _sliding_window(events: list[Event], interval: int, overlap: int) -> list[Event]:
    """The events the sliding window would summarise now (empty: not yet)."""
    last_end = 0.0
    for event in reversed(events):
        compaction = event.actions.compaction
        if compaction is not None and compaction.end_timestamp:
            last_end = compaction.end_timestamp
            break
    if _new_invocations_at_the_end(events, last_end) < interval:
        return []  # the common case, decided by the events since the last summary alone
    latest: dict[str, float] = {}  # invocation -> its latest timestamp, in order of appearance
    firsts: dict[str, int] = {}  # invocation -> the index of its first event
    for index, event in enumerate(events):
        invocation = event.invocation_id
        if not invocation:
            continue
        firsts.setdefault(invocation, index)
        if event.actions.compaction is None:
            known = latest.get(invocation)
            latest[invocation] = event.timestamp if known is None else max(known, event.timestamp)
    invocations = list(latest)
    new = [i for i in invocations if latest[i] > last_end]
    if len(new) < interval:
        return []
    start = invocations[max(0, invocations.index(new[0]) - overlap)]
    end = new[-1]
    last = next(i for i in range(len(events) - 1, -1, -1) if events[i].invocation_id == end)
    return [e for e in events[firsts[start] : last + 1] if e.actions.compaction is None]


def _new_invocations_at_the_end(events: list[Event], last_end: float) -> int:
    """How many invocations have events after ``last_end``, reading back from the end only
    as far as those events go (events are appended in time order)."""
    seen: set[str] = set()
    for event in reversed(events):
        if event.actions.compaction is not None:
            continue
        if event.timestamp <= last_end:
            break
        if event.invocation_id:
            seen.add(event.invocation_id)
    return len(seen)


def _token_threshold_window(events: list[Event], retention: int) -> list[Event]:
    """Every event since the last summary but the last ``retention`` (cut so no kept response
    loses its call), led by the last summary so the new one supersedes it."""
    ranges = compaction_ranges(events)
    latest = events[ranges[-1][0]] if ranges else None
    last_end = (
        latest.actions.compaction.end_timestamp if latest and latest.actions.compaction else 0
    )
    candidates = [e for e in events if e.actions.compaction is None and e.timestamp > last_end]
    if len(candidates) <= retention:
        return []
    if retention:
        candidates = candidates[: _retention_split(candidates, retention)]
    window = _longest_self_contained_prefix(candidates, events)
    if not window:
        return []
    if latest is not None and latest.actions.compaction is not None:
        seed = Event(
            timestamp=latest.actions.compaction.start_timestamp,
            author="model",
            content=latest.actions.compaction.compacted_content,
            branch=latest.branch,
            invocation_id=new_invocation_id(),
        )
        return [seed, *window]
    return window


def _retention_split(candidates: list[Event], retention: int) -> int:
    """Where to split so that each response kept has its call kept too."""
    limit = len(candidates) - retention
    if limit <= 0:
        return 0
    unmatched: set[str] = set()
    for index in range(len(candidates) - 1, -1, -1):
        unmatched |= _response_ids(candidates[index])
        unmatched -= _call_ids(candidates[index])
        if not unmatched and index <= limit:
            return index
    return 0


def _call_ids(event: Event) -> set[str]:
    return {c.id for c in event.get_function_calls() if c.id}


def _response_ids(event: Event) -> set[str]:
    return {r.id for r in event.get_function_responses() if r.id}


def _longest_self_contained_prefix(window: list[Event], events: list[Event]) -> list[Event]:
    """The longest prefix of ``window`` with no call waiting for its response; a call no
    response can ever answer (not long-running, answered nowhere, not from the newest
    invocation) does not count as waiting, so one orphaned call cannot block every summary."""

    def safe_length(dead: set[str]) -> int:
        open_ids: set[str] = set()
        length = 0
        for index, event in enumerate(window):
            open_ids -= _response_ids(event)
            open_ids |= _call_ids(event) - dead
            if not open_ids:
                length = index + 1
        return length

    length = safe_length(set())
    if length == len(window):
        return window
    if length > 0 and window[length - 1].invocation_id != window[length].invocation_id:
        return window[:length]
    newest = next(
        (e.invocation_id for e in reversed(events) if e.invocation_id and not e.actions.compaction),
        None,
    )
    protected: set[str] = set()
    answered: set[str] = set()
    for event in events:
        protected |= event.long_running_tool_ids or set()
        answered |= _response_ids(event)
    dead = {
        call_id
        for event in window
        if event.invocation_id != newest
        for call_id in _call_ids(event)
        if call_id not in protected and call_id not in answered
    }
    if not dead:
        return window[:length]
    return window[: max(length, safe_length(dead))]


def _latest_prompt_tokens(
    events: list[Event], *, agent_name: str, branch: str | None
) -> int | None:
    """The latest prompt size the model reported since the last summary, else an estimate."""
    for event in reversed(events):
        if event.actions.compaction is not None:
            break  # sizes before a summary describe prompts it replaced
        usage = event.usage_metadata
        if usage and usage.get("prompt_token_count") is not None:
            if not agent_name or event.author == agent_name:
                return int(usage["prompt_token_count"])
    chars = sum(
        _content_chars(e.content)
        for e in compacted_events(events, agent_name)
        if e.content is not None and _on_branch(branch, e)
    )
    return chars // 4 if chars > 0 else None  # about four characters a token


def _on_branch(branch: str | None, event: Event) -> bool:
    if not branch or not event.branch:
        return True
    return branch == event.branch or branch.startswith(event.branch + ".")


def _content_chars(content: Content) -> int:
    total = 0
    for part in content.parts:
        if part.text:
            total += len(part.text)
        if part.function_call is not None:
            total += len(part.function_call.name or "") + _json_len(part.function_call.args)
        if part.function_response is not None:
            total += len(part.function_response.name or "")
            total += _json_len(part.function_response.response)
    return total


def _json_len(value: Any) -> int:
    if not value:
        return 0
    try:
        return len(json.dumps(value))
    except (TypeError, ValueError):
        return len(str(value))


def _request_size(events: list[Event]) -> int:
    """Characters the events' contents take in a request (as JSON; summaries by their text)."""
    total = 0
    for event in events:
        compaction = event.actions.compaction
        content = compaction.compacted_content if compaction is not None else event.content
        if content is not None:
            total += len(content.model_dump_json(exclude_none=True))
    return total


def _worth_compacting(events: list[Event], window: list[Event]) -> bool:
    """Whether summarising ``window`` could remove more than the last summary's size (the
    best guess of the next one's before paying for it); the first summary always is."""
    stamps = [e.timestamp for e in window]
    # Only what lies at or after the window's start differs between the two requests: earlier
    # events (appended in time order) are in both alike, so they are left out of the sums.
    start = min(stamps)
    first = len(events)
    while first > 0 and events[first - 1].timestamp >= start:
        first -= 1
    tail = events[first:]
    empty = Event(
        author="model",
        actions=EventActions(
            compaction=EventCompaction(
                start_timestamp=min(stamps),
                end_timestamp=max(stamps),
                compacted_content=Content(role="model", parts=[]),
            )
        ),
    )
    removable = _request_size(compacted_events(tail)) - _request_size(
        compacted_events([*tail, empty])
    )
    ranges = compaction_ranges(events)
    previous = _request_size([events[ranges[-1][0]]]) if ranges else 0
    return removable > previous


async def _summarize_and_append(
    config: EventsCompactionConfig,
    agent: Any,
    session: Session,
    session_service: BaseSessionService,
    window: list[Event],
) -> Event | None:
    summarizer = config.summarizer
    if summarizer is None:
        if not isinstance(agent, LlmAgent):
            logger.warning(
                "Event compaction skipped: no summarizer is configured and agent %r has no"
                " model to summarise with; set EventsCompactionConfig(summarizer=...).",
                getattr(agent, "name", agent),
            )
            return None
        summarizer = LlmEventSummarizer(agent.canonical_model)
    try:
        summary: Event | None = await summarizer.maybe_summarize_events(events=window)
    except Exception as exc:  # the full history still works: never fail a turn
        logger.warning(
            "Event compaction failed (%s: %s); the history stays uncompacted.",
            type(exc).__name__,
            exc,
        )
        return None
    if summary is None:
        return None
    try:
        await session_service.append_event(session, summary)
    except StaleSessionError:
        logger.info(
            "Discarding the compaction of session %s: a newer turn updated it meanwhile.",
            session.id,
        )
        return None
    return summary
