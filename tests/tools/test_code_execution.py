"""BuiltInCodeExecutor against google-adk 2.13's recorded run (fixtures/adk_code_execution.json,
made by fixtures/record_adk_code_execution.py): the native tool in every request, the code parts
kept on events and sent back, the extra model call after a trailing result, images saved as
artifacts, and the non-Gemini error."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from yadk import LlmAgent, Runner
from yadk.code_executors import BuiltInCodeExecutor
from yadk.models import Gemini, ScriptedModel
from yadk.types import Content, Part

ADK = json.loads(
    Path(__file__).with_name("fixtures").joinpath("adk_code_execution.json").read_text()
)
_STAMP = re.compile(r"\d{8}_\d{6}\.png")


def stamped(value: Any) -> Any:
    return json.loads(_STAMP.sub("STAMP.png", json.dumps(value)))


def turns_from_fixture() -> list[dict[str, Any]]:
    """The model answers google-adk was given, read back from the events it stored."""
    answers = [e["content"] for e in ADK["events"] if e["content"] is not None]
    turns = []
    for content in answers:
        parts = content["parts"]
        if any(p.get("text", "").startswith("Saved as artifact") for p in parts):
            png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
            parts = [
                {"inline_data": {"mime_type": "image/png", "data": png}}
                if p.get("text", "").startswith("Saved as artifact")
                else p
                for p in parts
            ]
        turns.append({"parts": parts})
    return turns


async def run(model: ScriptedModel, messages: list[str]) -> tuple[Runner, str, list[Any]]:
    agent = LlmAgent(
        name="calc", model=model, instruction="Compute.", code_executor=BuiltInCodeExecutor()
    )
    runner = Runner(app_name="app", agent=agent)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = []
    for message in messages:
        async for event in runner.run_async(
            user_id="u", session_id=session.id, new_message=message
        ):
            if event.author != "user":
                events.append(event)
    return runner, session.id, events


async def test_requests_events_and_artifacts_match_google_adk() -> None:
    model = ScriptedModel(turns=turns_from_fixture(), name="gemini-2.5-flash")
    runner, session_id, events = await run(
        model, ["what is 2 + 2?", "and 3 * 3?", "plot it", "thanks"]
    )

    requests = [
        {
            "system_instruction": r.system_instruction,
            "contents": [c.to_dict() for c in r.contents],
            "native_tools": r.config.get("tools", []),
        }
        for r in model.requests
    ]
    assert stamped(requests) == stamped(ADK["requests"])
    # google-adk stores an empty event before every model answer; yadk stores only the one
    # that records the saved image (listed in docs/adk_compat.md).
    adk_events = [e for e in ADK["events"] if e["content"] is not None or e["artifact_delta"]]
    ours = [
        {
            "author": e.author,
            "content": e.content.to_dict() if e.content else None,
            "final": e.is_final_response(),
            "artifact_delta": dict(e.actions.artifact_delta),
        }
        for e in events
    ]
    assert stamped(ours) == stamped(adk_events)
    names = await runner.artifact_service.list_artifact_keys(
        app_name="app", user_id="u", session_id=session_id
    )
    assert stamped(names) == stamped(ADK["artifacts"])
    image = await runner.artifact_service.load_artifact(
        app_name="app", user_id="u", session_id=session_id, filename=names[0]
    )
    assert image is not None and image.inline_data is not None
    assert image.inline_data.mime_type == "image/png"
    assert image.inline_data.data is not None and image.inline_data.data.startswith(b"\x89PNG")


async def test_a_non_gemini_model_fails_with_google_adks_message() -> None:
    model = ScriptedModel(turns=[{"text": "x"}], name="gpt-4o")
    _, _, events = await run(model, ["hi"])
    assert ADK["non_gemini_error"] in (events[-1].error_message or "")
    assert model.requests == []


def test_the_gemini_wire_carries_the_tool_and_the_code_parts() -> None:
    from yadk.models import LlmRequest

    request = LlmRequest(
        model="gemini-2.5-flash",
        contents=[
            Content(role="user", parts=[Part(text="2+2?")]),
            Content.model_validate(
                {
                    "role": "model",
                    "parts": [
                        {"executableCode": {"code": "print(4)", "language": "PYTHON"}},
                        {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "4\n"}},
                    ],
                }
            ),
        ],
    )
    BuiltInCodeExecutor().process_llm_request(request)
    body = Gemini("gemini-2.5-flash").request_body(request)
    assert body["tools"] == [{"codeExecution": {}}]
    assert body["contents"][1]["parts"] == [
        {"executableCode": {"code": "print(4)", "language": "PYTHON"}},
        {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "4\n"}},
    ]


def test_gemini_answers_with_code_parts_are_parsed() -> None:
    from yadk.models._gemini import parse_response

    response = parse_response(
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [
                            {"executableCode": {"language": "PYTHON", "code": "print(4)"}},
                            {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "4\n"}},
                            {"text": "4."},
                        ],
                    },
                    "finishReason": "STOP",
                }
            ]
        }
    )
    assert response.content is not None
    parts = response.content.parts
    assert parts[0].executable_code is not None and parts[0].executable_code.code == "print(4)"
    assert parts[1].code_execution_result is not None
    assert parts[1].code_execution_result.output == "4\n"


def test_trailing_code_is_sent_as_a_fenced_block_and_a_lone_result_as_user_text() -> None:
    from yadk.code_executors._built_in import code_parts_as_text

    code = Content.model_validate(
        {"role": "model", "parts": [{"text": "Let me run"}, {"executable_code": {"code": "x=1"}}]}
    )
    result = Content.model_validate(
        {
            "role": "model",
            "parts": [{"code_execution_result": {"outcome": "OUTCOME_OK", "output": "1"}}],
        }
    )
    converted = code_parts_as_text([code, result], BuiltInCodeExecutor())
    assert [c.to_dict() for c in converted] == [
        {"role": "model", "parts": [{"text": "Let me run"}, {"text": "```tool_code\nx=1\n```"}]},
        {"role": "user", "parts": [{"text": "```tool_output\n1\n```"}]},
    ]
    assert code.parts[-1].executable_code is not None  # the session's copy is untouched


def test_only_the_built_in_executor_is_accepted() -> None:
    class UnsafeLocalCodeExecutor:
        pass

    with pytest.raises(ValueError, match="UnsafeLocalCodeExecutor is not supported"):
        LlmAgent(name="a", model="gemini-2.5-flash", code_executor=UnsafeLocalCodeExecutor())


# --- config: `code_executor:` (a yadk addition; google-adk 2.13's YAML has no such key) -------

_CONFIG_CASES = [
    (
        "model: gemini-2.5-flash\ncode_executor: BuiltInCodeExecutor\n",
        [],
    ),
    (
        "model: gemini-2.5-flash\ncode_executor: {name: google.adk.code_executors.BuiltInCodeExecutor}\n",
        [],
    ),
    (
        "model: gemini-2.5-flash\ncode_executor: google.adk.code_executors.UnsafeLocalCodeExecutor\n",
        [
            "4:16: error unsupported-code-executor: `UnsafeLocalCodeExecutor` runs model-written"
            " code outside the model; yadk does not provide it (only BuiltInCodeExecutor, where"
            " Gemini runs the code).\n  hint: Write `code_executor: BuiltInCodeExecutor` with a"
            " Gemini model (the model runs the code in Google's sandbox), or give the agent a"
            " function tool that does the computation you need."
        ],
    ),
    (
        "model: gemini-2.5-flash\ncode_executor: {name: ContainerCodeExecutor}\n",
        [
            "4:23: error unsupported-code-executor: `ContainerCodeExecutor` runs model-written"
            " code outside the model; yadk does not provide it (only BuiltInCodeExecutor, where"
            " Gemini runs the code).\n  hint: Write `code_executor: BuiltInCodeExecutor` with a"
            " Gemini model (the model runs the code in Google's sandbox), or give the agent a"
            " function tool that does the computation you need."
        ],
    ),
    (
        "model: gemini-2.5-flash\ncode_executor: my_agent.executors.sandbox\n",
        [
            "4:16: error invalid-value: `code_executor` must name BuiltInCodeExecutor, got"
            " `my_agent.executors.sandbox`.\n  hint: Write `code_executor: BuiltInCodeExecutor`"
            " with a Gemini model (the model runs the code in Google's sandbox), or give the agent"
            " a function tool that does the computation you need."
        ],
    ),
    (
        "model: gpt-4o\ncode_executor: BuiltInCodeExecutor\n",
        [
            "4:16: error gemini-only-tool: Code execution (BuiltInCodeExecutor) runs inside Gemini"
            " models; model `gpt-4o` cannot use it.\n  hint: Use a Gemini model (`model:"
            " gemini-2.5-flash`, any `gemini-*`), or remove `code_executor`."
        ],
    ),
]


@pytest.mark.parametrize(("body", "expected"), _CONFIG_CASES)
def test_code_executor_key(tmp_path: Path, body: str, expected: list[str]) -> None:
    from yadk.config import load_agent, validate_paths

    folder = tmp_path / "a"
    folder.mkdir()
    config = folder / "root_agent.yaml"
    model_line, rest = body.split("\n", 1)
    config.write_text(f"name: a\n{model_line}\ninstruction: hi\n{rest}")
    got = [d.format() for d in validate_paths([folder])]
    assert got == [f"{config}:{line}" for line in expected]
    if not expected:
        agent = load_agent(folder)
        assert isinstance(agent.code_executor, BuiltInCodeExecutor)  # type: ignore[attr-defined]


async def test_code_parts_survive_a_sqlite_store(tmp_path: Path) -> None:
    from yadk.events import Event
    from yadk.sessions import SqliteSessionService

    content = Content.model_validate(
        {
            "role": "model",
            "parts": [
                {"executable_code": {"code": "print(1)", "language": "PYTHON"}},
                {"code_execution_result": {"outcome": "OUTCOME_OK", "output": "1\n"}},
            ],
        }
    )
    store = SqliteSessionService(tmp_path / "sessions.db")
    session = await store.create_session(app_name="a", user_id="u")
    await store.append_event(session, Event(author="a", content=content))
    reread = await SqliteSessionService(tmp_path / "sessions.db").get_session(
        app_name="a", user_id="u", session_id=session.id
    )
    assert reread is not None
    assert reread.events[-1].content == content
    assert not reread.events[-1].is_final_response()  # a trailing result: the model goes on


def test_other_models_get_the_code_as_text() -> None:
    from yadk.models._anthropic_wire import to_messages as anthropic_messages
    from yadk.models._openai_wire import to_messages as openai_messages

    contents = [
        Content(role="user", parts=[Part(text="2+2?")]),
        Content.model_validate(
            {
                "role": "model",
                "parts": [
                    {"executable_code": {"code": "print(4)"}},
                    {"code_execution_result": {"outcome": "OUTCOME_OK", "output": "4"}},
                ],
            }
        ),
    ]
    code = "Code:```python\nprint(4)\n```"
    result = "Execution Result:```code_output\n4\n```"
    assert anthropic_messages(contents)[1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": code}, {"type": "text", "text": result}],
    }
    assert openai_messages(contents)[1]["content"] == f"{code}{result}"
