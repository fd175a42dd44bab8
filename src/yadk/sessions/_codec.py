"""How stores write events and state as JSON and read them back, with errors that name the key
or the row at fault."""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from pydantic import ValidationError

from yadk._sealed import seal_event
from yadk.errors import SessionError, SessionStoreCorruptError
from yadk.events import Event
from yadk.sessions._state import State

if TYPE_CHECKING:
    from pydantic import TypeAdapter

__all__ = [
    "dump_event",
    "dump_state",
    "load_events",
    "load_events_off_loop",
    "load_state",
    "prepare_reader",
    "refuse_key",
    "stored_delta",
    "written_by",
]


@functools.cache
def _events_adapter() -> TypeAdapter[list[Event]]:
    # Built by the first read of stored events, not at import: a command that never reads
    # events back (``yadk inspect``) does not pay for building its validator.
    from pydantic import TypeAdapter

    return TypeAdapter(list[Event])


# One encoder for every state dump: json.dumps with arguments of its own builds a new encoder
# on every call, which cost about as much as the encoding of a small delta (measured).
_encode_state = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode


def stored_delta(event: Event) -> dict[str, Any]:
    """The part of an event's state delta that is persisted: everything but ``temp:`` keys."""
    return {
        k: v for k, v in event.actions.state_delta.items() if not k.startswith(State.TEMP_PREFIX)
    }


def dump_event(event: Event, delta: dict[str, Any]) -> str:
    """The event as stored: its JSON with ``delta`` as the state delta."""
    if delta:
        try:
            _encode_state(delta)
        except (TypeError, ValueError):
            _raise_for_key(delta, f"event {event.id} ({written_by(event)})")
    stored = event
    if len(delta) != len(event.actions.state_delta):  # temp: keys left out
        stored = event.model_copy(
            update={"actions": event.actions.model_copy(update={"state_delta": delta})}
        )
    try:
        return stored.model_dump_json(exclude_none=True)
    except ValueError as exc:
        raise SessionError(
            f"Event {event.id} cannot be stored: its content and metadata must be JSON ({exc})."
        ) from None


def written_by(event: Event) -> str:
    """Who wrote an event's state delta, for errors: its tools, else its agent's callbacks."""
    parts = event.content.parts if event.content is not None else []
    tools = [p.function_response.name for p in parts if p.function_response is not None]
    if tools:
        names = ", ".join(f"`{name}`" for name in tools)
        return f"written by tool {names} of agent `{event.author}`"
    return f"written by agent `{event.author}`: a callback or its output_key"


def dump_state(state: dict[str, Any], what: str = "the state") -> str:
    """``state`` as JSON text; a value JSON cannot hold is refused, naming its key."""
    try:
        return _encode_state(state)
    except (TypeError, ValueError):
        _raise_for_key(state, what)
        raise  # pragma: no cover - _raise_for_key always finds the key json.dumps failed on


def load_state(text: str | bytes, where: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise SessionStoreCorruptError(_corrupt(where, exc)) from None
    if not isinstance(value, dict):
        raise SessionStoreCorruptError(_corrupt(where, "it is not a JSON object"))
    return value


def prepare_reader() -> None:
    """Import and build the stored-row reader now: the first ``load_events`` of a process
    otherwise does it, holding up the read that needed it."""
    from yadk.sessions._frozen import parse_frozen_events

    parse_frozen_events("[]")


# Stored rows past this many bytes are parsed on a worker thread (``load_events_off_loop``):
# parsing is CPU work, and a long session's rows parsed on the event loop would hold every
# other request up for as long.
OFF_LOOP_BYTES = 64 * 1024


async def load_events_off_loop(rows: Sequence[str | bytes], where: str) -> list[Event]:
    """``load_events(rows, where)``, on a worker thread when the rows are large enough for the
    parse to hold the event loop up (see ``OFF_LOOP_BYTES``), on the loop otherwise (a thread
    hop costs more than parsing a few rows)."""
    if sum(map(len, rows)) <= OFF_LOOP_BYTES:
        return load_events(rows, where)
    return await asyncio.to_thread(load_events, rows, where)


def load_events(rows: Sequence[str | bytes], where: str) -> list[Event]:
    """The frozen events of stored rows, parsed in one pass; a bad row is named by its
    position."""
    if not rows:
        return []
    parts = [r if isinstance(r, str) else r.decode("utf-8", "replace") for r in rows]
    text = "[" + ",".join(parts) + "]"
    # Imported by the first read: the frozen twins are models a command that reads no event
    # back (``yadk inspect``) need not build.
    from yadk.sessions._frozen import parse_frozen_events

    try:
        return parse_frozen_events(text)
    except (ValidationError, ValueError):
        pass  # not in the shape yadk writes: the models may still accept it
    try:
        return [seal_event(e) for e in _events_adapter().validate_json(text)]
    except (ValidationError, ValueError):
        pass
    for index, part in enumerate(parts):
        try:
            Event.model_validate_json(part)
        except (ValidationError, ValueError) as exc:
            reason = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
            raise SessionStoreCorruptError(
                _corrupt(f"event {index + 1} of {len(parts)} read from {where}", reason)
            ) from None
    raise SessionStoreCorruptError(_corrupt(where, "the events do not parse together"))


def _raise_for_key(values: dict[str, Any], what: str) -> None:
    for key, value in values.items():
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError):
            refuse_key(key, value, what)


def refuse_key(key: str, value: Any, what: str) -> NoReturn:
    """Refuse a state value JSON cannot hold, naming its key and where it came from."""
    raise SessionError(
        f"State key {key!r} in {what} holds a value of type {type(value).__name__}, which"
        " cannot be stored: state values must be JSON (str, int, float, bool, None, and lists"
        " and dicts of them). Store an id or a dict instead, or use a 'temp:' key for values"
        " that live only during the invocation."
    )


def _corrupt(where: str, reason: object) -> str:
    return (
        f"Cannot read back {where}: {reason}. The row was changed outside yadk or the file is"
        " damaged; restore it from a backup, or delete the session with `yadk sessions delete`."
    )
