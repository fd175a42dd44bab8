"""Nodes and workflows given to an agent as tools (google-adk's node-as-tool): the declaration
the model sees, argument errors handed back to the model, a failing node, and the nodes that
cannot be tools. The event sequence is compared with google-adk in test_recorded.py
(node_as_tool)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from tests.workflow import scenarios_dynamic
from tests.workflow.kit import KIT, model, run_turns

from yadk import LlmAgent
from yadk.apps import BasePlugin
from yadk.errors import AgentDefinitionError
from yadk.runner import Runner
from yadk.sessions import InMemorySessionService, SqliteSessionService
from yadk.types import Content, FunctionResponse, Part
from yadk.workflow import START, NodeContext, NodeTool, RequestInput, Workflow, node


class Query(BaseModel):
    city: str
    days: int = 1


def _parameters(tool: Any) -> Any:
    return tool.declaration().parameters


def test_declarations_come_from_schemas_parameters_and_entry_nodes() -> None:
    def plan(node_input: Query) -> str:
        return node_input.city

    flow = Workflow(name="planner", description="Plans a trip.", edges=[(START, plan)])
    declared = flow.as_tool().declaration()
    assert (declared.name, declared.description) == ("planner", "Plans a trip.")
    assert _parameters(flow.as_tool())["properties"] == {
        "city": {"title": "City", "type": "string"},
        "days": {"default": 1, "title": "Days", "type": "integer"},
    }

    @node
    def convert(amount: float, currency: str, ctx: NodeContext) -> float:
        """Converts an amount."""
        return amount

    params = _parameters(NodeTool(convert))
    assert set(params["properties"]) == {"amount", "currency"}
    assert params["required"] == ["amount", "currency"]
    assert NodeTool(convert).description == "Converts an amount."

    def shout(node_input: str) -> str:
        return node_input.upper()

    assert _parameters(NodeTool(node(shout))) == {
        "type": "object",
        "properties": {"request": {"type": "string"}},
        "required": ["request"],
    }


def test_nodes_the_model_cannot_be_told_how_to_call_are_refused() -> None:
    def untyped(node_input):  # type: ignore[no-untyped-def]
        return node_input

    with pytest.raises(ValueError, match="'untyped' does not have an input_schema defined"):
        NodeTool(node(untyped))
    agent = LlmAgent(name="helper", model=model(["hi"]))
    with pytest.raises(ValueError, match="Agent 'helper' cannot be wrapped as a NodeTool"):
        NodeTool(agent)
    with pytest.raises(AgentDefinitionError, match="is not a tool"):
        LlmAgent(name="boss", model=model(["hi"]), tools=[agent])


async def test_bad_arguments_and_failures_go_back_to_the_model() -> None:
    def plan(node_input: Query) -> str:
        return f"{node_input.days} days in {node_input.city}"

    def explode(node_input: str) -> str:
        raise RuntimeError("no such place")

    planner = Workflow(name="planner", edges=[(START, plan)])
    broken = Workflow(name="broken", edges=[(START, explode)])
    agent = LlmAgent(
        name="desk",
        model=model(
            [
                {"call": "planner", "args": {"city": "Oslo", "days": "many"}},
                {"call": "planner", "args": {"city": "Oslo", "days": 2}},
                {"call": "broken", "args": {"request": "Atlantis"}},
                "Done.",
            ]
        ),
        tools=[planner, broken],
    )
    turns, _, _ = await run_turns(agent, ["plan it"])
    responses = [
        p.function_response.response
        for e in turns[0]
        for p in (e.content.parts if e.content else [])
        if p.function_response is not None
    ]
    assert "failed due to argument validation errors" in responses[0]["error"]
    assert responses[1] == {"result": "2 days in Oslo"}
    assert "no such place" in responses[2]["error"]
    assert turns[0][-1].text == "Done."


async def test_state_written_in_a_call_is_read_by_the_next_node_and_kept() -> None:
    def first(node_input: str, ctx: NodeContext) -> str:
        ctx.state["seen"] = node_input
        return "first"

    def second(node_input: str, ctx: NodeContext) -> str:
        return f"seen={ctx.state.get('seen')}"

    flow = Workflow(name="flow", edges=[(START, first, second)], input_schema=str)
    agent = LlmAgent(
        name="desk", model=model([{"call": "flow", "args": {"request": "go"}}, "ok"]), tools=[flow]
    )
    turns, state, _ = await run_turns(agent, ["hi"])
    assert [e.output for e in turns[0] if e.output is not None] == ["first", "seen=go"]
    assert state == {"seen": "go"}


async def test_a_workflow_called_as_a_tool_asks_and_a_fresh_runner_resumes_it(
    tmp_path: Path,
) -> None:
    """The question waits in the session store: a new runner on a new store answers it, the
    workflow goes on inside the tool, the call gets its response, the model its turn."""

    def quote(node_input: str) -> str:
        return f"{node_input} costs 12"

    @node(rerun_on_resume=True)
    def agree(node_input: str, ctx: NodeContext):  # type: ignore[no-untyped-def]
        answer = ctx.resume_inputs.get("ok")
        if answer is None:
            yield RequestInput(interrupt_id="ok", message=node_input + ". Buy?")
            return
        yield f"{node_input}: {answer}"

    def build() -> LlmAgent:
        flow = Workflow(name="buying", edges=[(START, quote, agree)], input_schema=str)
        return LlmAgent(
            name="shop",
            model=model([{"call": "buying", "args": {"request": "tea"}}, "Done."]),
            tools=[flow],
        )

    db = str(tmp_path / "s.db")
    turns, _, session_id = await run_turns(
        build(), ["buy tea"], session_service=SqliteSessionService(db)
    )
    [question] = turns[0][-1].get_function_calls()
    assert (question.name, question.args["message"]) == ("adk_request_input", "tea costs 12. Buy?")
    agent = build()
    agent.model = model(["Done."])  # type: ignore[assignment]
    answer = Content(
        role="user",
        parts=[
            Part(
                function_response=FunctionResponse(
                    id="ok", name="adk_request_input", response={"result": "yes"}
                )
            )
        ],
    )
    runner = Runner(app_name="app", agent=agent, session_service=SqliteSessionService(db))
    events = [
        e
        async for e in runner.run_async(user_id="u", session_id=session_id, new_message=answer)
        if e.author != "user"
    ]
    call_id = turns[0][0].get_function_calls()[0].id
    assert [(e.node_info.path if e.node_info else None, e.output) for e in events[:1]] == [
        (f"shop@1/buying@{call_id}/agree@1", "tea costs 12: yes")
    ]
    [response] = events[1].get_function_responses()
    assert (response.id, response.name, response.response) == (
        call_id,
        "buying",
        {"result": "tea costs 12: yes"},
    )
    assert events[-1].text == "Done."


async def test_a_plain_message_answers_the_question_of_a_node_called_as_a_tool() -> None:
    @node(rerun_on_resume=True)
    def buy(item: str, ctx: NodeContext):  # type: ignore[no-untyped-def]
        """Buys an item once the user agrees."""
        answer = ctx.resume_inputs.get("agree")
        if answer is None:
            yield RequestInput(interrupt_id="agree", message=f"Buy {item}?")
            return
        yield {"bought": item if answer == "yes" else None}

    shop = LlmAgent(
        name="shop",
        model=model([{"call": "buy", "args": {"item": "tea"}}, "Bought.", "Hello."]),
        tools=[buy],
    )
    service = InMemorySessionService()
    runner = Runner(app_name="app", agent=shop, session_service=service)
    session = await service.create_session(app_name="app", user_id="u")

    async def say(text: str) -> list[Any]:
        return [
            e
            async for e in runner.run_async(user_id="u", session_id=session.id, new_message=text)
            if e.author != "user"
        ]

    assert (await say("buy tea"))[-1].get_function_calls()[0].args["message"] == "Buy tea?"
    answered = await say("yes")
    assert [e.output for e in answered if e.output is not None] == [{"bought": "tea"}]
    assert answered[-1].text == "Bought."
    # Asked nothing now: the next message is an ordinary turn.
    assert [e.text for e in await say("hi")] == ["Hello."]


async def test_an_answered_node_tool_call_runs_the_callbacks_and_plugins_as_google_adk() -> None:
    """google-adk 2.13 reruns the whole call when the answer comes: plugins' and the agent's
    before callbacks again, then the after callbacks, whose answer replaces the response
    (observed with the node_as_tool_asks_callbacks scenario and a plugin)."""
    log: list[Any] = []

    class Watch(BasePlugin):
        async def before_tool_callback(
            self, *, tool: Any, tool_args: Any, tool_context: Any
        ) -> Any:
            log.append(("plugin before", tool.name, dict(tool_args)))

        async def after_tool_callback(
            self, *, tool: Any, tool_args: Any, tool_context: Any, result: Any
        ) -> Any:
            log.append(("plugin after", tool.name, result))

    agent = scenarios_dynamic.node_as_tool_asks_callbacks(KIT).agent
    service = InMemorySessionService()
    runner = Runner(app_name="app", agent=agent, session_service=service, plugins=[Watch(name="w")])
    session = await service.create_session(app_name="app", user_id="u")
    asked = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="buy tea")
    ]
    assert log == [("plugin before", "buy", {"item": "tea"})]
    [question] = [c for e in asked for c in e.get_function_calls() if c.name != "buy"]
    answer = Content(
        role="user",
        parts=[
            Part(
                function_response=FunctionResponse(
                    id=question.id, name=question.name, response={"result": "yes"}
                )
            )
        ],
    )
    events = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message=answer)
    ]
    assert log[1:] == [
        ("plugin before", "buy", {"item": "tea"}),
        ("plugin after", "buy", {"bought": "tea"}),
    ]
    responses = [
        r.response for e in events if e.author != "user" for r in e.get_function_responses()
    ]
    assert responses == [{"checked": True, "was": {"bought": "tea"}}]
    final = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    assert final is not None
    assert final.state == {"before_calls": 1, "after_calls": 1}
