"""An LlmAgent with both ``output_schema`` and tools, on a model that cannot take a response
schema beside tools: the request offers ``set_model_response`` instead, and its call becomes the
answer. Each case is built as record_set_model_response.py builds it in google-adk 2.13 and must
give the recorded requests, events and state (recorded/set_model_response.json).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, Field

from yadk import LlmAgent, Runner
from yadk.models import LlmRequest, ScriptedModel
from yadk.models._anthropic import AnthropicLlm
from yadk.models._gemini import Gemini
from yadk.models._litellm import litellm_model
from yadk.models._openai import OpenAIChat
from yadk.sessions import InMemorySessionService
from yadk.tools import AgentTool
from yadk.types import Content, Part

RECORDED: dict[str, Any] = json.loads(
    (Path(__file__).parent / "recorded" / "set_model_response.json").read_text(encoding="utf-8")
)
SMR = "set_model_response"
GOOD = {"city": "Paris", "celsius": 21}


class Report(BaseModel):
    city: str = Field(description="The city the report is about.")
    celsius: int
    note: str | None = None


def get_weather(city: str) -> dict[str, Any]:
    """The weather in a city."""
    return {"city": city, "celsius": 21}


def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"function_calls": [{"name": name, "args": args}]}


def agent(
    name: str, answers: list[dict[str, Any]], **fields: Any
) -> tuple[LlmAgent, ScriptedModel]:
    model = ScriptedModel([*answers, {"text": "ok"}])
    return LlmAgent(name=name, model=model, instruction="Report the weather.", **fields), model


def cases() -> dict[str, tuple[LlmAgent, list[ScriptedModel]]]:
    out: dict[str, tuple[LlmAgent, list[ScriptedModel]]] = {}
    a, m = agent(
        "reporter",
        [call("get_weather", {"city": "Paris"}), call(SMR, GOOD)],
        output_schema=Report,
        output_key="report",
        tools=[get_weather],
    )
    out["tools_and_schema"] = (a, [m])
    a, m = agent(
        "reporter",
        [call(SMR, {"city": "Paris", "celsius": "warm"}), call(SMR, {**GOOD, "note": "sunny"})],
        output_schema=Report,
        output_key="report",
        tools=[get_weather],
    )
    out["invalid_then_valid"] = (a, [m])
    a, m = agent(
        "reporter",
        [{"text": '{"city": "Paris", "celsius": 21}'}],
        output_schema=Report,
        output_key="report",
    )
    out["schema_without_tools"] = (a, [m])
    a, m = agent(
        "reporter",
        [call("get_weather", {"city": "Paris"}), call(SMR, GOOD)],
        output_schema=Report,
        tools=[get_weather],
        description="Reports the weather.",
    )
    parent_model = ScriptedModel(
        [call("reporter", {"request": "Paris?"}), {"text": "It is 21 in Paris."}]
    )
    parent = LlmAgent(
        name="parent", model=parent_model, instruction="Use the reporter.", tools=[AgentTool(a)]
    )
    out["agent_tool"] = (parent, [parent_model, m])
    return out


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(word.title() for word in rest)


def _unversioned(value: Any) -> Any:
    """The validation message without pydantic's versioned documentation link."""
    text = json.dumps(value, sort_keys=True)
    return json.loads(re.sub(r"https://errors\.pydantic\.dev/[^ ]+/v/", "PYDANTIC/", text))


def event_record(event: Any) -> dict[str, Any]:
    parts: list[dict[str, Any]] = []
    for part in event.content.parts if event.content else []:
        if part.text is not None:
            parts.append({"text": part.text})
        elif part.function_call is not None:
            fc = part.function_call
            parts.append({"function_call": {"name": fc.name, "args": fc.args}})
        elif part.function_response is not None:
            fr = part.function_response
            parts.append({"function_response": {"name": fr.name, "response": fr.response}})
    dumped = event.actions.model_dump(mode="json", exclude_none=True)
    actions = {_camel(k): v for k, v in dumped.items() if v not in ({}, [], None)}
    return {
        "author": event.author,
        "role": event.content.role if event.content else None,
        "parts": parts,
        "actions": actions,
        "final": event.is_final_response(),
    }


def request_record(request: LlmRequest) -> dict[str, Any]:
    return {
        "system_instruction": request.system_instruction or None,
        "tools": [
            {"name": d.name, "description": d.description, "parameters": d.parameters}
            for d in request.function_declarations
        ],
        "response_schema_set": request.config.get("response_schema") is not None,
        "response_mime_type": request.config.get("response_mime_type"),
    }


def recorded_request(recorded: dict[str, Any]) -> dict[str, Any]:
    return {
        "system_instruction": recorded["system_instruction"],
        "tools": [
            {
                "name": t["name"],
                "description": t["description"],
                "parameters": t["parameters_json_schema"],
            }
            for t in recorded["tools"]
        ],
        "response_schema_set": recorded["response_schema_set"],
        "response_mime_type": recorded["response_mime_type"],
    }


async def run_case(root: LlmAgent) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    runner = Runner(app_name="rec", agent=root, session_service=InMemorySessionService())
    session = await runner.session_service.create_session(app_name="rec", user_id="u")
    message = Content(role="user", parts=[Part(text="Weather in Paris?")])
    events = [
        event_record(e)
        async for e in runner.run_async(user_id="u", session_id=session.id, new_message=message)
        if e.author != "user"  # yadk's runner yields the user's message too; google-adk's not
    ]
    stored = await runner.session_service.get_session(
        app_name="rec", user_id="u", session_id=session.id
    )
    assert stored is not None
    return events, dict(stored.state)


