"""Slash commands at the ``yadk run`` / ``yadk dev`` prompt: they are answered by yadk, never
sent to the model. ``//text`` sends ``/text`` as a message.

The ``/request`` command loads what it prints (the inspect code) on first use, off ``yadk run``'s
start.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TextIO

from yadk._usage import session_usage, usage_lines
from yadk.cli._common import CommandError
from yadk.cli._transcript import event_lines
from yadk.sessions import State

if TYPE_CHECKING:
    from yadk.cli._interactive import Conversation

__all__ = ["HELP", "is_command", "run_command"]

HELP = """\
/state          the session state, by scope (session, user:, app:)
/events [N]     the last N events of the session (default 10)
/request        the request the next model call would receive (as yadk inspect shows it)
/usage          tokens (and cost, if priced) per invocation and for the session
/reset          start a new session (with the initial --state)
/help           this list
exit, Ctrl-D    quit; Ctrl-C cancels a running turn, or quits at the prompt
//text          send "/text" as a message"""

_EVENTS_DEFAULT = 10


def is_command(text: str) -> bool:
    """A line the prompt answers itself (``/word ...``), as opposed to a message."""
    return text.startswith("/") and not text.startswith("//")


async def run_command(conversation: Conversation, text: str, out: TextIO) -> None:
    """Answer the slash command ``text`` on ``out``; an unknown one says so and lists the
    known ones."""
    name, _, argument = text[1:].partition(" ")
    command = _COMMANDS.get(name)
    if command is None:
        known = " ".join(f"/{known}" for known in _COMMANDS)
        print(f"unknown command /{name}; the commands are {known} (/help explains them)", file=out)
        return
    await command(conversation, argument.strip(), out)


async def _help(conversation: Conversation, argument: str, out: TextIO) -> None:
    print(HELP, file=out)


def _value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=repr)


async def _state(conversation: Conversation, argument: str, out: TextIO) -> None:
    session = await conversation.current_session()
    scopes: dict[str, dict[str, Any]] = {"session": {}, "user:": {}, "app:": {}}
    for key, value in sorted(session.state.items()):
        if key.startswith(State.USER_PREFIX):
            scopes["user:"][key] = value
        elif key.startswith(State.APP_PREFIX):
            scopes["app:"][key] = value
        elif not key.startswith(State.TEMP_PREFIX):
            scopes["session"][key] = value
    for scope, values in scopes.items():
        if not values:
            print(f"{scope} (empty)", file=out)
            continue
        print(scope, file=out)
        for key, value in values.items():
            print(f"  {key} = {_value(value)}", file=out)


async def _events(conversation: Conversation, argument: str, out: TextIO) -> None:
    count = _EVENTS_DEFAULT
    if argument:
        if not argument.isdigit() or int(argument) < 1:
            print(f"/events takes a positive number of events, not {argument!r}", file=out)
            return
        count = int(argument)
    session = await conversation.current_session()
    events = session.events
    if not events:
        print("no events yet", file=out)
        return
    first = max(0, len(events) - count)
    for index in range(first, len(events)):
        lines = event_lines(events[index]) or []
        if not lines:
            delta = events[index].actions.state_delta
            shown = f"[{events[index].author}] state change {_value(dict(delta))}"
            print(f"#{index + 1} {shown}", file=out)
        for line in lines:
            print(f"#{index + 1} {line.text}", file=out)


async def _request(conversation: Conversation, argument: str, out: TextIO) -> None:
    from yadk.cli._inspect import inspect_session
    from yadk.cli._request_text import request_text

    session = await conversation.current_session()
    runner = conversation.runner
    try:
        inspection = await inspect_session(
            runner.agent,
            session,
            session_service=runner.session_service,
            artifact_service=runner.artifact_service,
            next_agent=runner.find_agent_to_run(session),
        )
    except CommandError as exc:
        print(f"/request: {exc.message}", file=out)
        return
    print(request_text(inspection.request), end="", file=out)
    for note in inspection.notes:
        print(f"note: {note}", file=out)


async def _usage(conversation: Conversation, argument: str, out: TextIO) -> None:
    session = await conversation.current_session()
    for line in usage_lines(session_usage(session.events)):
        print(line, file=out)


async def _reset(conversation: Conversation, argument: str, out: TextIO) -> None:
    session = await conversation.new_session()
    print(f"new session {session.id}", file=out)


_Command = Callable[["Conversation", str, TextIO], Awaitable[None]]

_COMMANDS: dict[str, _Command] = {
    "state": _state,
    "events": _events,
    "request": _request,
    "usage": _usage,
    "reset": _reset,
    "help": _help,
}
