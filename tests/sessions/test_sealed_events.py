"""An event is mutable while it is made and sealed once a session service appends it: every
store seals the caller's event itself (nothing is copied), a refused append leaves it as it was,
and copies of a sealed event are the caller's to edit."""

from __future__ import annotations

import copy
import pickle
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from yadk import Runner
from yadk._sealed import (
    EMPTY_DICT,
    FrozenDict,
    FrozenIds,
    FrozenList,
    Sealable,
    is_sealed,
    seal_event,
)
from yadk._tool_confirmation import ToolConfirmation
from yadk.agents import LlmAgent
from yadk.apps import App, BasePlugin
from yadk.errors import ImmutableEventError, SessionTooLargeError, StaleSessionError
from yadk.events import CacheMetadata, Event, EventActions, EventCompaction, NodeInfo
from yadk.models import ScriptedModel
from yadk.sessions import InMemorySessionService, SqliteSessionService
from yadk.types import Content, FunctionCall, Part

EVENT_MODELS = [Event, EventActions, EventCompaction, CacheMetadata, NodeInfo, ToolConfirmation]


def _event() -> Event:
    return Event(
        author="agent",
        content=Content(
            role="model",
            parts=[Part(text="hi"), Part(function_call=FunctionCall(id="c", name="f", args={}))],
        ),
        actions=EventActions(
            state_delta={"k": [1, {"n": 2}], "temp:t": 1},
            requested_tool_confirmations={"c": ToolConfirmation(hint="ok?", payload={"a": [1]})},
        ),
        custom_metadata={"m": [1]},
        long_running_tool_ids={"c"},
        node_info=NodeInfo(path="root@1", output_for=["root@1"]),
        output={"answer": [1, 2]},
    )


def _assert_sealed_throughout(value: Any) -> None:
    if isinstance(value, BaseModel):
        assert is_sealed(value), type(value)
        for item in vars(value).values():
            _assert_sealed_throughout(item)
    elif isinstance(value, dict):
        assert type(value) is FrozenDict, value
        for item in value.values():
            _assert_sealed_throughout(item)
    elif isinstance(value, list):
        assert type(value) is FrozenList, value
        for item in value:
            _assert_sealed_throughout(item)
    elif isinstance(value, set):
        assert type(value) is FrozenIds, value


