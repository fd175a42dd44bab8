"""The call loop: tools, their failures, limits, instructions and history in the request."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from yadk import LlmAgent, Runner
from yadk.agents import ReadonlyContext, RunConfig
from yadk.errors import ModelCallLimitError, ToolErrorType, ToolExecutionError
from yadk.models import ScriptedModel
from yadk.tools import FunctionTool, ToolContext
from yadk.types import Content, Part


async def run(agent: LlmAgent, *messages: str, state: dict | None = None, **runner_kw: Any) -> list:
    runner = Runner(app_name="app", agent=agent, **runner_kw)
    session = await runner.session_service.create_session(app_name="app", user_id="u", state=state)
    events = []
    for message in messages:
        events += [
            e
            async for e in runner.run_async(user_id="u", session_id=session.id, new_message=message)
        ]
    return events


def call(tool_name: str, **args: Any) -> dict:
    return {"function_calls": [{"name": tool_name, "args": args}]}


def remember(name: str, level: str = "junior", tool_context: ToolContext | None = None) -> dict:
    """Saves a profile.

    Args:
      name: who
      level: how senior
    """
    assert tool_context is not None
    tool_context.state["dev_name"] = name
    tool_context.state["temp:scratch"] = 1
    return {"status": "ok"}


async def slow_echo(text: str) -> str:
    """Echoes after a pause."""
    await asyncio.sleep(0)
    return text


def test_function_declaration_from_signature() -> None:
    declaration = FunctionTool(remember).declaration()
    assert declaration.to_dict() == {
        "name": "remember",
        "description": "Saves a profile.\n\nArgs:\n  name: who\n  level: how senior",
        "parameters": {
            "properties": {
                "name": {"title": "Name", "type": "string"},
                "level": {"default": "junior", "title": "Level", "type": "string"},
            },
            "required": ["name"],
            "title": "rememberParams",
            "type": "object",
        },
    }


async def test_tool_round_trip_with_state_and_async_tool() -> None:
    m = ScriptedModel(
        turns=[
            {
                "function_calls": [
                    {"name": "remember", "args": {"name": "Alex"}},
                    {"name": "slow_echo", "args": {"text": "x"}},
                ]
            },
            {"text": "Saved."},
        ]
    )
    agent = LlmAgent(name="a", model=m, tools=[remember, slow_echo])
    events = await run(agent, "I'm Alex")
    response_event = events[2]
    assert [r.response for r in response_event.get_function_responses()] == [
        {"status": "ok"},
        {"result": "x"},
    ]
    assert response_event.actions.state_delta == {"dev_name": "Alex"}
    assert response_event.content.role == "user"  # type: ignore[union-attr]
    assert events[-1].text == "Saved."
    second = m.requests[1]
    assert [c.role for c in second.contents] == ["user", "model", "user"]
    assert second.contents[1].parts[0].function_call.id is None  # client ids never reach models


async def test_missing_and_invalid_arguments_go_back_to_the_model() -> None:
    m = ScriptedModel(
        turns=[call("remember"), call("remember", name=["not", "a", "str"]), {"text": "ok"}]
    )
    events = await run(LlmAgent(name="a", model=m, tools=[remember]), "go")
    errors = [r.response["error"] for e in events for r in e.get_function_responses()]
    assert errors[0] == (
        "Invoking `remember()` failed as the following mandatory input parameters are not"
        " present:\nname\nYou could retry calling this tool, but it is IMPORTANT for you to"
        " provide all the mandatory parameters."
    )
    assert errors[1].startswith(
        "Invoking `remember()` failed due to argument validation errors:\nParameter 'name':"
        " expected type 'str'"
    )


async def test_raising_tool_and_unknown_tool_are_recoverable() -> None:
    def broken(x: int) -> int:
        """Always fails."""
        raise ValueError("bad input")

    def typed_failure() -> None:
        """Fails with a classified error."""
        raise ToolExecutionError("quota", error_type=ToolErrorType.BAD_REQUEST)

    m = ScriptedModel(
        turns=[call("broken", x=1), call("nope"), call("typed_failure"), {"text": "recovered"}]
    )
    events = await run(LlmAgent(name="a", model=m, tools=[broken, typed_failure]), "go")
    responses = [r.response for e in events for r in e.get_function_responses()]
    assert responses == [
        {"error": "Tool 'broken' raised ValueError: bad input"},
        {
            "error": "Tool 'nope' is not available to agent 'a'. Available tools: broken, typed_failure."
        },
        {"error": "quota", "error_type": "BAD_REQUEST"},
    ]
    assert events[-1].text == "recovered"
    assert not any(e.error_code for e in events)


async def test_model_call_limit_ends_with_a_clear_error() -> None:
    m = ScriptedModel(turns=[call("slow_echo", text="again")] * 10)
    agent = LlmAgent(name="a", model=m, tools=[slow_echo])
    events = await run(agent, "loop", run_config=RunConfig(max_llm_calls=3))
    assert events[-1].error_code == "MODEL_CALL_LIMIT"
    assert "reached its limit of 3 model calls" in (events[-1].error_message or "")
    assert len(m.requests) == 3
    with pytest.raises(ModelCallLimitError):
        await run(agent, "loop", run_config=RunConfig(max_llm_calls=1, raise_errors=True))


async def test_exhausted_script_is_a_model_error_event() -> None:
    m = ScriptedModel(turns=[{"text": "only one"}])
    events = await run(LlmAgent(name="a", model=m), "one", "two")
    assert events[1].text == "only one"
    assert events[-1].error_code == "MODEL_ERROR"
    assert "script exhausted: 1 of 1 turns used" in (events[-1].error_message or "")


async def test_output_key_saves_final_text() -> None:
    agent = LlmAgent(name="a", model=ScriptedModel(turns=[{"text": "42"}]), output_key="answer")
    events = await run(agent, "?")
    assert events[-1].actions.state_delta == {"answer": "42"}


async def test_instruction_rendering_and_provider_verbatim() -> None:
    m1 = ScriptedModel(turns=[{"text": "ok"}])
    agent = LlmAgent(
        name="a", model=m1, description="Helps.", instruction="Hi {name}, plan {plan?}."
    )
    await run(agent, "x", state={"name": "Ada"})
    assert m1.requests[0].system_instruction == (
        'Hi Ada, plan .\n\nYou are an agent. Your internal name is "a". The description about'
        ' you is "Helps.".'
    )

    async def provider(ctx: ReadonlyContext) -> str:
        return "Literal {name} for " + ctx.state["name"]

    m2 = ScriptedModel(turns=[{"text": "ok"}])
    await run(LlmAgent(name="a", model=m2, instruction=provider), "x", state={"name": "Ada"})
    assert m2.requests[0].system_instruction.startswith("Literal {name} for Ada\n\n")


async def test_missing_state_key_is_a_template_error_event() -> None:
    agent = LlmAgent(name="a", model=ScriptedModel(turns=[]), instruction="Hi {name}.")
    events = await run(agent, "x")
    assert events[-1].error_code == "TEMPLATE_ERROR"
    assert events[-1].error_message == "Context variable not found: `name` in agent 'a'."


async def test_global_static_and_dynamic_instruction_placement() -> None:
    m = ScriptedModel(turns=[call("slow_echo", text="t"), {"text": "r1"}, {"text": "r2"}])
    child = LlmAgent(name="child", description="Kid.")
    agent = LlmAgent(
        name="root",
        model=m,
        global_instruction="GLOBAL {x}",
        static_instruction="STATIC {x}",
        instruction="Dyn {x}",
        tools=[slow_echo],
        sub_agents=[child],
    )
    await run(agent, "hi", "again", state={"x": "X"})
    first, second, third = m.requests
    assert first.system_instruction.startswith(
        'GLOBAL X\n\nSTATIC {x}\n\nYou are an agent. Your internal name is "root".\n\n\nYou have'
    )
    block = first.contents[0].parts[0].text
    assert block is not None and block.endswith(
        "<<<BEGIN_SYSTEM_INSTRUCTION>>>\nDyn X\n<<<END_SYSTEM_INSTRUCTION>>>"
    )

    def shape(request: Any) -> list[str]:
        out = []
        for c in request.contents:
            p = c.parts[0]
            if p.text and p.text.startswith("The text between"):
                out.append("INSTR")
            elif p.function_call:
                out.append("call")
            elif p.function_response:
                out.append("resp")
            else:
                out.append(f"{c.role}:{p.text}")
        return out

    assert shape(first) == ["INSTR", "user:hi"]
    assert shape(second) == ["user:hi", "call", "resp", "INSTR"]
    assert shape(third) == ["user:hi", "call", "resp", "model:r1", "INSTR", "user:again"]
    assert [d.name for d in first.function_declarations] == ["transfer_to_agent", "slow_echo"]


async def test_include_contents_none_sees_only_the_current_turn() -> None:
    m = ScriptedModel(turns=[{"text": "a1"}, {"text": "a2"}])
    await run(LlmAgent(name="a", model=m, include_contents="none"), "first", "second")
    assert [c.to_dict() for c in m.requests[1].contents] == [
        {"role": "user", "parts": [{"text": "second"}]}
    ]


async def test_function_tool_with_non_json_result() -> None:
    class Thing:
        def __str__(self) -> str:
            return "thing!"

    def make() -> Any:
        """Makes a thing."""
        return {"thing": Thing()}

    m = ScriptedModel(turns=[call("make"), {"text": "ok"}])
    events = await run(LlmAgent(name="a", model=m, tools=[make]), "go")
    assert events[2].get_function_responses()[0].response == {"thing": "thing!"}


def test_parts_helpers_used_by_tools() -> None:
    assert Content(role="user", parts=[Part(text="a")]).parts[0].text == "a"
