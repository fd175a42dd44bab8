"""The six callback kinds: keyword names, sync or async, lists, first result short-circuits."""

from __future__ import annotations

from typing import Any

import pytest

from yadk import LlmAgent, Runner
from yadk.models import LlmResponse, ScriptedModel
from yadk.types import ModelContent


async def run(agent: LlmAgent, message: str = "hi") -> list:
    runner = Runner(app_name="app", agent=agent)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    return [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message=message)
    ]


def model(*turns: dict) -> ScriptedModel:
    return ScriptedModel(turns=list(turns))


def tool(x: int) -> dict:
    """Doubles x."""
    return {"doubled": x * 2}


async def test_before_agent_short_circuits_the_agent() -> None:
    m = model({"text": "never"})
    agent = LlmAgent(
        name="a", model=m, before_agent_callback=lambda callback_context: ModelContent("canned")
    )
    events = await run(agent)
    assert [e.text for e in events] == ["hi", "canned"]
    assert m.requests == []


async def test_after_agent_appends_content() -> None:
    agent = LlmAgent(
        name="a",
        model=model({"text": "answer"}),
        after_agent_callback=lambda callback_context: ModelContent("footer"),
    )
    assert [e.text for e in await run(agent)] == ["hi", "answer", "footer"]


async def test_callback_lists_first_result_wins_sync_and_async() -> None:
    calls: list[str] = []

    def first(callback_context: Any, llm_request: Any) -> None:
        calls.append("first")

    async def second(callback_context: Any, llm_request: Any) -> LlmResponse:
        calls.append("second")
        return LlmResponse(content=ModelContent("from callback"))

    def third(callback_context: Any, llm_request: Any) -> None:
        calls.append("third")

    m = model({"text": "never"})
    agent = LlmAgent(name="a", model=m, before_model_callback=[first, second, third])
    events = await run(agent)
    assert calls == ["first", "second"]
    assert events[-1].text == "from callback"
    assert m.requests == []


async def test_after_model_replaces_response() -> None:
    def shout(callback_context: Any, llm_response: LlmResponse) -> LlmResponse:
        text = llm_response.content.parts[0].text  # type: ignore[union-attr]
        return LlmResponse(content=ModelContent(text.upper()))

    agent = LlmAgent(name="a", model=model({"text": "quiet"}), after_model_callback=shout)
    assert (await run(agent))[-1].text == "QUIET"


async def test_before_model_can_edit_the_request() -> None:
    def add_note(callback_context: Any, llm_request: Any) -> None:
        llm_request.append_instructions(["NOTE: be brief"])

    m = model({"text": "ok"})
    agent = LlmAgent(name="a", model=m, instruction="Base.", before_model_callback=add_note)
    await run(agent)
    assert m.requests[0].system_instruction.endswith("\n\nNOTE: be brief")


async def test_tool_callbacks() -> None:
    seen: list[tuple] = []

    def before(tool: Any, args: dict, tool_context: Any) -> dict | None:
        seen.append(("before", tool.name, dict(args)))
        if args.get("x") == 0:
            return {"skipped": True}
        args["x"] = args["x"] + 1  # callbacks may rewrite arguments
        return None

    def after(tool: Any, args: dict, tool_context: Any, tool_response: dict) -> dict:
        seen.append(("after", tool.name, tool_response))
        return {**tool_response, "checked": True}

    m = model(
        {"function_calls": [{"name": "tool", "args": {"x": 1}}]},
        {"function_calls": [{"name": "tool", "args": {"x": 0}}]},
        {"text": "done"},
    )
    agent = LlmAgent(
        name="a", model=m, tools=[tool], before_tool_callback=before, after_tool_callback=after
    )
    events = await run(agent)
    responses = [r.response for e in events for r in e.get_function_responses()]
    assert responses == [{"doubled": 4, "checked": True}, {"skipped": True, "checked": True}]
    assert seen == [
        ("before", "tool", {"x": 1}),
        ("after", "tool", {"doubled": 4}),
        ("before", "tool", {"x": 0}),
        ("after", "tool", {"skipped": True}),
    ]


async def test_a_tool_callback_result_that_is_not_a_dict_is_wrapped_as_google_adk_does() -> None:
    # google-adk 2.13 passes a tool callback's result on as the response, and a response that
    # is not a dict reaches the model as {"result": value}; yadk does the same (no error).
    m = model(
        {"function_calls": [{"name": "tool", "args": {"x": 1}}]},
        {"function_calls": [{"name": "tool", "args": {"x": 2}}]},
        {"text": "done"},
    )

    def before(tool: Any, args: dict, tool_context: Any) -> Any:
        return "cached" if args["x"] == 2 else None

    def after(tool: Any, args: dict, tool_context: Any, tool_response: Any) -> Any:
        return [tool_response["doubled"]] if isinstance(tool_response, dict) else None

    agent = LlmAgent(
        name="a", model=m, tools=[tool], before_tool_callback=before, after_tool_callback=after
    )
    events = await run(agent)
    responses = [r.response for e in events for r in e.get_function_responses()]
    assert responses == [{"result": [2]}, {"result": "cached"}]
    assert events[-1].text == "done"


@pytest.mark.parametrize(
    "kind",
    [
        "before_agent_callback",
        "before_model_callback",
        "after_model_callback",
        "after_agent_callback",
    ],
)
async def test_raising_callback_is_an_error_event(kind: str) -> None:
    def boom(**kwargs: Any) -> None:
        raise RuntimeError("kaput")

    agent = LlmAgent(name="a", model=model({"text": "answer"}), **{kind: boom})
    events = await run(agent)
    last = events[-1]
    assert last.error_code == "CALLBACK_ERROR"
    assert last.error_message is not None
    assert last.error_message.startswith(f"{kind} ")
    assert last.error_message.endswith("raised RuntimeError: kaput")
