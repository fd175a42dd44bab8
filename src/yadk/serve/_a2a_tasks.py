"""A2A tasks read from the session store: a task is the invocation(s) its messages started.

Nothing is stored beside the session: the user event that starts an invocation for a task
carries ``a2a:task_id`` in its state delta, and a cancelled task gets one event whose
``custom_metadata`` says so. Everything else (state, answer, history, what the task waits
for) is read from the session's events, so a task survives a restart and is the same on every
replica that shares the store.

A task's id names its context (``<context id, base64url>.<random>``), so ``GetTask`` with an id
alone finds the session without an index.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import uuid
from typing import Final, Literal

from yadk.a2a import DATA_END, DATA_MIME_TYPE, DATA_START
from yadk.events import Event
from yadk.sessions import Session
from yadk.types import Blob, FunctionCall, Part

__all__ = [
    "CANCEL_KEY",
    "LOST",
    "TASK_KEY",
    "TERMINAL",
    "TaskState",
    "TaskView",
    "answer_parts",
    "context_of",
    "new_task_id",
    "task_ids",
    "task_view",
]

TASK_KEY: Final = "a2a:task_id"
CANCEL_KEY: Final = "a2a:canceled_task"

TaskState = Literal["submitted", "working", "input-required", "completed", "failed", "canceled"]
TERMINAL: Final = frozenset({"completed", "failed", "canceled"})


@dataclasses.dataclass
class HistoryEntry:
    role: Literal["user", "agent"]
    parts: list[Part]
    message_id: str


@dataclasses.dataclass
class TaskView:
    """What a task is now, as the session's events tell it."""

    id: str
    context_id: str
    state: TaskState
    status_parts: list[Part]
    answer: list[Part]
    history: list[HistoryEntry]
    timestamp: float
    pending: list[FunctionCall]
    saved_artifacts: dict[str, int]
    last_invocation: str
    agent: str


def new_task_id(context_id: str) -> str:
    encoded = base64.urlsafe_b64encode(context_id.encode()).decode("ascii").rstrip("=")
    return f"{encoded}.{uuid.uuid4().hex}"


def context_of(task_id: str) -> str | None:
    """The context id a task id names, or ``None`` for an id this server did not make."""
    encoded, dot, rest = task_id.rpartition(".")
    if not dot or not encoded or len(rest) != 32:
        return None
    try:
        return base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).decode()
    except (binascii.Error, ValueError):
        return None


def task_ids(session: Session) -> list[str]:
    """The ids of the tasks in a session, oldest first."""
    seen: dict[str, None] = {}
    for event in session.events:
        value = event.actions.state_delta.get(TASK_KEY) if event.author == "user" else None
        if isinstance(value, str):
            seen.setdefault(value, None)
    return list(seen)


LOST: Final = (
    "The process running this task stopped before the task finished (a restart or a crash);"
    " what it stored is kept. Send the message again, without taskId, to start a new task."
)


def task_view(
    context_id: str,
    events: list[Event],
    task_id: str,
    *,
    running: bool = False,
    lost: bool = False,
) -> TaskView | None:
    """The task ``task_id`` among a session's ``events``; ``None`` when it has no such task.
    ``running`` says this process is running its invocation now; ``lost`` that no process is
    (so a task the events leave unfinished will never finish: it failed)."""
    session_events = events
    invocations: set[str] = set()
    events = []
    canceled_at = -1
    for event in session_events:
        if event.author == "user" and event.actions.state_delta.get(TASK_KEY) == task_id:
            invocations.add(event.invocation_id)
        if event.invocation_id in invocations:
            events.append(event)
            if (event.custom_metadata or {}).get(CANCEL_KEY) == task_id:
                canceled_at = len(events)
    if not events:
        return None
    last_invocation = next(e.invocation_id for e in reversed(events) if e.author == "user")
    agent_events = [e for e in events if e.author != "user" and not e.partial]
    last = next(
        (e for e in reversed(agent_events) if (e.custom_metadata or {}).get(CANCEL_KEY) is None),
        None,
    )
    pending = _pending_calls(events, last_invocation)
    status_parts: list[Part] = []
    state: TaskState
    if canceled_at >= 0 and canceled_at == len(events):
        state = "canceled"
    elif running:
        state = "working"
    elif last is not None and (last.error_code or last.error_message):
        state = "failed"
        status_parts = [Part(text=last.error_message or last.error_code or "failed")]
    elif pending:
        state = "input-required"
        status_parts = _question(agent_events, last_invocation, pending)
    elif last is not None and last.invocation_id == last_invocation and last.is_final_response():
        state = "completed"
    elif lost:
        state = "failed"
        status_parts = [Part(text=LOST)]
    else:
        state = "working"
    saved: dict[str, int] = {}
    for event in agent_events:
        saved.update(event.actions.artifact_delta)
    # Words beside a call still waiting are the question, the status message's once the task
    # stops for it (as google-adk's server sends it): the answer does not say them again (a
    # client reads both, and would show them twice).
    waiting = {call.id for call in pending}
    answer = [
        p
        for e in agent_events
        if not any(call.id in waiting for call in e.get_function_calls())
        for p in answer_parts(e)
    ]
    if not answer and state == "completed":
        answer = _last_output(agent_events)
    return TaskView(
        id=task_id,
        context_id=context_id,
        state=state,
        status_parts=status_parts,
        answer=answer,
        history=_history(events),
        timestamp=events[-1].timestamp,
        pending=pending,
        saved_artifacts=saved,
        last_invocation=last_invocation,
        agent=last.author if last is not None else "",
    )


def answer_parts(event: Event) -> list[Part]:
    """The parts of an agent's event that answer the user (no calls, responses or thoughts)."""
    if event.content is None or event.author == "user" or event.partial:
        return []
    return [
        p
        for p in event.content.parts
        if not p.thought
        and (p.text is not None or p.inline_data is not None or p.file_data is not None)
    ]


def _last_output(events: list[Event]) -> list[Part]:
    """A workflow that answers with node outputs only: its last output is the answer (a text,
    or a data part for any other JSON value)."""
    for event in reversed(events):
        if event.output is None:
            continue
        if isinstance(event.output, str):
            return [Part(text=event.output)]
        payload = json.dumps(event.output, ensure_ascii=False, default=str).encode()
        return [
            Part(inline_data=Blob(mime_type=DATA_MIME_TYPE, data=DATA_START + payload + DATA_END))
        ]
    return []


def _pending_calls(events: list[Event], invocation: str) -> list[FunctionCall]:
    answered = {r.id for e in events for r in e.get_function_responses() if r.id}
    pending: list[FunctionCall] = []
    for event in events:
        if event.invocation_id != invocation or not event.long_running_tool_ids:
            continue
        for call in event.get_function_calls():
            if call.id in event.long_running_tool_ids and call.id not in answered:
                pending.append(call)
    return pending


def _question(events: list[Event], invocation: str, pending: list[FunctionCall]) -> list[Part]:
    """What the task asks: the agent's last words in the invocation, then the waiting calls."""
    parts: list[Part] = []
    for event in reversed(events):
        if event.invocation_id != invocation:
            break
        text = [p for p in answer_parts(event) if p.text]
        if text:
            parts = text
            break
    return parts + [Part(function_call=call) for call in pending]


def _history(events: list[Event]) -> list[HistoryEntry]:
    history = []
    for event in events:
        if event.partial or event.content is None or not event.content.parts:
            continue
        role: Literal["user", "agent"] = "user" if event.author == "user" else "agent"
        history.append(HistoryEntry(role, list(event.content.parts), event.id))
    return history
