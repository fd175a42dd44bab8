"""What an LlmAgent a workflow runs single-turn is sent (google-adk 2.13's ``single_turn`` mode).

A single-turn agent answers its node input once, without the user: its request holds that input
as the one user turn, then the events of its own run (its tool calls and their results), and
nothing else of the conversation: not the user's messages, not the other nodes' events, not its
own earlier runs (a loop's second run is a new run path, ``agent@2``; the next invocation's
run is a new run though at the same path).

A run's events are found through an index kept per session object (by invocation and node
path, each event under its path and every enclosing one), extended by the events appended since
the last call, as the contents cache does (``_contents_cache._Prefix``): a model call reads its
own run's events, not the whole session, so a workflow that loops a thousand times over an agent
pays the same per call at the end as at the start.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

from yadk.agents._contents import build_contents
from yadk.agents._contents_cache import _Prefix
from yadk.events import Event
from yadk.sessions import Session
from yadk.types import Content

__all__ = ["single_turn_contents"]


@dataclass
class _Runs(_Prefix):
    """The events of each node run of a session, by (invocation id, node path): an event at
    ``a/b@2/c`` is listed under ``a/b@2/c``, ``a/b@2`` and ``a``."""

    runs: dict[tuple[str, str], list[Event]] = field(default_factory=dict)

    def add(self, events: list[Event]) -> None:
        for event in events:
            if event.node_info is None or not event.node_info.path:
                continue
            path = event.node_info.path
            while True:
                self.runs.setdefault((event.invocation_id, path), []).append(event)
                cut = path.rfind("/")
                if cut < 0:
                    break
                path = path[:cut]


_index: weakref.WeakKeyDictionary[Session, _Runs] = weakref.WeakKeyDictionary()


def _run_events(session: Session, invocation_id: str, node_path: str) -> list[Event]:
    """The events of the run at ``node_path`` in ``invocation_id`` and of what it ran, in the
    order they were appended."""
    events = session.events
    runs = _index.get(session)
    if runs is None or not runs.extends(events):
        runs = _index[session] = _Runs(events)
    runs.add(runs.advance(events))
    return list(runs.runs.get((invocation_id, node_path), ()))


def single_turn_contents(
    session: Session,
    *,
    agent_name: str,
    branch: str | None,
    isolation_scope: str | None,
    node_path: str,
    invocation_id: str,
    node_input: Content,
    resumed: bool = False,
) -> list[Content]:
    """The contents of a model call by a single-turn agent running at ``node_path`` in
    ``invocation_id`` (a later invocation starts the workflow again, at the same path).
    ``resumed``: the run goes on after the user answered its long-running call, in a later
    invocation; its input is not given again (google-adk's)."""
    if resumed:
        return build_contents(
            _resumed_turn(session.events, node_path),
            agent_name=agent_name,
            branch=branch,
            include_contents="default",
            isolation_scope=isolation_scope,
        )
    own = _run_events(session, invocation_id, node_path) if node_path else []
    history = build_contents(
        own,
        agent_name=agent_name,
        branch=branch,
        include_contents="default",
        isolation_scope=isolation_scope,
    )
    if not node_input.parts:  # a node run without input
        return history
    return [Content(role="user", parts=list(node_input.parts)), *history]


def _resumed_turn(events: list[Event], node_path: str) -> list[Event]:
    """What a resumed single-turn run is sent, as google-adk sends it: its current turn, from
    the user's last message (the one its workflow run began with) on, of which its own events
    (from every invocation since) and the user's answers to its calls. Read from the end of the
    session once per model call of a resumed run, not indexed: resuming is rare."""
    turn: list[Event] = []
    for event in reversed(events):
        path = event.node_info.path if event.node_info is not None else None
        if path and (path == node_path or path.startswith(node_path + "/")):
            turn.append(event)
        elif event.author == "user" and not path:
            turn.append(event)
            if not event.get_function_responses():
                break  # the message the turn began with
    turn.reverse()
    calls = {c.id for e in turn for c in e.get_function_calls() if c.id}
    return [
        e
        for e in turn
        if e.author != "user"
        or not e.get_function_responses()
        or any(r.id in calls for r in e.get_function_responses())
    ]
