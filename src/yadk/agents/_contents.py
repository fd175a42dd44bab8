"""Session history to model contents: what an agent sees of the conversation (the folding;
``_other_agents`` re-voices another agent's events, ``_pairing`` pairs calls and responses).

The rules follow google-adk 2.13, so a multi-agent config gives each model the same request:

* only events on the agent's branch or an ancestor branch are seen (parallel branches never see
  each other), and events without visible content are skipped;
* only events of the agent's isolation scope are seen (``ctx.run_node(...,
  override_isolation_scope=...)``): an agent under a scope sees that scope's events, an agent
  under none the events of none;
* another agent's event is re-voiced as user-side context: a fixed preamble, then each part as
  ``[author] said:`` / ``called tool`` / ``tool returned result:``, its payload fenced between
  quote markers so a relayed text cannot pass itself off as instructions;
* what a tool's run publishes on a branch below the agent's (a single-turn sub-agent called as
  a tool, on ``<branch>.<name>@<call id>``) is left out: the model gets the tool's response;
* every function call is kept next to its response: responses without a call and calls that
  never got a response (a cancelled branch, an interrupted turn) are dropped, so providers do
  not reject the history;
* ``include_contents="none"`` keeps the current turn only: from the latest message of the user
  or of another agent, skipping transfer hand-offs so a transferred-to agent still sees the
  user's request;
* a tool confirmation request (``adk_request_confirmation``) and the user's answer are left
  out (the model sees the call and, once answered, the rerun's response);
* a compaction event's summary stands for the events it replaced (``yadk._compacted``).
"""

from __future__ import annotations

from collections.abc import Container, Iterable
from dataclasses import dataclass, field

from yadk._compacted import compacted_events, has_compaction
from yadk._tool_confirmation import REQUEST_CONFIRMATION
from yadk.agents._other_agents import (
    OTHER_AGENT_CONTEXT_PREAMBLE,
    QUOTED_CONTENT_BEGIN,
    QUOTED_CONTENT_END,
    as_context,
    quote_untrusted,
)
from yadk.agents._pairing import CLIENT_CALL_ID_PREFIX, Pairing
from yadk.events import Event
from yadk.types import Content

__all__ = [
    "CLIENT_CALL_ID_PREFIX",
    "OTHER_AGENT_CONTEXT_PREAMBLE",
    "QUOTED_CONTENT_BEGIN",
    "QUOTED_CONTENT_END",
    "build_contents",
    "event_in_branch",
    "quote_untrusted",
]

_TRANSFER_TOOL = "transfer_to_agent"


def event_in_branch(branch: str | None, event: Event) -> bool:
    """An event is visible on ``branch`` if it was produced on it or on an ancestor branch."""
    if not branch or not event.branch:
        return True
    return branch == event.branch or branch.startswith(event.branch + ".")


def _has_visible_content(event: Event) -> bool:
    content = event.content
    if event.partial or content is None or not content.role or not content.parts:
        return False
    return any(
        p.function_call is not None
        or p.function_response is not None
        or p.executable_code is not None
        or p.code_execution_result is not None
        or (not p.thought and bool(p.text or p.inline_data or p.file_data))
        for p in content.parts
    )


def _included(branch: str | None, scope: str | None, event: Event) -> bool:
    return (
        event.isolation_scope == scope
        and _has_visible_content(event)
        and event_in_branch(branch, event)
    )


def _is_other_agent(agent_name: str, event: Event) -> bool:
    return bool(agent_name) and event.author not in (agent_name, "user")


def build_contents(
    events: list[Event],
    *,
    agent_name: str,
    branch: str | None,
    include_contents: str,
    call_ids: Container[str] | None = None,
    compacted: bool | None = None,
    isolation_scope: str | None = None,
) -> list[Content]:
    """Contents for a model call by ``agent_name`` on ``branch`` under ``isolation_scope`` (see
    the module docstring).

    ``call_ids``, when given, holds every function-call id in ``events`` (a caller that keeps
    them as events are appended saves ``include_contents="none"`` a scan of the history).
    Compaction events (App event compaction) stand for the events they summarise; ``compacted``
    says whether ``events`` hold any (``None``: look).
    """
    if compacted or (compacted is None and has_compaction(events)):
        events = compacted_events(events, agent_name)
        call_ids = None
    resumed = _resume_long_running(events)
    if include_contents == "none":
        if resumed is not events or call_ids is None:
            call_ids = function_call_ids(resumed)
        events = _current_turn(resumed, agent_name, branch, isolation_scope, call_ids)
    else:
        events = resumed
    folded = Folded()
    fold_events(folded, events, agent_name, branch, isolation_scope)
    return finish_contents(folded)


@dataclass
class Folded:
    """History folded into contents so far, and their call/response pairing: what a cache keeps
    so that the next model call folds and pairs only the events appended since."""

    contents: list[Content] = field(default_factory=list)
    call_authors: dict[str, str] = field(default_factory=dict)
    has_calls: bool = False
    pairing: Pairing = field(default_factory=Pairing)


