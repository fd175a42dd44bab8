"""State writes the value and the pending delta at once."""

from __future__ import annotations

from yadk.sessions import State
from yadk.sessions._state import merge_scopes, split_scopes


def test_write_goes_to_value_and_delta() -> None:
    value: dict = {"a": 1}
    delta: dict = {}
    state = State(value, delta)
    state["b"] = 2
    assert value == {"a": 1, "b": 2}
    assert delta == {"b": 2}
    assert state["b"] == 2 and "b" in state and "a" in state
    assert state.has_delta()


def test_delta_wins_on_read() -> None:
    state = State({"a": 1}, {"a": 2})
    assert state["a"] == 2
    assert state.get("a") == 2
    assert state.get("missing", "d") == "d"
    assert state.to_dict() == {"a": 2}


def test_setdefault_and_update() -> None:
    value: dict = {"a": 1}
    delta: dict = {}
    state = State(value, delta)
    assert state.setdefault("a", 9) == 1
    assert delta == {}
    assert state.setdefault("b", 3) == 3
    assert delta == {"b": 3}
    state.update({"c": 4, "a": 5})
    assert value == {"a": 5, "b": 3, "c": 4}
    assert delta == {"b": 3, "c": 4, "a": 5}
    assert not State({}, {}).has_delta()


def test_prefix_constants() -> None:
    assert (State.APP_PREFIX, State.USER_PREFIX, State.TEMP_PREFIX) == ("app:", "user:", "temp:")


def test_split_and_merge_scopes() -> None:
    app, user, session = split_scopes({"app:t": 1, "user:l": 2, "temp:x": 3, "k": 4})
    assert (app, user, session) == ({"t": 1}, {"l": 2}, {"k": 4})
    assert merge_scopes(app, user, session) == {"k": 4, "app:t": 1, "user:l": 2}
