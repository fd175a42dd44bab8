"""What an agent running under an isolation scope is told first: its task.

An agent under a scope (``ctx.run_node(..., override_isolation_scope=...)``) sees only that
scope's events, so the conversation that led to it is hidden. As in google-adk 2.13 its request
then opens with one user turn saying what to do: the arguments of the function call whose id is
the scope (a delegation by call), else the invocation's user message; and, for a single-turn agent
(the default for an LlmAgent a workflow runs), a last part saying no reply will come.
"""

from __future__ import annotations

import json

from yadk.events import Event
from yadk.types import Content, Part

__all__ = ["SINGLE_TURN_NUDGE", "scoped_task_content"]

SINGLE_TURN_NUDGE = (
    "Important: You will not receive any user replies or clarifications."
    " Complete the task using only the information provided above."
)


def scoped_task_content(
    events: list[Event], scope: str, *, user_content: Content | None, single_turn: bool
) -> Content | None:
    """The opening user turn of an agent under ``scope``, or None when there is nothing to say."""
    nudge = [Part(text=SINGLE_TURN_NUDGE)] if single_turn else []
    for event in reversed(events):  # the delegating call is recent; call ids are unique
        for call in event.get_function_calls():
            if call.id == scope and call.args:
                try:
                    text = json.dumps(dict(call.args), ensure_ascii=False)
                except (TypeError, ValueError):
                    text = str(call.args)
                return Content(role="user", parts=[Part(text=text), *nudge])
    if user_content is not None and user_content.parts:
        return Content(role="user", parts=[*user_content.parts, *nudge])
    return None
