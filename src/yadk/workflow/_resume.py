"""Human input across invocations: finding the question a workflow is waiting on, and the
answer the new message gives it.

Everything needed lives in the session's events (the ``adk_request_input`` call keeps the
waiting node's input in its metadata), so a workflow resumes in another process, after a
restart, from any session store.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from yadk._sealed import thaw
from yadk.events import Event
from yadk.sessions import Session
from yadk.types import Content
from yadk.workflow._confirmation import confirmation_answer
from yadk.workflow._params import as_output
from yadk.workflow._request_input import REQUEST_INPUT_FUNCTION_CALL_NAME
from yadk.workflow._schemas import check_answer

__all__ = [
    "RESUME_KEY",
    "CompletedRuns",
    "ResumePoint",
    "completed_runs",
    "find_resume",
    "input_record",
]

# The metadata key of what resuming a waiting node needs (on the event it waits on).
RESUME_KEY = "yadk_workflow"
_KEY = RESUME_KEY


@dataclass
class ResumePoint:
    """The waiting node's run path, the question's id, the user's answer and the node's input."""

    path: str
    interrupt_id: str
    answer: Any
    node_input: Any
    # The inputs of the nodes that ran the waiting node with ``ctx.run_node`` (by run path):
    # they run again to reach it.
    inputs: dict[str, Any] = field(default_factory=dict)


def input_record(
    path: str, node_input: Any, parents: dict[str, Any] | None = None
) -> dict[str, Any]:
    """What resuming the node at ``path`` needs: its input, and its dynamic parents' inputs."""
    record = {"path": path, **_entry(node_input)}
    if parents:
        record["parents"] = {key: _entry(value) for key, value in parents.items()}
    return record


def _entry(value: Any) -> dict[str, Any]:
    if isinstance(value, Content):
        return {"content": value.model_dump(mode="json", exclude_none=True)}
    try:
        json.dumps(as_output(value))
        return {"input": as_output(value)}
    except (TypeError, ValueError):
        return {"input": str(value)}


def _read_entry(entry: dict[str, Any]) -> Any:
    """A node input as recorded: the node's own to change (the record is sealed history)."""
    if "content" in entry:
        return Content.model_validate(entry["content"])
    return thaw(entry.get("input"))


def find_resume(session: Session, *, root_path: str, message: Content | None) -> ResumePoint | None:
    """The question this message answers: a function response to a waiting ``adk_request_input``
    call of this workflow (or to an agent node's long-running call), or any other message when
    the workflow's last invocation ended on a question.
    """
    events = session.events
    end = len(events)
    # The message itself is already in the session: look at what came before it.
    while end and events[end - 1].author == "user":
        end -= 1
    answered = _answers(events[end:]) | _answers(events[:end])
    last_invocation = next(
        (e.invocation_id for e in reversed(events[:end]) if e.author != "user"), None
    )
    if last_invocation is None:
        return None
    replies = _answers([Event(author="user", content=message)]) if message else {}
    for event in reversed(events[:end]):
        if event.invocation_id != last_invocation:
            break
        record = (event.custom_metadata or {}).get(_KEY)
        if not record or not str(record.get("path", "")).startswith(root_path + "/"):
            continue
        for call in event.get_function_calls():
            question = call.name == REQUEST_INPUT_FUNCTION_CALL_NAME
            # Or a long-running call of an agent node (a tool's, a confirmation request): only
            # its function response answers it.
            if not call.id or not (question or call.id in (event.long_running_tool_ids or ())):
                continue
            if call.id in replies:
                answer = replies[call.id]
            elif call.id in answered or message is None or replies or not question:
                continue
            else:
                answer = _parsed(_text(message))
            schema = (call.args or {}).get("response_schema") if question else None
            if schema is not None:
                answer = check_answer(confirmation_answer(call.id, answer), schema)
            parents = {key: _read_entry(value) for key, value in record.get("parents", {}).items()}
            return ResumePoint(
                str(record["path"]), call.id, thaw(answer), _read_entry(record), parents
            )
    return None


