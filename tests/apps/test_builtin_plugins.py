"""The built-in plugins (google-adk's names and arguments) on real runs with a scripted model."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest
import yaml

from yadk import Runner
from yadk.agents import LlmAgent
from yadk.apps import (
    App,
    ContextFilterPlugin,
    DebugLoggingPlugin,
    GlobalInstructionPlugin,
    LoggingPlugin,
    ReflectAndRetryToolPlugin,
    SaveFilesAsArtifactsPlugin,
)
from yadk.events import Event
from yadk.models import ScriptedModel
from yadk.sessions import InMemorySessionService
from yadk.types import Blob, Content, Part


def _flaky(log: list[str]) -> Any:
    def lookup(city: str) -> dict[str, str]:
        """Look a city up."""
        log.append(city)
        if city != "Paris":
            raise ValueError(f"unknown city {city}")
        return {"city": city}

    return lookup


async def _turns(
    plugins: list[Any],
    turns: list[dict[str, Any]],
    messages: list[Content | str],
    *,
    tools: list[Any] | None = None,
    state: dict[str, Any] | None = None,
) -> tuple[ScriptedModel, list[Event], Runner, str]:
    model = ScriptedModel(turns=turns)
    agent = LlmAgent(name="helper", model=model, instruction="Answer.", tools=tools or [])
    sessions = InMemorySessionService()
    runner = Runner(
        app=App(name="demo", root_agent=agent, plugins=plugins), session_service=sessions
    )
    session = await sessions.create_session(app_name="demo", user_id="u", state=state)
    events: list[Event] = []
    for message in messages:
        async for event in runner.run_async(
            user_id="u", session_id=session.id, new_message=message
        ):
            events.append(event)
    return model, events, runner, session.id


async def test_global_instruction_comes_first_with_state_filled_in() -> None:
    plugin = GlobalInstructionPlugin("Be kind to {name}.")
    model, _, _, _ = await _turns([plugin], [{"text": "ok"}], ["hi"], state={"name": "Ada"})
    assert model.requests[0].system_instruction.startswith("Be kind to Ada.\n\nAnswer.")


async def test_global_instruction_may_be_a_provider() -> None:
    async def provider(context: Any) -> str:
        return f"Agent {context.agent_name} speaks."

    model, _, _, _ = await _turns([GlobalInstructionPlugin(provider)], [{"text": "ok"}], ["hi"])
    assert model.requests[0].system_instruction.startswith("Agent helper speaks.\n\n")


async def test_context_filter_keeps_the_last_invocations() -> None:
    plugin = ContextFilterPlugin(num_invocations_to_keep=2)
    turns = [{"text": "one"}, {"text": "two"}, {"text": "three"}]
    model, _, _, _ = await _turns([plugin], turns, ["first", "second", "third"])
    texts = [[p.text for p in c.parts] for c in model.requests[2].contents]
    assert texts == [["second"], ["two"], ["third"]]
    assert len(model.requests[1].contents) == 3  # two invocations are within the limit


async def test_context_filter_never_splits_a_call_from_its_response() -> None:
    from yadk.apps._request_plugins import keep_pairs

    call = Content(
        role="model", parts=[Part.model_validate({"function_call": {"id": "c1", "name": "f"}})]
    )
    answer = Content(
        role="user", parts=[Part.model_validate({"function_response": {"id": "c1", "name": "f"}})]
    )
    contents = [Content(role="user", parts=[Part(text="q")]), call, answer]
    assert keep_pairs(contents, 2) == 1


def test_context_filter_refuses_a_zero_remove_amount() -> None:
    with pytest.raises(ValueError, match="remove_amount must be at least 1"):
        ContextFilterPlugin(remove_amount=0)


def _call(city: str) -> dict[str, Any]:
    return {"function_calls": [{"name": "lookup", "args": {"city": city}}]}


async def test_reflect_and_retry_guides_the_model_then_gives_up() -> None:
    log: list[str] = []
    plugin = ReflectAndRetryToolPlugin(max_retries=2, throw_exception_if_retry_exceeded=False)
    turns = [_call("Pari"), _call("Paros"), _call("Parys"), {"text": "sorry"}]
    _, events, _, _ = await _turns([plugin], turns, ["where?"], tools=[_flaky(log)])
    answers = [r.response for e in events for r in e.get_function_responses()]
    assert [a["retry_count"] for a in answers] == [1, 2, 2]
    assert {a["response_type"] for a in answers} == {"ERROR_HANDLED_BY_REFLECT_AND_RETRY_PLUGIN"}
    assert answers[0]["error_type"] == "ValueError"
    assert "attempt 1 of 2" in answers[0]["reflection_guidance"]
    assert "Do not call `lookup` again" in answers[2]["reflection_guidance"]


async def test_reflect_and_retry_success_resets_the_count_and_excess_raises() -> None:
    log: list[str] = []
    plugin = ReflectAndRetryToolPlugin(max_retries=1)
    turns = [_call("Pari"), _call("Paris"), _call("Pari"), _call("Paros"), {"text": "x"}]
    _, events, _, _ = await _turns([plugin], turns, ["where?"], tools=[_flaky(log)])
    assert log == ["Pari", "Paris", "Pari", "Paros"]
    assert events[-1].error_code == "PLUGIN_ERROR"
    assert events[-1].error_message == (
        "Error in plugin 'reflect_retry_tool_plugin' during 'on_tool_error_callback' callback:"
        " ValueError: unknown city Paros"
    )


async def test_uploaded_files_become_artifacts() -> None:
    message = Content(
        role="user",
        parts=[
            Part(text="read this"),
            Part(inline_data=Blob(mime_type="text/plain", data=b"hello", display_name="a.txt")),
        ],
    )
    _, events, runner, session_id = await _turns(
        [SaveFilesAsArtifactsPlugin()], [{"text": "ok"}], [message]
    )
    assert events[0].content is not None
    assert [p.text for p in events[0].content.parts] == [
        "read this",
        '[Uploaded Artifact: "a.txt"]',
    ]
    assert events[1].actions.artifact_delta == {"a.txt": 0}
    part = await runner.artifact_service.load_artifact(
        app_name="demo", user_id="u", session_id=session_id, filename="a.txt"
    )
    assert part is not None and part.inline_data is not None and part.inline_data.data == b"hello"


async def test_logging_plugin_prints_each_step(capsys: pytest.CaptureFixture[str]) -> None:
    await _turns([LoggingPlugin()], [_call("Paris"), {"text": "ok"}], ["hi"], tools=[_flaky([])])
    out = capsys.readouterr().out
    titles = [line.split("] ", 1)[1] for line in out.splitlines() if "]    " not in line]
    assert titles[:6] == [
        "USER MESSAGE RECEIVED",
        "INVOCATION STARTING",
        "AGENT STARTING",
        "LLM REQUEST",
        "LLM RESPONSE",
        "EVENT YIELDED",
    ]
    assert "[logging_plugin]    Tool Name: lookup" in out
    assert titles[-1] == "INVOCATION COMPLETED"


async def test_debug_logging_writes_one_private_yaml_document_per_invocation(
    tmp_path: Path,
) -> None:
    out = tmp_path / "debug.yaml"
    plugin = DebugLoggingPlugin(output_path=str(out))
    state = {"temp:scratch": "x", "api_key": "sk-1", "city": "Paris"}
    await _turns([plugin], [{"text": "one"}, {"text": "two"}], ["a", "b"], state=state)
    documents = list(yaml.safe_load_all(out.read_text(encoding="utf-8")))
    assert len(documents) == 2
    kinds = [e["entry_type"] for e in documents[0]["entries"]]
    assert kinds == [
        "user_message",
        "invocation_start",
        "agent_start",
        "llm_request",
        "llm_response",
        "event",
        "agent_end",
        "session_state_snapshot",
        "invocation_end",
    ]
    snapshot = documents[0]["entries"][-2]["state"]
    assert snapshot == {"api_key": "[REDACTED]", "city": "Paris"}  # temp: is never stored
    assert stat.S_IMODE(out.stat().st_mode) == 0o600


def test_debug_logging_redacts_temp_state_and_secret_keys() -> None:
    from yadk.apps._logging_plugins import redacted

    value = {"temp:x": 1, "user:password": "p", "nested": [{"token": "t", "ok": 2}]}
    assert redacted(value) == {
        "temp:x": "[REDACTED]",
        "user:password": "[REDACTED]",
        "nested": [{"token": "[REDACTED]", "ok": 2}],
    }
