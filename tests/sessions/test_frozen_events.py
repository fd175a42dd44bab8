"""The in-memory store keeps the appended event itself, sealed, and shares it with every reader:
no one can change what is stored or what another reader sees, and neither an append nor a read
copies an event."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import pytest

from yadk._sealed import is_sealed
from yadk.errors import ImmutableEventError
from yadk.events import Event, EventActions
from yadk.sessions import InMemorySessionService, Session
from yadk.types import (
    Blob,
    CodeExecutionResult,
    Content,
    ExecutableCode,
    FunctionCall,
    FunctionResponse,
    Part,
)


def _event() -> Event:
    return Event(
        author="agent",
        content=Content(
            role="model",
            parts=[
                Part(text="original"),
                Part(function_call=FunctionCall(id="c1", name="f", args={"x": [1, {"y": 2}]})),
                Part(function_response=FunctionResponse(name="f", response={"r": [1]})),
                Part(inline_data=Blob(mime_type="text/plain", data=b"bytes")),
                Part(executable_code=ExecutableCode(code="print(1)", language="PYTHON")),
                Part(code_execution_result=CodeExecutionResult(outcome="OUTCOME_OK", output="1")),
            ],
        ),
        actions=EventActions(state_delta={"k": [1]}, artifact_delta={"a.txt": 0}),
        custom_metadata={"m": {"n": [1]}},
        long_running_tool_ids={"c1"},
    )


async def _stored(event: Event) -> tuple[InMemorySessionService, Session]:
    service = InMemorySessionService()
    session = await service.create_session(app_name="app", user_id="u", session_id="s")
    await service.append_event(session, event)
    read = await service.get_session(app_name="app", user_id="u", session_id="s")
    assert read is not None
    return service, read


EDITS: list[tuple[str, Callable[[Event], Any]]] = [
    ("field", lambda e: setattr(e, "author", "x")),
    ("deleted field", lambda e: delattr(e, "author")),
    ("part text", lambda e: setattr(e.content.parts[0], "text", "x")),  # type: ignore[union-attr]
    ("parts list", lambda e: e.content.parts.append(Part(text="x"))),  # type: ignore[union-attr]
    ("call args", lambda e: e.content.parts[1].function_call.args.update(z=0)),  # type: ignore[union-attr]
    ("nested list", lambda e: e.content.parts[1].function_call.args["x"].append(3)),  # type: ignore[union-attr]
    ("nested dict", lambda e: e.content.parts[1].function_call.args["x"][1].pop("y")),  # type: ignore[union-attr]
    ("response", lambda e: e.content.parts[2].function_response.response.clear()),  # type: ignore[union-attr]
    ("blob", lambda e: setattr(e.content.parts[3].inline_data, "data", b"")),  # type: ignore[union-attr]
    ("code", lambda e: setattr(e.content.parts[4].executable_code, "code", "")),  # type: ignore[union-attr]
    ("code result", lambda e: setattr(e.content.parts[5].code_execution_result, "output", "")),  # type: ignore[union-attr]
    ("state delta", lambda e: e.actions.state_delta.__setitem__("extra", 1)),
    ("state value", lambda e: e.actions.state_delta["k"].extend([2])),
    ("actions", lambda e: setattr(e.actions, "escalate", True)),
    ("metadata", lambda e: e.custom_metadata["m"].setdefault("o", 1)),  # type: ignore[index]
    ("long-running ids", lambda e: e.long_running_tool_ids.add("c2")),  # type: ignore[union-attr]
]


@pytest.mark.parametrize("edit", [e[1] for e in EDITS], ids=[e[0] for e in EDITS])
async def test_every_edit_of_a_stored_event_is_refused(edit: Callable[[Event], Any]) -> None:
    appended = _event()
    service, read = await _stored(appended)
    with pytest.raises(ImmutableEventError, match="stored by a session service cannot be changed"):
        edit(read.events[0])
    again = await service.get_session(app_name="app", user_id="u", session_id="s")
    assert again is not None and again.events[0] == appended


async def test_reads_share_the_stored_events_instead_of_copying_them() -> None:
    service, first = await _stored(_event())
    second = await service.get_session(app_name="app", user_id="u", session_id="s")
    assert second is not None
    assert second.events[0] is first.events[0]
    assert second.events is not first.events  # each reader has its own list
    await service.append_event(second, Event(author="agent"))
    assert len(first.events) == 1
    assert await service.refresh_session(first)  # reads only the new event, shared as well
    third = await service.get_session(app_name="app", user_id="u", session_id="s")
    assert third is not None
    assert [id(e) for e in first.events] == [id(e) for e in third.events]
    assert type(second.events[1]) is Event  # the appender's own event, sealed and shared
    assert third.events[1] is second.events[1] and is_sealed(second.events[1])


async def test_a_stored_event_is_equal_to_the_appended_one_and_serialises_the_same() -> None:
    appended = _event()
    _, read = await _stored(appended)
    stored = read.events[0]
    assert isinstance(stored, Event) and isinstance(stored.content, Content)
    assert stored == appended and appended == stored
    assert stored.model_dump() == appended.model_dump()
    assert stored.model_dump_json() == appended.model_dump_json()
    assert stored.actions.state_delta == {"k": [1]}
    assert stored.long_running_tool_ids == {"c1"}


@pytest.mark.parametrize(
    "thaw",
    [lambda e: e.model_copy(deep=True), copy.deepcopy, lambda e: pickle.loads(pickle.dumps(e))],
    ids=["model_copy(deep=True)", "copy.deepcopy", "pickle"],
)
async def test_a_copy_of_a_stored_event_can_be_edited(thaw: Callable[[Event], Event]) -> None:
    appended = _event()
    service, read = await _stored(appended)
    mine = thaw(read.events[0])
    assert type(mine) is Event and mine == appended
    for _, edit in EDITS:
        if edit is not EDITS[1][1]:  # deleting a field would break the comparison below
            edit(mine)
    assert mine.author == "x" and mine.actions.state_delta["k"] == [1, 2]
    again = await service.get_session(app_name="app", user_id="u", session_id="s")
    assert again is not None and again.events[0] == appended


async def test_a_shallow_copy_with_an_update_is_a_mutable_event() -> None:
    _, read = await _stored(_event())
    part = read.events[0].content.parts[1]  # type: ignore[union-attr]
    assert part.function_call is not None
    renamed = part.model_copy(
        update={"function_call": part.function_call.model_copy(update={"id": None})}
    )
    assert type(renamed) is Part and renamed.function_call is not None
    assert renamed.function_call.id is None and part.function_call.id == "c1"
    renamed.text = "mine"


async def test_stored_parts_can_build_new_events_for_another_session() -> None:
    service, read = await _stored(_event())
    other = await service.create_session(app_name="app", user_id="u")
    reused = Event(author="other", content=read.events[0].content)
    await service.append_event(other, reused)
    got = await service.get_session(app_name="app", user_id="u", session_id=other.id)
    assert got is not None and got.events[0].content == read.events[0].content


async def test_an_appended_event_is_sealed_and_stored_itself_not_copied_or_serialised() -> None:
    appended = _event()
    service, read = await _stored(appended)
    stored = read.events[0]
    assert stored is appended and type(stored) is Event and is_sealed(stored)
    with pytest.raises(ImmutableEventError):
        appended.content.parts[0].text = "edited by the appender"  # type: ignore[union-attr]
    # The state shares the stored event's frozen values; each read gets its own containers.
    assert read.state == {"k": [1]} and type(read.state["k"]) is list
    read.state["k"].append(2)
    again = await service.get_session(app_name="app", user_id="u", session_id="s")
    assert again is not None and again.state == {"k": [1]}
    assert again.events[0] is stored


async def test_values_json_holds_only_converted_are_stored_as_a_database_gives_them() -> None:
    service = InMemorySessionService()
    session = await service.create_session(app_name="app", user_id="u", session_id="s")
    await service.append_event(
        session, Event(author="a", actions=EventActions(state_delta={"t": (1, 2), "m": {1: "x"}}))
    )
    read = await service.get_session(app_name="app", user_id="u", session_id="s")
    assert read is not None and read.state == {"t": [1, 2], "m": {"1": "x"}}
    assert read.events[0].actions.state_delta == {"t": [1, 2], "m": {"1": "x"}}
