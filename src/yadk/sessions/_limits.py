"""Size caps on what a session service stores: one event, and a session's state.

A session is read whole by every turn (and by every ``GET`` of ``yadk serve``), so one client
that writes megabytes of state makes every later request on that session parse megabytes. Each
service refuses an event larger than ``max_event_bytes`` and an append (or a creation) that
would leave the session's state larger than ``max_state_bytes``, with ``SessionTooLargeError``
(a ``ValueError``; ``yadk serve`` answers 413) before anything is written.

Sizes are the length of the JSON text: exact for an event the durable stores serialise anyway,
and estimated from the values (string lengths, a fixed width per number) by the in-memory
store and for state, which are not serialised to be measured. The caps come from the service's
arguments, else from ``YADK_MAX_EVENT_BYTES`` / ``YADK_MAX_STATE_BYTES``, else the defaults.
"""

from __future__ import annotations

import json
import os
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

from yadk._sealed import FROZEN_CONTAINERS
from yadk.errors import SessionError, SessionTooLargeError
from yadk.sessions._codec import written_by
from yadk.sessions._session import Session

__all__ = [
    "DEFAULT_MAX_EVENT_BYTES",
    "DEFAULT_MAX_STATE_BYTES",
    "EVENT_ENV",
    "STATE_ENV",
    "SizeLimits",
    "StateSizes",
    "check_append",
    "check_created",
    "json_size",
    "plain_json",
    "state_size",
]

DEFAULT_MAX_EVENT_BYTES = 1024 * 1024
DEFAULT_MAX_STATE_BYTES = 16 * 1024 * 1024
EVENT_ENV = "YADK_MAX_EVENT_BYTES"
STATE_ENV = "YADK_MAX_STATE_BYTES"

# The width counted for a number, a bool or null: at most this many characters as JSON.
_SCALAR_WIDTH = 24


class NotPlainJson(Exception):
    """A value JSON can hold only after a conversion (a tuple, a non-string key, a subclass of
    a JSON type), or not at all."""


def json_size(value: Any) -> int:
    """About the length of ``value`` as JSON text (strings exactly, less escapes); raises
    ``NotPlainJson`` for anything but plain JSON values."""
    kind = type(value)
    if kind is str:
        return len(value) + 2
    if kind is int or kind is bool or value is None:
        return _SCALAR_WIDTH
    if kind is float:
        if value != value or value in (float("inf"), float("-inf")):
            raise NotPlainJson
        return _SCALAR_WIDTH
    if isinstance(value, dict):  # dict and the frozen mappings of stored events
        if type(value).__module__ != "builtins" and not _is_frozen_container(value):
            raise NotPlainJson
        size = 2
        for key, item in value.items():
            if type(key) is not str:
                raise NotPlainJson
            size += len(key) + 4 + json_size(item)
        return size
    if isinstance(value, list):
        if type(value).__module__ != "builtins" and not _is_frozen_container(value):
            raise NotPlainJson
        return 2 + sum(json_size(item) + 1 for item in value)
    raise NotPlainJson


def _is_frozen_container(value: Any) -> bool:
    return type(value) in FROZEN_CONTAINERS


def plain_json(value: Any) -> tuple[Any, int]:
    """``value`` as a JSON store would give it back, and about its size as JSON text: itself
    when it is plain JSON already, else its JSON round trip (a tuple becomes a list, a number
    key a string). Raises ``TypeError``/``ValueError`` for a value JSON cannot hold."""
    try:
        return value, json_size(value)
    except NotPlainJson:
        pass
    except RecursionError:
        raise ValueError("nested too deeply") from None
    text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    return json.loads(text), len(text)