def fold_events(
    folded: Folded,
    events: Iterable[Event],
    agent_name: str,
    branch: str | None,
    scope: str | None = None,
) -> None:
    """Add ``events`` (in order, after those already folded) to ``folded``."""
    # No per-event allocations on the common path: this runs before every model call.
    contents = folded.contents
    call_authors = folded.call_authors
    for event in events:
        content = event.content
        if (
            event.partial
            or content is None
            or not content.role
            or not content.parts
            or event.isolation_scope != scope
        ):
            continue
        if (
            branch
            and event.branch
            and not (branch == event.branch or branch.startswith(event.branch + "."))
        ):
            continue
        if event.branch and _on_tool_branch(branch, event.branch, agent_name, call_authors):
            continue
        visible = calls = asks = False
        for part in content.parts:
            if part.function_call is not None:
                visible = calls = True
                asks = asks or part.function_call.name == REQUEST_CONFIRMATION
                if part.function_call.id:
                    call_authors[part.function_call.id] = event.author
            elif part.function_response is not None:
                visible = calls = True
                asks = asks or part.function_response.name == REQUEST_CONFIRMATION
            elif part.executable_code is not None or part.code_execution_result is not None:
                visible = True
            elif not part.thought and (part.text or part.inline_data or part.file_data):
                visible = True
        if not visible or asks:  # a confirmation request and its answer are the user's
            continue
        author = event.author
        other = bool(agent_name) and author != agent_name and author != "user"
        if not other and calls:
            other = _answers_other_agent(content, agent_name, call_authors)
        if other:
            relayed = as_context(event)
            if relayed is not None:
                contents.append(relayed)
        else:
            contents.append(content)
            folded.has_calls = folded.has_calls or calls


def _on_tool_branch(
    branch: str | None, event_branch: str, agent_name: str, call_ids: Container[str]
) -> bool:
    """Whether the event was published by a tool's run below ``branch``: a single-turn
    sub-agent runs on ``<branch>.<name>@<call id>``, and the caller's model gets only the
    tool's response (as in google-adk). The sub-agent on its own branch still sees its events."""
    if branch:
        if not event_branch.startswith(branch + "."):
            return False
        event_branch = event_branch[len(branch) + 1 :]
    for segment in event_branch.split("."):
        name, at, run = segment.rpartition("@")
        if at and name != agent_name and run in call_ids:
            return True
    return False


def finish_contents(folded: Folded) -> list[Content]:
    """The request's contents from ``folded``: a new list, so a caller may edit it freely."""
    if not folded.has_calls:
        return list(folded.contents)
    pairing = folded.pairing
    pairing.add(folded.contents[pairing.count :])
    return pairing.contents()


def _resume_long_running(events: list[Event]) -> list[Event]:
    """When the latest event answers calls made further back (a long-running tool's final
    response), what came in between (its interim answers, the model's "pending" replies) is
    left out, so the call and its final response are adjacent, as in google-adk; answers to the
    same turn's other calls stay, to be merged with it (``Pairing``)."""
    if not events:
        return events
    ids = {r.id for r in events[-1].get_function_responses() if r.id}
    if not ids:
        return events
    for index in range(len(events) - 2, -1, -1):
        calls = {c.id for c in events[index].get_function_calls() if c.id}
        if ids & calls:
            if index == len(events) - 2:
                return events
            # Answers to the turn's other calls stay (google-adk merges them with this one).
            others = calls - ids
            answers = [
                e
                for e in events[index + 1 : -1]
                if others and any(r.id in others for r in e.get_function_responses())
            ]
            return [*events[: index + 1], *answers, events[-1]]
    return events


def _answers_other_agent(content: Content, agent_name: str, call_authors: dict[str, str]) -> bool:
    """A response to a call another agent made is that agent's business, not this one's."""
    for part in content.parts:
        response = part.function_response
        if response is not None and response.id:
            author = call_authors.get(response.id)
            if author and author not in (agent_name, "user"):
                return True
    return False


def function_call_ids(events: Iterable[Event]) -> set[str]:
    """The ids of the function calls in ``events``."""
    return {c.id for e in events for c in e.get_function_calls() if c.id}


def _current_turn(
    events: list[Event],
    agent_name: str,
    branch: str | None,
    scope: str | None,
    call_ids: Container[str],
) -> list[Event]:
    """The events from the start of the current turn on (``include_contents="none"``).

    The turn starts at the latest message of the user or of another agent, except a transfer
    hand-off, and except a tool result the user posted back: that continues the turn that made
    the call, so the slice reaches back past the call it answers (only a call ``call_ids``
    holds: a response to no call in the history continues nothing). The scan stops at the
    turn's start, so its cost is the turn's, not the history's.
    """
    unanswered: set[str] = set()
    for index in range(len(events) - 1, -1, -1):
        event = events[index]
        unanswered -= {c.id for c in event.get_function_calls() if c.id}
        posted_back = event.author == "user" and bool(event.get_function_responses())
        if posted_back:
            unanswered |= {
                r.id for r in event.get_function_responses() if r.id and r.id in call_ids
            }
        if (
            not unanswered
            and not posted_back
            and (event.author == "user" or _is_other_agent(agent_name, event))
            and not _is_transfer(event)
            and _included(branch, scope, event)
        ):
            return events[index:]
    return []


def _is_transfer(event: Event) -> bool:
    if event.actions.transfer_to_agent:
        return True
    return any(c.name == _TRANSFER_TOOL for c in event.get_function_calls())
