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


async def test_callbacks_and_tools_edit_their_own_copies_of_the_sealed_history() -> None:
    # History is sealed once appended and shared by the store; as in google-adk, a model
    # callback may still edit the request in place (here, redacting every turn's contents,
    # history included, with a fresh runner per turn as a server has) and a tool or tool
    # callback its arguments, nested lists included. What is stored does not change.
    from yadk.sessions import InMemorySessionService

    requests: list[list[str]] = []

    def redact(callback_context: Any, llm_request: Any) -> None:
        for content in llm_request.contents:
            for part in content.parts:
                if part.text:
                    part.text = part.text.replace("4111", "****")
        requests.append([p.text for c in llm_request.contents for p in c.parts if p.text])

    def extend(items: list) -> dict:
        """Adds an item."""
        items.append("tool's")
        return {"items": items}

    def before_tool(tool: Any, args: dict, tool_context: Any) -> None:
        args["items"].append("callback's")

    service = InMemorySessionService()
    session = await service.create_session(app_name="app", user_id="u")
    turns = [
        [{"function_calls": [{"name": "extend", "args": {"items": ["model's"]}}]}, {"text": "ok"}],
        [{"text": "ok again"}],
    ]
    for message, script in zip(["card 4111", "again 4111"], turns, strict=True):
        agent = LlmAgent(
            name="a",
            model=model(*script),
            tools=[extend],
            before_model_callback=redact,
            before_tool_callback=before_tool,
        )
        runner = Runner(app_name="app", agent=agent, session_service=service)
        events = [
            e
            async for e in runner.run_async(user_id="u", session_id=session.id, new_message=message)
        ]
        assert not [e.error_message for e in events if e.error_message]
    assert requests[-1][0] == "card ****" and requests[-1][-1] == "again ****"
    stored = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    assert stored is not None
    assert [e.text for e in stored.events if e.author == "user"] == ["card 4111", "again 4111"]
    (call,) = [c for e in stored.events for c in e.get_function_calls()]
    assert call.args == {"items": ["model's"]}
    (response,) = [r for e in stored.events for r in e.get_function_responses()]
    assert response.response == {"items": ["model's", "callback's", "tool's"]}


async def test_a_plugins_model_callback_gets_copies_and_without_one_history_is_shared() -> None:
    from yadk.apps import App, BasePlugin
    from yadk.sessions import InMemorySessionService

    class Redacts(BasePlugin):
        async def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> None:
            llm_request.contents[0].parts[0].text = "redacted"

    async def one_turn(agent: LlmAgent, plugins: list[Any]) -> tuple[Any, Any]:
        service = InMemorySessionService()
        runner = Runner(
            app=App(name="app", root_agent=agent, plugins=plugins), session_service=service
        )
        session = await service.create_session(app_name="app", user_id="u")
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message="secret"):
            pass
        stored = await service.get_session(app_name="app", user_id="u", session_id=session.id)
        return stored, agent.model.requests[-1]  # type: ignore[union-attr]

    stored, request = await one_turn(
        LlmAgent(name="a", model=model({"text": "ok"})), [Redacts("r")]
    )
    assert request.contents[0].parts[0].text == "redacted"
    assert stored.events[0].content.parts[0].text == "secret"
    stored, request = await one_turn(LlmAgent(name="a", model=model({"text": "ok"})), [])
    assert request.contents[0] is stored.events[0].content  # no callback: nothing copied