@pytest.mark.parametrize("name", sorted(RECORDED))
async def test_matches_google_adk(name: str) -> None:
    root, models = cases()[name]
    events, state = await run_case(root)
    expected = RECORDED[name]
    assert _unversioned(events) == _unversioned(expected["events"])
    assert state == expected["state"]
    for index, model in enumerate(models):
        got = [request_record(r) for r in model.requests]
        assert got == [recorded_request(r) for r in expected["requests"][str(index)]]


class BothAtOnce(ScriptedModel):
    output_schema_with_tools = True


async def test_a_model_that_takes_both_gets_the_response_schema() -> None:
    model = BothAtOnce([{"text": '{"city": "Paris", "celsius": 21}'}])
    root = LlmAgent(
        name="reporter",
        model=model,
        instruction="Report the weather.",
        output_schema=Report,
        output_key="report",
        tools=[get_weather],
    )
    events, state = await run_case(root)
    (request,) = model.requests
    assert request.config["response_schema"] == Report.model_json_schema()
    assert request.config["response_mime_type"] == "application/json"
    assert [d.name for d in request.function_declarations] == ["get_weather"]
    assert SMR not in request.system_instruction
    assert state == {"report": GOOD}
    assert [e["final"] for e in events] == [True]


def test_which_models_take_both(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_CLOUD_PROJECT", "GOOGLE_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    assert not Gemini("gemini-2.5-flash").output_schema_with_tools
    assert not AnthropicLlm("claude-sonnet-4-5").output_schema_with_tools
    assert not ScriptedModel([]).output_schema_with_tools
    assert OpenAIChat("gpt-4o-mini").output_schema_with_tools
    assert not litellm_model("groq/llama-3.3-70b-versatile").output_schema_with_tools
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "p")
    assert Gemini("gemini-2.5-flash").output_schema_with_tools
    assert not Gemini("gemma-3-27b-it").output_schema_with_tools


WEATHER_PY = '''
from pydantic import BaseModel, Field


class Report(BaseModel):
    city: str = Field(description="The city the report is about.")
    celsius: int


def get_weather(city: str) -> dict:
    """The weather in a city."""
    return {"city": city, "celsius": 21}
'''


async def test_the_documented_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/config.md's example, loaded and inspected: the Gemini API gets set_model_response,
    Gemini on Vertex AI the response schema."""
    from yadk.cli._inspect import inspect_agent
    from yadk.config import load_agent

    docs = (Path(__file__).resolve().parents[2] / "docs" / "config.md").read_text()
    [block] = [b for b in docs.split("```yaml\n")[1:] if "set_model_response" in b.split("```")[0]]
    yaml_text = "\n".join(line.strip() and line[2:] for line in block.split("```")[0].splitlines())
    folder = tmp_path / "reporter"
    folder.mkdir()
    (folder / "root_agent.yaml").write_text(yaml_text + "\n")
    (folder / "weather.py").write_text(WEATHER_PY)
    for var in ("GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_CLOUD_PROJECT", "GOOGLE_API_KEY"):
        monkeypatch.delenv(var, raising=False)

    request = (await inspect_agent(load_agent(folder), mcp=False)).request
    assert [d.name for d in request.function_declarations] == [SMR, "get_weather"]
    assert "response_schema" not in request.config
    assert request.system_instruction.endswith("in the specified schema format.")

    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "p")
    request = (await inspect_agent(load_agent(folder), mcp=False)).request
    assert [d.name for d in request.function_declarations] == ["get_weather"]
    assert request.config["response_schema"]["title"] == "Report"


async def test_an_interrupted_set_model_response_call_is_answered_on_resume() -> None:
    """Stopped right after the model's set_model_response call (as a killed process would be),
    the resumed invocation answers it and gives the answer event; the model is not called."""
    import contextlib

    from yadk.apps import App, ResumabilityConfig

    def build(answers: list[dict[str, Any]]) -> tuple[App, ScriptedModel]:
        root, model = agent(
            "reporter", answers, output_schema=Report, output_key="report", tools=[get_weather]
        )
        resumable = ResumabilityConfig(is_resumable=True)
        return App(name="rec", root_agent=root, resumability_config=resumable), model

    app, _ = build([call(SMR, GOOD)])
    service = InMemorySessionService()
    runner = Runner(app=app, session_service=service)
    session = await service.create_session(app_name="rec", user_id="u")
    run = runner.run_async(user_id="u", session_id=session.id, new_message="Weather in Paris?")
    async with contextlib.aclosing(run) as events:
        async for event in events:
            if event.get_function_calls():
                invocation_id = event.invocation_id
                break

    again_app, again_model = build([])
    again = Runner(app=again_app, session_service=service)
    resumed = [
        event_record(e)
        async for e in again.run_async(
            user_id="u", session_id=session.id, invocation_id=invocation_id
        )
    ]
    expected = RECORDED["tools_and_schema"]["events"][-2:]
    assert [e for e in resumed if e["parts"]] == expected
    assert again_model.requests == []
    stored = await service.get_session(app_name="rec", user_id="u", session_id=session.id)
    assert stored is not None and stored.state["report"] == GOOD
