"""A stored session as an eval case (the web UI's "Eval case" download)."""

from __future__ import annotations

from yadk.eval._save import eval_case_from_session, new_eval_set
from yadk.events import Event, EventActions
from yadk.sessions import InMemorySessionService
from yadk.types import Content, FunctionCall, Part, UserContent


async def test_the_case_starts_from_the_state_before_the_first_turn() -> None:
    service = InMemorySessionService()
    session = await service.create_session(
        app_name="desk", user_id="ada", session_id="s1", state={"floor": 2, "visitor": "?"}
    )
    edits = [
        # A state edit before the conversation (the State panel's form): part of the start.
        Event(invocation_id="p-1", author="user", actions=EventActions(state_delta={"tier": 1})),
        Event(invocation_id="e-1", author="user", content=UserContent("my name is Ada")),
        Event(
            invocation_id="e-1",
            author="desk",
            content=Content(
                role="model",
                parts=[Part(function_call=FunctionCall(name="remember", args={"name": "Ada"}))],
            ),
        ),
        Event(
            invocation_id="e-1",
            author="desk",
            content=Content(role="model", parts=[Part(text="Welcome, Ada!")]),
            actions=EventActions(state_delta={"visitor": "Ada"}),
        ),
    ]
    for event in edits:
        await service.append_event(session, event)

    case = eval_case_from_session(session, eval_id="s1")

    assert case["session_input"] == {
        "app_name": "desk",
        "user_id": "ada",
        "state": {"floor": 2, "tier": 1},  # `visitor` is written by the turn: replayed, not given
    }
    [turn] = case["conversation"]
    assert turn["user_content"]["parts"] == [{"text": "my name is Ada"}]
    assert turn["intermediate_data"]["tool_uses"] == [{"name": "remember", "args": {"name": "Ada"}}]
    assert turn["final_response"]["parts"] == [{"text": "Welcome, Ada!"}]
    assert new_eval_set("desk-s1", [case]) == {
        "eval_set_id": "desk-s1",
        "name": "desk-s1",
        "eval_cases": [case],
    }
