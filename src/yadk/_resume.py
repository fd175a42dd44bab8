"""Resumable invocations: which invocation a run resumes, and where each agent picks it up.

A resumed invocation keeps its id and reads the point to go on from in the events it already
stored (the runner stores each event before it is yielded, so they are what a killed process
left behind): an agent whose answer is stored is done, a tool call without its response runs
now, a long-running call without one keeps waiting, and anything else calls the model again.
Nothing but the session is needed, so an invocation resumes in another process, from any store.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from yadk.errors import ResumeError

if TYPE_CHECKING:
    from yadk.events import Event
    from yadk.sessions import Session
    from yadk.types import Content, FunctionCall

__all__ = ["ResumeDecision", "ResumePlan", "decide_resume", "invocation_answered", "plan_resume"]

_NOT_RESUMABLE = (
    "Runner.run_async(invocation_id={!r}) resumes an invocation, which needs a resumable app:"
    " Runner(app=App(..., resumability_config=ResumabilityConfig(is_resumable=True)))."
)


@dataclasses.dataclass
class ResumePlan:
    """The invocation being resumed: its id, its first event's index in the session, the
    user's message that started it, and the agents (with their branches) that have already
    looked at what they had done."""

    invocation_id: str
    start: int
    user_content: Content | None
    consulted: set[tuple[str, str | None]] = dataclasses.field(default_factory=set)


@dataclasses.dataclass
class ResumeDecision:
    """How an LLM agent goes on: ``done`` (its answer is stored), ``waiting`` (a long-running
    call is unanswered), ``calls`` to run first, or a ``transfer`` to follow; with none of them
    it calls the model again."""

    done: bool = False
    waiting: bool = False
    calls: list[FunctionCall] = dataclasses.field(default_factory=list)
    transfer: str | None = None


def plan_resume(session: Session, invocation_id: str, *, resumable: bool) -> ResumePlan:
    """The plan to resume ``invocation_id``; ``ResumeError`` when the app is not resumable or
    the session holds no such invocation."""
    if not resumable:
        raise ResumeError(_NOT_RESUMABLE.format(invocation_id))
    events = session.events
    start = next((i for i, e in enumerate(events) if e.invocation_id == invocation_id), None)
    if start is None:
        raise ResumeError(
            f"Invocation {invocation_id!r} is not in session {session.id!r}, so it cannot be"
            " resumed: pass the invocation_id of one of the session's events (the runner's"
            " events carry it), or send a new_message without invocation_id to start a new"
            " invocation."
        )
    user_content = None
    for event in events[start:]:
        if event.invocation_id == invocation_id and event.author == "user" and event.content:
            if not event.get_function_responses():
                user_content = event.content
                break
    return ResumePlan(invocation_id, start, user_content)


def invocation_answered(session: Session, message: Content | None) -> str | None:
    """The invocation whose function calls ``message`` answers (a long-running tool's result),
    as google-adk's resumable runner finds it; ``None`` when it answers none."""
    ids = {
        p.function_response.id
        for p in (message.parts if message is not None else [])
        if p.function_response is not None and p.function_response.id
    }
    if not ids:
        return None
    for event in reversed(session.events):
        if ids & {c.id for c in event.get_function_calls() if c.id}:
            return event.invocation_id
    return None


def decide_resume(
    plan: ResumePlan, events: list[Event], agent_name: str, branch: str | None
) -> ResumeDecision | None:
    """Where ``agent_name`` (on ``branch``) goes on in the resumed invocation; ``None`` when it
    starts afresh (it had not run, or it already looked once: a loop's next iteration)."""
    key = (agent_name, branch)
    if key in plan.consulted:
        return None
    plan.consulted.add(key)
    mine = [
        e for e in events[plan.start :] if e.invocation_id == plan.invocation_id and not e.partial
    ]
    own = [e for e in mine if e.author == agent_name and e.branch == branch]
    if not own:
        return None
    last = own[-1]
    if last.error_code:
        return ResumeDecision()  # the step that failed is tried again
    calls = last.get_function_calls()
    if calls:
        answered = {r.id for e in mine for r in e.get_function_responses() if r.id}
        pending = [c for c in calls if c.id not in answered]
        waiting = last.long_running_tool_ids or set()
        to_run = [c for c in pending if c.id not in waiting]
        if pending and not to_run:
            return ResumeDecision(waiting=True)
        return ResumeDecision(calls=to_run)
    if last.actions.transfer_to_agent:
        return ResumeDecision(transfer=last.actions.transfer_to_agent)
    if last.is_final_response():
        return ResumeDecision(done=True)
    return ResumeDecision()