@dataclass
class CompletedRuns:
    """What the node runs of the workflow run being resumed did before the question, read from
    the invocations since it started (each resume after a question of it), by run path:

    * ``outputs``: the outputs of runs that completed, in the order they completed; such a run
      is not run again, its output is taken from here, as google-adk does. A run whose output
      came from a node it ran (``use_as_output``), or a nested workflow's from its terminal
      node, counts as completed with it. Each a copy: the next node may change its input.
    * ``routes``: the routes runs took; they decide which joins a completed run fed.
    * ``runs``: each run that left an event, in the order it first did: whether it completed,
      with or without an output (not when it waits on the user or failed). A run that left no
      event is not known: it runs again, as in google-adk."""

    outputs: dict[str, Any] = field(default_factory=dict)
    routes: dict[str, Any] = field(default_factory=dict)
    runs: dict[str, bool] = field(default_factory=dict)


def completed_runs(session: Session, *, root_path: str, invocation_id: str) -> CompletedRuns:
    """The ``CompletedRuns`` of the workflow run at ``root_path`` being resumed, in one pass."""
    done = CompletedRuns()
    inside = root_path + "/"
    for event in _resumed_events(session, root_path, invocation_id):
        info = event.node_info
        if info is None or not info.path:
            continue
        if event.actions.route is not None:
            done.routes[info.path] = thaw(event.actions.route)
        if not info.path.startswith(inside):
            continue
        record = (event.custom_metadata or {}).get(_KEY)
        waits = isinstance(record, dict) and record.get("path") == info.path
        done.runs[info.path] = done.runs.get(info.path, True) and not waits and not event.error_code
        if event.output is not None:
            output_for = info.output_for or ()
            for path in output_for:
                if path.startswith(inside):
                    done.runs[path] = True
                    if info.path in output_for:
                        done.outputs[path] = thaw(event.output)
    return done


def _resumed_events(session: Session, root_path: str, invocation_id: str) -> list[Event]:
    """The events of the workflow run being resumed, oldest first, up to the message of the
    invocation now running (``invocation_id``; a resumable app's resume keeps the id of the
    invocation it resumes, so the message, not the id, is where the resume begins)."""
    events = session.events
    end = len(events)
    while end and not (
        events[end - 1].author == "user" and events[end - 1].invocation_id == invocation_id
    ):
        end -= 1
    if end:
        end -= 1  # the message itself
        while end and events[end - 1].author == "user":
            end -= 1  # and the messages that came with it
        blocks = _invocations(events[:end])
    else:  # no message of this invocation: it began with the last run of events
        blocks = _invocations(events)
        if blocks:
            blocks.pop()
    first = len(blocks)
    while first > 0:
        first -= 1
        if first == 0 or not any(_asked(e, root_path) for e in blocks[first - 1]):
            break  # this invocation started the workflow run, not a resume of it
    return [event for block in blocks[first:] for event in block]


def _invocations(events: list[Event]) -> list[list[Event]]:
    """The session's events in runs of one invocation id each."""
    blocks: list[list[Event]] = []
    for event in events:
        if blocks and blocks[-1][-1].invocation_id == event.invocation_id:
            blocks[-1].append(event)
        else:
            blocks.append([event])
    return blocks


def _asked(event: Event, root_path: str) -> bool:
    record = (event.custom_metadata or {}).get(_KEY)
    if not isinstance(record, dict):
        return False
    return str(record.get("path", "")).startswith(root_path + "/")


def _answers(events: list[Event]) -> dict[str, Any]:
    """The function responses of ``events`` by call id: a question's answer unwrapped."""
    out: dict[str, Any] = {}
    for event in events:
        for response in event.get_function_responses():
            if not response.id:
                continue
            value: Any = response.response
            if (
                response.name == REQUEST_INPUT_FUNCTION_CALL_NAME
                and isinstance(value, dict)
                and set(value) == {"result"}
            ):
                value = _parsed(value["result"])
            out[response.id] = value
    return out


def _parsed(value: Any) -> Any:
    """A text answer as the JSON it holds, if it holds JSON (as google-adk reads the web UI's
    ``{"result": text}``)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _text(message: Content) -> str:
    return "".join(p.text for p in message.parts if p.text and not p.thought)
