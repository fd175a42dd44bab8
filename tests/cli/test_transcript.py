"""event_lines: what the human transcript of ``yadk run`` shows for each kind of event."""

from __future__ import annotations

import pytest

from yadk.cli._transcript import Line, event_lines
from yadk.events import Event, EventActions
from yadk.types import Content, FunctionCall, FunctionResponse, Part


def event(author: str, *parts: Part, **fields: object) -> Event:
    content = Content(role="model", parts=list(parts)) if parts else None
    return Event(author=author, content=content, **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (event("user", Part(text="hi")), [Line("[user]: hi")]),
        (
            event("desk", Part(text="thinking", thought=True), Part(text="Hello"), Part(text="!")),
            [Line("[desk]: Hello!")],
        ),
        (
            event(
                "desk",
                Part(text="Let me check."),
                Part(function_call=FunctionCall(name="lookup", args={"id": "A-1", "n": 2})),
            ),
            [Line("[desk]: Let me check."), Line('[desk] called lookup(id="A-1", n=2)')],
        ),
        (
            event("desk", Part(function_call=FunctionCall(name="now"))),
            [Line("[desk] called now()")],
        ),
        (
            event(
                "desk",
                Part(function_response=FunctionResponse(name="lookup", response={"ok": "é"})),
            ),
            [Line('[desk] lookup -> {"ok": "é"}')],
        ),
        (
            event(
                "desk",
                Part(function_response=FunctionResponse(name="add", response={"result": 3})),
            ),
            [Line("[desk] add -> 3")],
        ),
        (
            event(
                "desk",
                Part(
                    function_response=FunctionResponse(
                        name="big", response={"text": "line\n" + "x" * 200}
                    )
                ),
            ),
            [Line('[desk] big -> {"text": "line\\n' + "x" * 141 + "...")],
        ),
        (
            event(
                "desk",
                Part(function_response=FunctionResponse(name="transfer_to_agent")),
                actions=EventActions(transfer_to_agent="refunds"),
            ),
            [Line("[desk] transferred to refunds")],
        ),
        (
            event("desk", error_code="MODEL_ERROR", error_message="quota"),
            [Line("[desk] error MODEL_ERROR: quota", error=True)],
        ),
        (
            event("desk", Part(text="partial answer"), error_code="OUTPUT_SCHEMA_ERROR"),
            [
                Line("[desk]: partial answer"),
                Line("[desk] error OUTPUT_SCHEMA_ERROR: ", error=True),
            ],
        ),
        (event("desk", actions=EventActions(state_delta={"k": 1})), []),
        (
            event(
                "calc",
                Part(text="Computing."),
                Part.model_validate({"executable_code": {"code": "print(2 ** 10)"}}),
                Part.model_validate(
                    {"code_execution_result": {"outcome": "OUTCOME_OK", "output": "1024\n"}}
                ),
            ),
            [
                Line("[calc]: Computing."),
                Line("[calc] ran code: print(2 ** 10)"),
                Line("[calc] code ok -> 1024"),
            ],
        ),
    ],
)
def test_event_lines(given: Event, expected: list[Line]) -> None:
    assert event_lines(given) == expected
