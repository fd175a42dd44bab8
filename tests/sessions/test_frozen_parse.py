"""Stored rows are validated straight into the frozen twins (``_frozen``); rows in any other shape
the models accept still load, through the models, and a damaged row is still named."""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import pytest
from pydantic import BaseModel

from yadk._sealed import EMPTY_DICT, FrozenDict, FrozenIds, FrozenList, is_sealed, seal_event
from yadk.errors import ImmutableEventError, SessionStoreCorruptError
from yadk.events import Event, EventActions
from yadk.sessions._codec import dump_event, load_events
from yadk.sessions._frozen import parse_frozen_events
from yadk.types import (
    Blob,
    CodeExecutionResult,
    Content,
    ExecutableCode,
    FileData,
    FunctionCall,
    FunctionResponse,
    Part,
)

EVENTS = [
    Event(author="user", content=Content(role="user", parts=[Part(text="hi")])),
    Event(
        author="agent",
        invocation_id="inv",
        branch="root.agent",
        content=Content(
            role="model",
            parts=[
                Part(text="thinking", thought=True, thought_signature=b"\x00sig"),
                Part(function_call=FunctionCall(id="c1", name="f", args={"x": [1, {"y": None}]})),
                Part(function_response=FunctionResponse(id="c1", name="f", response={"r": []})),
                Part(inline_data=Blob(mime_type="image/png", data=b"\x89PNG", display_name="p")),
                Part(file_data=FileData(file_uri="gs://b/f", mime_type="text/plain")),
                Part(executable_code=ExecutableCode(code="print(1)", language="PYTHON")),
                Part(code_execution_result=CodeExecutionResult(outcome="OUTCOME_OK", output="1")),
            ],
        ),
        actions=EventActions(
            state_delta={"k": {"nested": [1, 2]}, "app:n": 1},
            artifact_delta={"a.txt": 2},
            transfer_to_agent="other",
            escalate=True,
            skip_summarization=False,
        ),
        partial=False,
        turn_complete=True,
        error_code="E",
        error_message="boom",
        custom_metadata={"m": {"n": [1]}},
        usage_metadata={"total_token_count": 3},
        long_running_tool_ids={"c1", "c2"},
        grounding_metadata={"web_search_queries": ["q"]},
    ),
    Event(author="agent", actions=EventActions(state_delta={"done": True})),
    # every mapping empty (the empty ones read back share one frozen mapping)
    Event(
        author="agent",
        content=Content(
            role="model",
            parts=[
                Part(function_call=FunctionCall(name="f", args={})),
                Part(function_response=FunctionResponse(name="f", response={"r": {}})),
            ],
        ),
        custom_metadata={},
        usage_metadata={"nested": {}},
        grounding_metadata={"chunks": [{}, []]},
    ),
]


def _rows(events: list[Event]) -> list[str]:
    return [dump_event(e, e.actions.state_delta) for e in events]


def _assert_frozen_throughout(value: Any) -> None:
    if isinstance(value, BaseModel):
        # a twin read back (frozen by its class) or an event model sealed on append
        assert value.model_config.get("frozen") or is_sealed(value), type(value)
        for item in value.__dict__.values():
            _assert_frozen_throughout(item)
    elif isinstance(value, dict):
        assert type(value) is FrozenDict
        for item in value.values():
            _assert_frozen_throughout(item)
    elif isinstance(value, list):
        assert type(value) is FrozenList
        for item in value:
            _assert_frozen_throughout(item)
    elif isinstance(value, set):
        assert type(value) is FrozenIds


def test_rows_read_back_as_equal_events_frozen_throughout() -> None:
    read = load_events(_rows(EVENTS), "test")
    assert read == EVENTS
    for event, original in zip(read, EVENTS, strict=True):
        _assert_frozen_throughout(event)
        # (as Python values: a set's JSON order depends on the string hash seed)
        assert event.model_dump() == original.model_dump()
    assert read[1].content.parts[0].thought_signature == b"\x00sig"  # type: ignore[union-attr]


def test_the_twins_and_the_models_agree() -> None:
    text = "[" + ",".join(_rows(EVENTS)) + "]"
    assert parse_frozen_events(text) == [Event.model_validate_json(row) for row in _rows(EVENTS)]


