"""What an LlmAgent a workflow runs single-turn is sent (google-adk 2.13's ``single_turn`` mode).

A single-turn agent answers its node input once, without the user: its request holds that input
as the one user turn, then the events of its own run (its tool calls and their results), and
nothing else of the conversation: not the user's messages, not the other nodes' events, not its
own earlier runs (a loop's second run is a new run path, ``agent@2``; the next invocation's
run is a new run though at the same path).
"""

from __future__ import annotations

from yadk.agents._contents import build_contents
from yadk.events import Event
from yadk.types import Content

__all__ = ["single_turn_contents"]


def single_turn_contents(
    events: list[Event],
    *,
    agent_name: str,
    branch: str | None,
    isolation_scope: str | None,
    node_path: str,
    invocation_id: str,
    node_input: Content,
) -> list[Content]:
    """The contents of a model call by a single-turn agent running at ``node_path`` in
    ``invocation_id`` (a later invocation starts the workflow again, at the same path)."""
    inside = node_path + "/"
    own = [
        e
        for e in events
        if e.invocation_id == invocation_id
        and e.node_info is not None
        and node_path
        and (e.node_info.path == node_path or e.node_info.path.startswith(inside))
    ]
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
