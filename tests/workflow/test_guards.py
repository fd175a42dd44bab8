"""What guards a node beyond the recorded scenarios: confirmation answered in plain words,
answers checked against a question's schema, nodes bound to their input's keys, input and state
schemas, and the fields yadk refuses (auth_config) with a message that says what to do."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel
from tests.workflow.kit import run_turns, summarize

from yadk import LlmAgent
from yadk.events import Event
from yadk.models import ScriptedModel
from yadk.sessions import InMemorySessionService
from yadk.workflow import (
    START,
    BaseNode,
    FunctionNode,
    NodeContext,
    RequestInput,
    StateSchemaError,
    Workflow,
    WorkflowConfigurationError,
    node,
)


def rows(turns: list[list[Event]]) -> list[dict[str, Any]]:
    keep = ("state_delta", "path", "output", "error_code")
    return [
        {k: v for k, v in summarize(e).items() if k in keep and v not in (None, {})}
        for turn in turns
        for e in turn
    ]


def _deleting() -> Workflow:
    @node(require_confirmation=True)
    def delete(node_input: str) -> str:
        return "deleted " + node_input

    return Workflow(name="flow", edges=[(START, delete)])


@pytest.mark.parametrize(
    ("answer", "output"),
    [
        ("yes", "deleted a.txt"),
        ("Approve", "deleted a.txt"),
        ("no", {"error": "This tool call is rejected."}),
        ('{"confirmed": true}', "deleted a.txt"),
    ],
)
async def test_a_plain_message_answers_a_confirmation(answer: str, output: Any) -> None:
    # The second run_turns starts with no pending question, so it sends the answer as plain
    # text, as `yadk run` does.
    flow = _deleting()
    service = InMemorySessionService()
    turns, _, session_id = await run_turns(flow, ["a.txt"], session_service=service)
    assert turns[0][0].get_function_calls()[0].args["payload"] == {
        "tool_name": "delete",
        "args": {"node_input": "a.txt"},
    }
    again, _, _ = await run_turns(flow, [answer], session_service=service, session_id=session_id)
    assert rows(again)[-1]["output"] == output


async def test_an_answer_that_does_not_fit_the_questions_schema_is_an_error() -> None:
    def ask(node_input: str):  # type: ignore[no-untyped-def]
        yield RequestInput(message="How many?", response_schema=int)

    flow = Workflow(name="flow", edges=[(START, ask)])
    turns, _, _ = await run_turns(flow, ["go", "many"])
    error = turns[1][-1]
    assert error.error_code == "WorkflowDataError"
    assert error.node_info is not None and error.node_info.path == "flow@1"
    assert "does not fit the question's response_schema" in (error.error_message or "")


async def test_a_node_bound_to_its_input_takes_its_parameters_from_the_keys() -> None:
    def make(node_input: str) -> dict[str, Any]:
        return {"city": node_input, "days": "3", "extra": True}

    def forecast(city: str, days: int, **rest: Any) -> str:
        return f"{city} for {days} days {sorted(rest)}"

    def missing(city: str, when: str) -> str:
        return "never"

    flow = Workflow(
        name="flow",
        edges=[(START, make, node(forecast, parameter_binding="node_input"))],
    )
    turns, _, _ = await run_turns(flow, ["Oslo"])
    assert rows(turns)[-1]["output"] == "Oslo for 3 days ['extra']"

    broken = Workflow(
        name="flow", edges=[(START, make, node(missing, parameter_binding="node_input"))]
    )
    turns, _, _ = await run_turns(broken, ["Oslo"])
    error = turns[0][-1]
    assert error.error_code == "WorkflowDataError"
    assert error.error_message == (
        'Missing value for parameter "when" of function "missing". It was not found in'
        " node_input and has no default value."
    )


class Point(BaseModel):
    x: int
    y: int = 0


class Doubler(BaseNode):
    async def _run_impl(self, *, ctx: NodeContext, node_input: Any):  # type: ignore[no-untyped-def,override]
        yield {"x": node_input["x"] * 2, "seen": type(node_input).__name__}


async def test_a_nodes_input_schema_coerces_its_input_and_refuses_what_does_not_fit() -> None:
    def good(node_input: str) -> dict[str, Any]:
        return {"x": "4"}

    def bad(node_input: str) -> dict[str, Any]:
        return {"y": 1}

    flow = Workflow(name="flow", edges=[(START, good, Doubler(name="dbl", input_schema=Point))])
    turns, _, _ = await run_turns(flow, ["go"])
    assert rows(turns)[-1]["output"] == {"x": 8, "seen": "dict"}

    broken = Workflow(name="flow", edges=[(START, bad, Doubler(name="dbl", input_schema=Point))])
    turns, _, _ = await run_turns(broken, ["go"])
    assert [(r["path"], r.get("error_code")) for r in rows(turns)][-1] == (
        "flow@1",
        "ValidationError",
    )


class Counter(BaseModel):
    count: int = 0


class Label(BaseModel):
    label: str = ""


async def test_a_nested_workflow_inherits_the_state_schema_and_a_node_may_declare_its_own() -> None:
    def inner_write(node_input: Any, ctx: NodeContext) -> str:
        ctx.state["count"] = "not a number"
        return "never"

    inner = Workflow(name="inner", edges=[(START, inner_write)])
    outer = Workflow(name="outer", edges=[(START, inner)], state_schema=Counter)
    turns, state, _ = await run_turns(outer, ["go"])
    error = turns[0][-1]
    assert error.error_code == "StateSchemaError"
    assert error.node_info is not None
    assert error.node_info.path == "outer@1/inner@1/inner_write@1"
    assert "count" not in state

    def labelled(node_input: Any, ctx: NodeContext) -> str:
        ctx.state["label"] = "fine"
        return "ok"

    own = Workflow(
        name="outer",
        edges=[(START, node(FunctionNode(func=labelled, state_schema=Label)))],
        state_schema=Counter,
    )
    turns, state, _ = await run_turns(own, ["go"])
    assert state == {"label": "fine"}


def test_a_state_parameter_outside_the_schema_is_refused_when_the_workflow_is_built() -> None:
    def uses(node_input: Any, colour: str) -> Any:
        return node_input

    with pytest.raises(StateSchemaError, match="parameter 'colour' is not declared"):
        Workflow(name="flow", edges=[(START, uses)], state_schema=Counter)


def test_auth_config_is_refused_with_what_to_do_instead() -> None:
    with pytest.raises(WorkflowConfigurationError) as raised:

        @node(auth_config={"auth_scheme": "apiKey"}, rerun_on_resume=True)
        def fetch() -> str:
            return "x"

    assert str(raised.value) == (
        "Node 'fetch' has an auth_config: yadk workflows do not run google-adk's credential"
        " request before a node (adk_request_credential). Remove auth_config and read the"
        " credential inside the node (from state, a secret or an environment variable), or"
        " ask for it with RequestInput."
    )


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (
            lambda: node(lambda node_input: 1, require_confirmation=True, rerun_on_resume=False),
            "FunctionNode with require_confirmation requires rerun_on_resume=True. The node"
            " must rerun after confirmation is provided.",
        ),
        (
            lambda: node(
                LlmAgent(name="a", model=ScriptedModel(turns=[])), require_confirmation=True
            ),
            "require_confirmation is only supported on FunctionNode, got LlmAgent.",
        ),
    ],
)
def test_confirmation_where_it_cannot_work_is_refused(build: Any, message: str) -> None:
    with pytest.raises(WorkflowConfigurationError) as raised:
        build()
    assert str(raised.value) == message