def test_an_event_sealed_equals_it_as_made_and_is_frozen_throughout() -> None:
    for original in EVENTS:
        event = original.model_copy(deep=True)
        assert seal_event(event) is event and is_sealed(event)
        assert event == original and original == event
        _assert_frozen_throughout(event)
        assert event.model_dump() == original.model_dump()
        assert event.model_dump_json() == original.model_dump_json()
        assert seal_event(event) is event  # sealing again changes nothing
        assert event == original


def test_a_twin_read_back_is_left_as_it_is_by_seal() -> None:
    (event,) = load_events(_rows(EVENTS[-1:]), "test")
    fields = dict(vars(event))
    assert seal_event(event) is event and not is_sealed(event)
    assert vars(event) == fields and all(vars(event)[k] is v for k, v in fields.items())


def test_left_out_fields_take_frozen_defaults() -> None:
    (event,) = load_events(['{"id":"e","author":"a","timestamp":1.0}'], "test")
    _assert_frozen_throughout(event)
    assert event.actions == EventActions() and event.content is None


@pytest.mark.parametrize(
    "row",
    [
        # google-genai's camelCase names and explicit nulls: not what yadk writes, still accepted
        '{"id":"e","author":"a","timestamp":1.0,"content":{"role":"model","parts":'
        '[{"functionCall":{"name":"f","args":null}}]}}',
        '{"id":"e","author":"a","timestamp":1.0,"content":{"role":"model","parts":null}}',
    ],
)
def test_rows_in_other_accepted_shapes_load_through_the_models(row: str) -> None:
    with pytest.raises(ValueError):
        parse_frozen_events(f"[{row}]")
    (event,) = load_events([row], "test")
    assert event == Event.model_validate_json(row)
    _assert_frozen_throughout(event)


def test_a_damaged_row_is_named_by_its_position() -> None:
    rows = _rows(EVENTS)
    rows[1] = json.dumps({**json.loads(rows[1]), "timestamp": "yesterday"})
    with pytest.raises(SessionStoreCorruptError, match=r"event 2 of 4 read from test"):
        load_events(rows, "test")


@pytest.mark.subprocess
def test_prepare_builds_the_reader_before_the_first_read(tmp_path: Any) -> None:
    # In a fresh process: this one's reader was built by the tests before.
    import subprocess
    import sys

    code = f"""
import asyncio, sys
from yadk.sessions import SqliteSessionService
from yadk.sessions import PostgresSessionService  # noqa: F401 - imports without a server
assert "yadk.sessions._frozen" not in sys.modules
store = SqliteSessionService({str(tmp_path / "s.db")!r})
asyncio.run(store.prepare())
from yadk.sessions._frozen import _frozen_events_adapter
info = _frozen_events_adapter.cache_info()
assert info.currsize == 1 and info.misses == 1, info
asyncio.run(store.aclose())
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr


def test_empty_mappings_read_back_share_one_frozen_mapping_no_reader_can_fill() -> None:
    first, second = load_events(_rows(EVENTS[-1:] * 2), "test")
    assert first.actions.artifact_delta is second.actions.artifact_delta is EMPTY_DICT
    assert first.actions.state_delta is EMPTY_DICT
    args = first.content.parts[0].function_call.args  # type: ignore[union-attr]
    assert args is EMPTY_DICT
    with pytest.raises(ImmutableEventError):
        first.actions.artifact_delta["a.txt"] = 1
    with pytest.raises(ImmutableEventError):
        args.update(x=1)
    assert EMPTY_DICT == {} and type(EMPTY_DICT) is FrozenDict


@pytest.mark.parametrize(
    "thaw",
    [copy.deepcopy, lambda e: e.model_copy(deep=True), lambda e: pickle.loads(pickle.dumps(e))],
)
def test_a_copy_gets_its_own_mutable_mappings_not_the_shared_empty_one(thaw: Any) -> None:
    (event,) = load_events(_rows(EVENTS[-1:]), "test")
    thawed = thaw(event)
    thawed.actions.artifact_delta["a.txt"] = 1
    thawed.content.parts[0].function_call.args["x"] = 1
    assert EMPTY_DICT == {} and event == EVENTS[-1]


def test_actions_at_their_defaults_seal_to_the_shared_empty_mappings() -> None:
    plain = [Event(author="a"), Event(author="b", actions=EventActions(state_delta={}))]
    sealed = [seal_event(e) for e in plain]
    for event in sealed:
        assert event.actions.state_delta is event.actions.artifact_delta is EMPTY_DICT
        assert event.actions == EventActions()
        assert event.actions.model_fields_set == EventActions().model_fields_set | (
            {"state_delta"} if event.author == "b" else set()
        )
