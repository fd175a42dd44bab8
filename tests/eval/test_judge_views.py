"""What a judge is shown of a turn, built from the events of a real run."""

from __future__ import annotations

import json

from yadk.eval._inference import invocation_from_events
from yadk.eval._judge_views import answer_text, hallucination_steps, tool_steps
from yadk.eval._model import AgentDetails
from yadk.events import Event
from yadk.types import Content, FunctionCall, FunctionResponse, Part

USER = Content(role="user", parts=[Part(text="Weather in Lisbon?")])


def _turn() -> list[Event]:
    call = FunctionCall(id="c1", name="get_weather", args={"city": "Lisbon"})
    response = FunctionResponse(id="c1", name="get_weather", response={"sky": "sunny"})
    return [
        Event(invocation_id="i1", author="user", content=USER),
        Event(
            invocation_id="i1",
            author="weather",
            content=Content(
                role="model", parts=[Part(text="Let me check."), Part(function_call=call)]
            ),
        ),
        Event(
            invocation_id="i1",
            author="weather",
            content=Content(role="user", parts=[Part(function_response=response)]),
        ),
        Event(
            invocation_id="i1",
            author="weather",
            content=Content(role="model", parts=[Part(text="Sunny in Lisbon.")]),
        ),
    ]


def test_the_final_event_keeps_no_content_as_google_adk_records_it() -> None:
    invocation = invocation_from_events(_turn(), USER)
    events = (invocation.intermediate or {})["invocation_events"]
    assert [e["author"] for e in events] == ["weather", "weather", "weather"]
    assert events[-1]["content"] is None
    assert invocation.response_text() == "Sunny in Lisbon."


def test_tool_calls_are_paired_with_their_responses_by_id() -> None:
    invocation = invocation_from_events(_turn(), USER)
    assert json.loads(tool_steps(invocation)) == {
        "tool_calls_and_response": [
            {
                "step": 0,
                "tool_call": {"id": "c1", "name": "get_weather", "args": {"city": "Lisbon"}},
                "tool_response": {"id": "c1", "name": "get_weather", "response": {"sky": "sunny"}},
            }
        ]
    }


def test_answer_text_with_and_without_what_was_said_before() -> None:
    invocation = invocation_from_events(_turn(), USER)
    assert answer_text(invocation) == "Sunny in Lisbon."
    assert answer_text(invocation, with_intermediate=True) == "Let me check.\nSunny in Lisbon."


def test_each_text_is_checked_against_what_came_before_it_only() -> None:
    invocation = invocation_from_events(_turn(), USER)
    invocation.app_details = {"weather": AgentDetails("weather", "Answer weather questions.")}
    final_only = hallucination_steps(invocation, intermediate=False)
    assert [s.text for s in final_only] == ["Sunny in Lisbon."]
    [step] = final_only
    assert "weather:\nAnswer weather questions." in step.context
    assert '"sky": "sunny"' in step.context
    assert "Let me check." in step.context
    assert "Sunny in Lisbon." not in step.context
    first, last = hallucination_steps(invocation, intermediate=True)
    assert first.text == "Let me check."
    assert "tool_outputs" not in first.context and "Let me check." not in first.context
    assert last.context == step.context
