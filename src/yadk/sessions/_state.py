"""State: the session's current values plus the pending delta, written together."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["State", "merge_scopes", "split_scopes"]


class State:
    """A dict-like view that writes every change to the current value and the pending delta.

    The value makes a write readable at once by later code in the same invocation; the delta rides
    on the next event and is persisted when a session service appends that event.
    Key prefixes choose the scope: ``app:`` (every user of the app), ``user:`` (every session of
    one user), ``temp:`` (this invocation only, never persisted); no prefix means this session.
    """

    APP_PREFIX = "app:"
    USER_PREFIX = "user:"
    TEMP_PREFIX = "temp:"

    __slots__ = ("_delta", "_value")

    def __init__(self, value: dict[str, Any], delta: dict[str, Any]) -> None:
        self._value = value
        self._delta = delta

    def __getitem__(self, key: str) -> Any:
        if key in self._delta:
            return self._delta[key]
        return self._value[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self._value[key] = value
        self._delta[key] = value

    def __contains__(self, key: object) -> bool:
        return key in self._value or key in self._delta

    def __repr__(self) -> str:
        return f"State({self.to_dict()!r})"

    def get(self, key: str, default: Any = None) -> Any:
        if key in self._delta:
            return self._delta[key]
        return self._value.get(key, default)

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key in self:
            return self[key]
        self[key] = default
        return default

    def update(self, delta: Mapping[str, Any]) -> None:
        self._value.update(delta)
        self._delta.update(delta)

    def has_delta(self) -> bool:
        return bool(self._delta)

    def to_dict(self) -> dict[str, Any]:
        result = dict(self._value)
        result.update(self._delta)
        return result


def split_scopes(
    delta: Mapping[str, Any],
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Split a delta into (app, user, session) parts, prefixes removed; ``temp:`` keys dropped."""
    app: dict[str, Any] = {}
    user: dict[str, Any] = {}
    session: dict[str, Any] = {}
    for key, value in delta.items():
        if key.startswith(State.APP_PREFIX):
            app[key[len(State.APP_PREFIX) :]] = value
        elif key.startswith(State.USER_PREFIX):
            user[key[len(State.USER_PREFIX) :]] = value
        elif not key.startswith(State.TEMP_PREFIX):
            session[key] = value
    return app, user, session


def merge_scopes(
    app: Mapping[str, Any], user: Mapping[str, Any], session: Mapping[str, Any]
) -> dict[str, Any]:
    """The session-visible state: session keys plus ``app:``/``user:`` keys with their prefixes."""
    merged = dict(session)
    for key, value in app.items():
        merged[State.APP_PREFIX + key] = value
    for key, value in user.items():
        merged[State.USER_PREFIX + key] = value
    return merged