@dataclass(frozen=True)
class SizeLimits:
    """The caps one service enforces (see the module docstring)."""

    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES
    max_state_bytes: int = DEFAULT_MAX_STATE_BYTES

    @classmethod
    def resolve(
        cls,
        max_event_bytes: int | None = None,
        max_state_bytes: int | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> SizeLimits:
        """The caps given, else those of the environment, else the defaults."""
        env = os.environ if environ is None else environ
        return cls(
            max_event_bytes=_cap("max_event_bytes", max_event_bytes, EVENT_ENV, env)
            or DEFAULT_MAX_EVENT_BYTES,
            max_state_bytes=_cap("max_state_bytes", max_state_bytes, STATE_ENV, env)
            or DEFAULT_MAX_STATE_BYTES,
        )

    def refuse_event(self, size: int, event_id: str, who: str) -> NoReturn:
        """Raise for an event of ``size`` bytes (over ``max_event_bytes``)."""
        raise SessionTooLargeError(
            f"Event {event_id} ({who}) is about {size:,} bytes as JSON, over the session"
            f" service's cap of {self.max_event_bytes:,} bytes per event; nothing was stored."
            " Keep large data in an artifact, or raise the cap with"
            f" {EVENT_ENV} (or the service's max_event_bytes argument)."
        )

    def refuse_state(self, size: int, session_id: str, cause: str) -> NoReturn:
        """Raise for a session state of ``size`` bytes (over ``max_state_bytes``)."""
        raise SessionTooLargeError(
            f"The state of session {session_id!r} would be about {size:,} bytes as JSON"
            f" {cause}, over the session service's cap of {self.max_state_bytes:,} bytes;"
            " nothing was stored. Keep large values in artifacts, or raise the cap with"
            f" {STATE_ENV} (or the service's max_state_bytes argument)."
        )


def _cap(name: str, given: int | None, variable: str, env: Mapping[str, str]) -> int | None:
    if given is None:
        text = env.get(variable, "").strip()
        if not text:
            return None
        try:
            given = int(text.replace("_", ""))
        except ValueError:
            raise SessionError(
                f"{variable}={text!r} is not a whole number of bytes: set it to a number such"
                f" as {DEFAULT_MAX_EVENT_BYTES if variable == EVENT_ENV else DEFAULT_MAX_STATE_BYTES}."
            ) from None
        where = variable
    else:
        where = name
    if given <= 0:
        raise SessionError(f"{where} must be a positive number of bytes, not {given}.")
    return given


def state_size(state: Mapping[str, Any], delta: Mapping[str, Any], temp_prefix: str) -> int:
    """About the size as JSON of ``state`` with ``delta`` applied, ``temp:`` keys left out
    (they are never stored)."""
    size = 2
    for key, value in state.items():
        if key not in delta and not key.startswith(temp_prefix):
            size += len(key) + 4 + _size_or_text(value)
    for key, value in delta.items():
        if not key.startswith(temp_prefix):
            size += len(key) + 4 + _size_or_text(value)
    return size


def _size_or_text(value: Any) -> int:
    try:
        return json_size(value)
    except (NotPlainJson, RecursionError):
        try:
            return len(json.dumps(value, ensure_ascii=False, default=str))
        except (TypeError, ValueError, RecursionError):
            return _SCALAR_WIDTH


class StateSizes:
    """The size of each session's state as of its last append through one service, so that
    the next append measures only the keys it writes: measuring the whole state costs about a
    microsecond a key, on every append. Kept per ``Session`` object and dropped with it; a
    session whose state was read again (another dict) or changed elsewhere (another version)
    is measured whole."""

    def __init__(self) -> None:
        self._known: weakref.WeakKeyDictionary[Session, tuple[dict[str, Any], int | None, int]]
        self._known = weakref.WeakKeyDictionary()

    def after(self, session: Session, delta: Mapping[str, Any]) -> int | None:
        """The size of ``session``'s state once ``delta`` is applied (``None`` when there is
        no delta and the size is not known: there is nothing to check)."""
        known = self._known.get(session)
        state = session.state
        if known is None or known[0] is not state or known[1] != session.storage_version:
            return state_size(state, delta, "temp:") if delta else None
        size = known[2]
        for key, value in delta.items():
            if not key.startswith("temp:"):
                if key in state:
                    size -= len(key) + 4 + _size_or_text(state[key])
                size += len(key) + 4 + _size_or_text(value)
        return size

    def remember(self, session: Session, size: int | None) -> None:
        """Record ``size`` (from ``after``) once the append is stored and applied."""
        if size is not None:
            self._known[session] = (session.state, session.storage_version, size)


def check_append(
    limits: SizeLimits,
    session_id: str,
    state_after: int | None,
    event_id: str,
    event_json: str,
    who: Any,
) -> None:
    """Refuse an append to a durable store whose event (``event_json``, as stored) or whose
    resulting state (``state_after`` bytes, from ``StateSizes.after``) is over the caps.
    ``who`` is the event, named in the message only when it is refused."""
    if len(event_json) > limits.max_event_bytes:
        limits.refuse_event(len(event_json), event_id, written_by(who))
    if state_after is not None and state_after > limits.max_state_bytes:
        limits.refuse_state(state_after, session_id, f"after event {event_id} ({written_by(who)})")


def check_created(limits: SizeLimits, session_id: str, state: Mapping[str, Any]) -> None:
    """Refuse a session created with a state over the cap."""
    size = state_size({}, state, "temp:")
    if size > limits.max_state_bytes:
        limits.refuse_state(size, session_id, "as created with that state")
