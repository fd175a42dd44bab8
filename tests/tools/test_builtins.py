"""google-adk's built-in tools by their config names, against google-adk 2.13's recorded
declarations and requests (fixtures/adk_builtins.json, made by fixtures/record_adk_builtins.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from yadk import LlmAgent, Runner
from yadk.artifacts import InMemoryArtifactService
from yadk.events import Event
from yadk.memory import InMemoryMemoryService
from yadk.models import Gemini, ScriptedModel
from yadk.sessions import InMemorySessionService
from yadk.tools import (
    exit_loop,
    get_user_choice,
    google_search,
    load_artifacts,
    load_memory,
    preload_memory,
    url_context,
)
from yadk.types import Content, Part

ADK = json.loads(Path(__file__).with_name("fixtures").joinpath("adk_builtins.json").read_text())
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?")


def normal(value: Any) -> Any:
    """Ids and timestamps differ from run to run."""
    if isinstance(value, dict):
        return {k: ("ID" if k == "id" else normal(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [normal(v) for v in value]
    if isinstance(value, str):
        return _TIME.sub("TIME", value)
    return value


def shape(request: Any) -> dict[str, Any]:
    return {
        "system_instruction": request.system_instruction,
        "contents": [c.model_dump(exclude_none=True, mode="json") for c in request.contents],
        "declarations": [
            {"name": d.name, "description": d.description, "parameters": d.parameters}
            for d in request.function_declarations
        ],
        "native_tools": request.config.get("tools", []),
    }


def event_shape(event: Event) -> dict[str, Any]:
    return {
        "author": event.author,
        "content": event.content.model_dump(exclude_none=True, mode="json")
        if event.content
        else None,
        "final": event.is_final_response(),
        "long_running": bool(event.long_running_tool_ids),
        "skip_summarization": bool(event.actions.skip_summarization),
        "escalate": bool(event.actions.escalate),
    }


async def run(
    tools: list[Any],
    turns: list[dict[str, Any]],
    message: str,
    *,
    artifacts: dict[str, str] | None = None,
    memory: InMemoryMemoryService | None = None,
) -> tuple[ScriptedModel, list[Event]]:
    model = ScriptedModel(turns=turns, name="gemini-2.5-flash")
    sessions = InMemorySessionService()
    artifact_service = InMemoryArtifactService()
    runner = Runner(
        app_name="app",
        agent=LlmAgent(name="a", model=model, instruction="Help.", tools=tools),
        session_service=sessions,
        artifact_service=artifact_service,
        memory_service=memory,
    )
    if memory is not None:
        old = await sessions.create_session(app_name="app", user_id="u")
        for author, text in (("user", "My favorite color is blue."), ("a", "Noted: blue.")):
            role = "user" if author == "user" else "model"
            await sessions.append_event(
                old, Event(author=author, content=Content(role=role, parts=[Part(text=text)]))
            )
        await memory.add_session_to_memory(old)
    session = await sessions.create_session(app_name="app", user_id="u")
    for name, text in (artifacts or {}).items():
        await artifact_service.save_artifact(
            app_name="app",
            user_id="u",
            session_id=session.id,
            filename=name,
            artifact=Part(text=text),
        )
    events = [
        e
        async for e in runner.run_async(user_id="u", session_id=session.id, new_message=message)
        if e.author != "user"
    ]
    return model, events


def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"function_calls": [{"name": name, "args": args}]}


async def test_load_artifacts() -> None:
    model, events = await run(
        [load_artifacts],
        [call("load_artifacts", {"artifact_names": ["notes.txt"]}), {"text": "Milk."}],
        "what do my notes say?",
        artifacts={"notes.txt": "Buy milk."},
    )
    assert normal([shape(r) for r in model.requests]) == normal(ADK["load_artifacts"]["requests"])
    assert normal([event_shape(e) for e in events]) == normal(ADK["load_artifacts"]["events"])


async def test_get_user_choice_waits_for_the_user() -> None:
    model, events = await run(
        [get_user_choice], [call("get_user_choice", {"options": ["red", "blue"]})], "pick a color"
    )
    assert normal([shape(r) for r in model.requests]) == normal(ADK["get_user_choice"]["requests"])
    assert normal([event_shape(e) for e in events]) == normal(ADK["get_user_choice"]["events"])


async def test_exit_loop() -> None:
    model, events = await run([exit_loop], [call("exit_loop", {})], "stop")
    assert normal([event_shape(e) for e in events]) == normal(ADK["exit_loop"]["events"])
    declared = shape(model.requests[0])["declarations"]
    assert (
        declared[0]["description"]
        == ADK["exit_loop"]["requests"][0]["declarations"][0]["description"]
    )


async def test_load_memory() -> None:
    model, _ = await run(
        [load_memory],
        [call("load_memory", {"query": "favorite color"}), {"text": "Blue."}],
        "what is my favorite color?",
        memory=InMemoryMemoryService(),
    )
    assert normal([shape(r) for r in model.requests]) == normal(ADK["load_memory"]["requests"])


async def test_preload_memory() -> None:
    model, _ = await run(
        [preload_memory],
        [{"text": "Blue."}],
        "what is my favorite color?",
        memory=InMemoryMemoryService(),
    )
    assert normal([shape(r) for r in model.requests]) == normal(ADK["preload_memory"]["requests"])


async def test_gemini_native_tools() -> None:
    model, _ = await run([google_search, url_context], [{"text": "Found it."}], "search")
    assert [shape(r) for r in model.requests] == ADK["google_search"]["requests"]
    body = Gemini("gemini-2.5-flash").request_body(model.requests[0])
    assert body["tools"] == [{"googleSearch": {}}, {"urlContext": {}}]


async def test_gemini_native_tools_need_a_gemini_model() -> None:
    model = ScriptedModel(turns=[{"text": "x"}], name="gpt-4o")
    runner = Runner(app_name="app", agent=LlmAgent(name="a", model=model, tools=[google_search]))
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="hi")
    ]
    assert "Google search tool is not supported for model gpt-4o" in (
        events[-1].error_message or ""
    )


def test_config_names_and_the_non_gemini_diagnostic(tmp_path: Path) -> None:
    from yadk.config import load_agent, validate_paths

    folder = tmp_path / "a"
    folder.mkdir()
    config = folder / "root_agent.yaml"
    config.write_text(
        "name: a\nmodel: gemini-2.5-flash\ninstruction: hi\ntools:\n  - name: google_search\n"
        "  - name: google.adk.tools.url_context\n  - name: load_artifacts\n"
        "  - name: google.adk.tools.load_memory_tool.load_memory\n  - name: preload_memory\n"
        "  - name: get_user_choice\n"
    )
    agent = load_agent(folder)
    assert agent.tools == [  # type: ignore[attr-defined]
        google_search,
        url_context,
        load_artifacts,
        load_memory,
        preload_memory,
        get_user_choice,
    ]
    config.write_text("name: a\nmodel: gpt-4o\ninstruction: hi\ntools:\n  - name: google_search\n")
    assert [d.format() for d in validate_paths([folder])] == [
        f"{config}:5:11: error gemini-only-tool: `google_search` runs inside Gemini models; model"
        " `gpt-4o` cannot use it.\n  hint: Use a Gemini model (`model: gemini-2.5-flash`, any"
        " `gemini-*`), or give this agent a search function tool instead."
    ]
