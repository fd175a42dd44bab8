"""``GoogleSearchTool(bypass_multi_tools_limit=True)`` next to other tools, against google-adk
2.13's recorded run (fixtures/adk_search_agent.json, made by fixtures/record_adk_search_agent.py):
the search sub-agent's declaration, its own request, its result and grounding in the caller."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from yadk import LlmAgent, Runner
from yadk.models import LlmResponse, ScriptedModel
from yadk.tools import GoogleSearchTool, google_search

ADK = json.loads(Path(__file__).with_name("fixtures").joinpath("adk_search_agent.json").read_text())
GROUNDING = {
    "web_search_queries": ["capital of france"],
    "grounding_chunks": [{"web": {"uri": "https://example.org/paris", "title": "Paris"}}],
}


def get_weather(city: str) -> dict[str, str]:
    """Returns the weather in a city."""
    return {"city": city, "weather": "sunny"}


class Grounded(ScriptedModel):
    """The scripted model, with grounding metadata on the answers that a search would ground."""

    async def generate_content_async(self, llm_request: Any, stream: bool = False) -> Any:
        async for response in super().generate_content_async(llm_request, stream=stream):
            if response.content and "Paris is" in (response.content.parts[0].text or ""):
                response = LlmResponse(content=response.content, grounding_metadata=GROUNDING)
            yield response


def shape(request: Any) -> dict[str, Any]:
    return {
        "system_instruction": request.system_instruction,
        "contents": [c.to_dict() for c in request.contents],
        "declarations": [
            {"name": d.name, "description": d.description, "parameters": d.parameters}
            for d in request.function_declarations
        ],
        "native_tools": request.config.get("tools", []),
    }


def without_ids(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_ids(v) for k, v in value.items() if k != "id"}
    if isinstance(value, list):
        return [without_ids(v) for v in value]
    return value


async def run(agent: LlmAgent, text: str) -> list[Any]:
    runner = Runner(app_name="app", agent=agent)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    return [
        e
        async for e in runner.run_async(user_id="u", session_id=session.id, new_message=text)
        if e.author != "user"
    ]


async def test_search_becomes_a_sub_agent_next_to_other_tools() -> None:
    model = Grounded(
        turns=[
            {
                "function_calls": [
                    {"name": "google_search_agent", "args": {"request": "capital of france"}}
                ]
            },
            {"text": "Paris is the capital of France."},
            {"text": "It is Paris."},
        ],
        name="gemini-2.5-flash",
    )
    agent = LlmAgent(
        name="helper",
        model=model,
        instruction="Help.",
        tools=[GoogleSearchTool(bypass_multi_tools_limit=True), get_weather],
    )
    events = await run(agent, "What is the capital of France?")
    assert without_ids([shape(r) for r in model.requests]) == without_ids(ADK["requests"])
    ours = [
        {
            "author": e.author,
            "content": e.content.to_dict() if e.content else None,
            "grounding_metadata": e.grounding_metadata,
        }
        for e in events
    ]
    assert without_ids(ours) == without_ids(ADK["events"])


@pytest.mark.parametrize(
    ("tools", "recorded"),
    [
        ([google_search, get_weather], "without_bypass"),
        ([GoogleSearchTool(bypass_multi_tools_limit=True)], "alone"),
    ],
)
async def test_search_stays_native(tools: list[Any], recorded: str) -> None:
    model = ScriptedModel(turns=[{"text": "ok"}], name="gemini-2.5-flash")
    await run(LlmAgent(name="helper", model=model, instruction="Help.", tools=tools), "hi")
    assert shape(model.requests[0]) == ADK[recorded]


async def test_search_without_bypass_refuses_sub_agent_transfer() -> None:
    model = ScriptedModel(turns=[{"text": "ok"}], name="gemini-2.5-flash")
    child = LlmAgent(name="child", model=model, instruction="x", description="A child.")
    agent = LlmAgent(
        name="helper", model=model, instruction="Help.", tools=[google_search], sub_agents=[child]
    )
    events = await run(agent, "hi")
    assert events[-1].error_message is not None
    assert ADK["sub_agents_without_bypass_error"] in events[-1].error_message
    assert model.requests == []


async def test_gemini_3_takes_search_and_transfer_together() -> None:
    model = ScriptedModel(turns=[{"text": "ok"}], name="gemini-3-pro-preview")
    child = LlmAgent(name="child", model=model, instruction="x", description="A child.")
    agent = LlmAgent(
        name="helper", model=model, instruction="Help.", tools=[google_search], sub_agents=[child]
    )
    await run(agent, "hi")
    request = model.requests[0]
    assert [d.name for d in request.function_declarations] == ["transfer_to_agent"]
    assert request.config["tools"] == [{"google_search": {}}]


def test_config_spelling_with_args(tmp_path: Path) -> None:
    from yadk.config import load_agent, validate_paths

    folder = tmp_path / "a"
    folder.mkdir()
    config = folder / "root_agent.yaml"
    config.write_text(
        "name: a\nmodel: gemini-2.5-flash\ninstruction: hi\ntools:\n"
        "  - name: google.adk.tools.google_search_tool.GoogleSearchTool\n"
        "    args: {bypass_multi_tools_limit: true}\n"
        "  - name: url_context\n"
    )
    agent = load_agent(folder)
    search = agent.tools[0]  # type: ignore[attr-defined]
    assert isinstance(search, GoogleSearchTool) and search.bypass_multi_tools_limit
    config.write_text(
        "name: a\nmodel: gpt-4o\ninstruction: hi\ntools:\n"
        "  - name: GoogleSearchTool\n    args: {bypass_multi_tools_limit: yes please}\n"
    )
    assert [d.format() for d in validate_paths([folder])] == [
        f"{config}:5:11: error gemini-only-tool: `GoogleSearchTool` runs inside Gemini models;"
        " model `gpt-4o` cannot use it.\n  hint: Use a Gemini model (`model: gemini-2.5-flash`,"
        " any `gemini-*`), or give this agent a search function tool instead.",
        f"{config}:6:38: error wrong-type: `tools[0].args.bypass_multi_tools_limit` must be true or"
        " false, got a string.",
    ]


def test_search_with_sub_agents_is_a_located_error(tmp_path: Path) -> None:
    from yadk.config import validate_paths

    folder = tmp_path / "a"
    folder.mkdir()
    (folder / "child.yaml").write_text("name: child\ninstruction: x\ndescription: A child.\n")
    config = folder / "root_agent.yaml"
    head = "name: a\nmodel: gemini-2.5-flash\ninstruction: hi\nsub_agents:\n  - config_path: child.yaml\n"
    config.write_text(head + "tools:\n  - name: google_search\n")
    assert [d.format() for d in validate_paths([folder])] == [
        f"{config}:7:11: error search-with-sub-agents: `google_search` cannot go with the transfer"
        " to `sub_agents` on model `gemini-2.5-flash`: Gemini models before 3 reject a built-in"
        " search together with function calls.\n  hint: Write the search as `name:"
        " GoogleSearchTool` with `args: {bypass_multi_tools_limit: true}` (it then runs as a"
        " search sub-agent called as a tool), or use a Gemini 3 model."
    ]
    config.write_text(
        head + "tools:\n  - name: GoogleSearchTool\n    args: {bypass_multi_tools_limit: true}\n"
    )
    assert validate_paths([folder]) == []
    config.write_text(
        head.replace("gemini-2.5-flash", "gemini-3-pro-preview")
        + "tools:\n  - name: google_search\n"
    )
    assert validate_paths([folder]) == []