@pytest.fixture(params=["memory", "sqlite"])
async def service(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if request.param == "memory":
        store: Any = InMemorySessionService(max_event_bytes=2_000)
    else:
        store = SqliteSessionService(tmp_path / "s.db", max_event_bytes=2_000)
    yield store
    await store.aclose()


async def test_every_store_seals_the_appended_event_itself_throughout(service: Any) -> None:
    session = await service.create_session(app_name="app", user_id="u")
    event = _event()
    assert await service.append_event(session, event) is event
    assert session.events[-1] is event and is_sealed(event)
    _assert_sealed_throughout(event)
    assert event.actions.state_delta == {"k": [1, {"n": 2}]}  # temp: keys trimmed before
    assert session.state["temp:t"] == 1
    with pytest.raises(ImmutableEventError, match="Event `author` of an event stored by a"):
        event.author = "x"
    with pytest.raises(ImmutableEventError):
        del event.output
    with pytest.raises(ImmutableEventError):
        event.actions.requested_tool_confirmations["c"].confirmed = True
    with pytest.raises(ImmutableEventError):
        event.node_info.output_for.append("x")  # type: ignore[union-attr]


async def test_a_refused_append_leaves_the_event_as_mutable_as_it_was(service: Any) -> None:
    session = await service.create_session(app_name="app", user_id="u")
    big = Event(author="a", content=Content(role="model", parts=[Part(text="x" * 5_000)]))
    with pytest.raises(SessionTooLargeError):
        await service.append_event(session, big)
    assert not is_sealed(big)
    big.content.parts[0].text = "small"  # type: ignore[union-attr]
    big.actions.state_delta["k"] = 1
    stale = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    await service.append_event(session, big)
    late = _event()
    with pytest.raises(StaleSessionError):
        await service.append_event(stale, late)
    assert not is_sealed(late) and not is_sealed(late.content)
    late.author = "edited"


async def test_a_partial_event_is_neither_stored_nor_sealed(service: Any) -> None:
    session = await service.create_session(app_name="app", user_id="u")
    partial = Event(author="a", partial=True, content=Content(role="model", parts=[Part(text="x")]))
    await service.append_event(session, partial)
    assert not is_sealed(partial) and session.events == []
    partial.content.parts[0].text = "xy"  # type: ignore[union-attr]


async def test_copies_of_a_sealed_event_are_the_callers_to_edit() -> None:
    event = seal_event(_event())
    shallow = copy.copy(event)
    assert not is_sealed(shallow) and shallow == event
    assert type(shallow.custom_metadata) is dict and type(shallow.long_running_tool_ids) is set
    shallow.custom_metadata["x"] = 1  # type: ignore[index]
    shallow.author = "mine"
    assert shallow.content is event.content and is_sealed(shallow.content)  # shared, sealed
    updated = event.model_copy(update={"author": "other"})
    assert updated.author == "other" and event.author == "agent"
    updated.output = None
    for deep in (
        copy.deepcopy(event),
        event.model_copy(deep=True),
        pickle.loads(pickle.dumps(event)),
    ):
        assert type(deep) is Event and deep == event and not is_sealed(deep)
        deep.content.parts[0].text = "edited"  # type: ignore[union-attr]
        deep.actions.state_delta["k"][1]["n"] = 3
        deep.actions.requested_tool_confirmations["c"].payload["a"].append(2)
        deep.node_info.output_for.append("x")  # type: ignore[union-attr]
    assert event == seal_event(
        _event().model_copy(update={"id": event.id, "timestamp": event.timestamp})
    )


def test_an_unsealed_model_changes_as_pydantic_models_do() -> None:
    event = Event(author="a")
    event.branch = "b"
    del event.branch
    event.error_code = "E"
    assert "error_code" in event.model_fields_set and not is_sealed(event)


def test_sealing_shares_scalars_and_empty_mappings_and_keeps_the_fields_set() -> None:
    text = "a long text " * 10
    event = Event(author="a", content=Content(role="model", parts=[Part(text=text)]))
    fields_set = set(event.model_fields_set)
    seal_event(event)
    assert event.content.parts[0].text is text  # type: ignore[union-attr]
    assert event.actions.state_delta is EMPTY_DICT and event.actions.artifact_delta is EMPTY_DICT
    assert event.model_fields_set == fields_set


def test_a_subclass_is_sealed_as_the_model_it_extends() -> None:
    class Tagged(Event):
        tag: str = ""

    event = seal_event(Tagged(author="a", tag="t", custom_metadata={"x": 1}))
    assert type(event.custom_metadata) is FrozenDict
    with pytest.raises(ImmutableEventError):
        event.tag = "u"


def test_a_value_of_another_type_assigned_to_a_model_field_is_left_as_it_is() -> None:
    event = Event(author="a")
    foreign = {"role": "model"}
    event.content = foreign  # type: ignore[assignment]  # no validation on assignment
    seal_event(event)
    assert event.content is foreign and is_sealed(event)


def _models_in(annotation: Any) -> list[type]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]


def test_every_model_an_event_holds_can_be_sealed() -> None:
    # A model field of a type that is not Sealable would be stored mutable: a new event model
    # must derive from Sealable.
    seen: set[type] = set()
    todo: list[type] = [Event]
    while todo:
        model = todo.pop()
        if model in seen:
            continue
        seen.add(model)
        assert issubclass(model, Sealable), model
        for field in model.model_fields.values():
            todo.extend(_models_in(field.annotation))
    assert set(EVENT_MODELS) <= seen and Part in seen


async def test_runner_events_are_sealed_and_plugins_edit_them_before_the_append() -> None:
    class Stamps(BasePlugin):
        async def on_event_callback(self, *, invocation_context: Any, event: Event) -> None:
            event.custom_metadata = {"stamped": True}  # in place, as google-adk plugins may
            return None

    agent = LlmAgent(name="bot", model=ScriptedModel(turns=[{"text": "hello"}]))
    service = InMemorySessionService()
    runner = Runner(
        app=App(name="app", root_agent=agent, plugins=[Stamps(name="stamps")]),
        session_service=service,
    )
    session = await service.create_session(app_name="app", user_id="u")
    events = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="hi")
    ]
    assert events and all(is_sealed(e) for e in events)
    stored = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    assert stored is not None and stored.events[-1] is events[-1]
    assert stored.events[-1].custom_metadata == {"stamped": True}


async def test_the_message_passed_to_run_async_is_sealed_as_the_user_events_content() -> None:
    agent = LlmAgent(name="bot", model=ScriptedModel(turns=[{"text": "hello"}]))
    service = InMemorySessionService()
    runner = Runner(app_name="app", agent=agent, session_service=service)
    session = await service.create_session(app_name="app", user_id="u")
    message = Content(role="user", parts=[Part(text="hi")])
    async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message):
        pass
    stored = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    assert stored is not None and stored.events[0].content is message and is_sealed(message)
    with pytest.raises(ImmutableEventError):
        message.parts[0].text = "edited"
