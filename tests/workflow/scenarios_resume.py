"""Workflow scenarios about resuming after a question: what the nodes that completed before it
still count for (a join's inputs, run ids). Registered in scenarios.SCENARIOS when imported;
run in google-adk 2.13 by record_adk.py and in yadk by test_recorded.py."""

from __future__ import annotations

from typing import Any

from tests.workflow.scenarios import Scenario, scenario


def _asker(k: Any, interrupt_id: str = "ok") -> Any:
    @k.node(name="ask", rerun_on_resume=True)
    def ask(node_input: Any, ctx: Any) -> Any:
        answer = ctx.resume_inputs.get(interrupt_id)
        if answer is None:
            yield k.RequestInput(interrupt_id=interrupt_id, message="ok?")
            return
        # The workflow's own input (a message) as its text: each framework prints it its own way.
        asked = node_input.parts[0].text if hasattr(node_input, "parts") else node_input
        yield {"asked": asked, "answer": answer}

    return ask


@scenario
def join_after_resume(k: Any) -> Scenario:
    """The join's other input completed before the question: it fires after the answer."""

    def make(node_input: str) -> dict[str, Any]:
        return {"items": [1, 2], "meta": {"a": 1}}

    def other(node_input: str) -> dict[str, Any]:
        return {"x": [1]}

    def grow(node_input: dict[str, Any]) -> dict[str, Any]:
        node_input["grown"] = True
        return node_input

    def mutate_join(node_input: dict[str, Any]) -> dict[str, Any]:
        for value in node_input.values():
            if isinstance(value, dict):
                value["seen"] = True
        node_input["extra"] = 1
        return node_input

    ask = _asker(k)
    join = k.JoinNode(name="join")
    flow = k.Workflow(
        name="flow",
        edges=[
            (k.START, make, ask, grow, join, mutate_join),
            (k.START, other, join),
        ],
    )
    return Scenario(flow, messages=["go", "yes"])


@scenario
def join_inputs_before_question(k: Any) -> Scenario:
    """Both inputs complete before the question: the join fires before it, and not again."""

    def left(node_input: str) -> str:
        return "L"

    def right(node_input: str) -> str:
        return "R"

    def after(node_input: Any) -> str:
        return f"after {sorted(node_input['asked'])} {node_input['answer']}"

    ask = _asker(k)
    join = k.JoinNode(name="join")
    flow = k.Workflow(
        name="flow",
        edges=[(k.START, left, join), (k.START, right, join), (join, ask, after)],
    )
    return Scenario(flow, messages=["go", "yes"])


@scenario
def join_inputs_after_question(k: Any) -> Scenario:
    """Both inputs run after the answer."""

    def left(node_input: Any) -> str:
        return "L"

    def right(node_input: Any) -> str:
        return "R"

    ask = _asker(k)
    join = k.JoinNode(name="join")
    flow = k.Workflow(
        name="flow",
        edges=[(k.START, ask), (ask, left, join), (ask, right, join)],
    )
    return Scenario(flow, messages=["go", "yes"])


@scenario
def join_branch_running_at_question(k: Any) -> Scenario:
    """The question comes first; the other branch goes on running to the join after it."""

    def one(node_input: str) -> int:
        return 1

    def two(node_input: int) -> int:
        return node_input + 1

    def three(node_input: int) -> int:
        return node_input + 1

    def done(node_input: dict[str, Any]) -> str:
        return f"done {sorted(node_input)}"

    ask = _asker(k)
    join = k.JoinNode(name="join")
    flow = k.Workflow(
        name="flow",
        edges=[(k.START, ask, join), (k.START, one, two, three, join), (join, done)],
    )
    return Scenario(flow, messages=["go", "yes"])


@scenario
def loop_through_question(k: Any) -> Scenario:
    """A node that ran before the question runs again after it: its next run id follows."""

    def step(node_input: Any, ctx: Any) -> Any:
        count = ctx.state.get("count", 0) + 1
        return k.Event(output=count, state={"count": count}, route="ask" if count < 2 else "done")

    def finish(node_input: int) -> str:
        return f"finished {node_input}"

    ask = _asker(k)
    flow = k.Workflow(
        name="loop",
        edges=[(k.START, step), (step, {"ask": ask, "done": finish}), (ask, step)],
    )
    return Scenario(flow, messages=["go", "yes"])


@scenario
def join_after_resume_nested(k: Any) -> Scenario:
    """The join's other input is a nested workflow that completed before the question (its
    output is its terminal node's); its output went on to the node that asks too."""

    def first(node_input: Any) -> str:
        return "a"

    def second(node_input: str) -> str:
        return node_input + "b"

    def done(node_input: dict[str, Any]) -> str:
        return f"{node_input['inner']} {node_input['ask']['answer']}"

    inner = k.Workflow(name="inner", edges=[(k.START, first, second)])
    ask = _asker(k)
    join = k.JoinNode(name="join")
    flow = k.Workflow(
        name="flow",
        edges=[(k.START, inner, ask, join), (inner, join), (join, done)],
    )
    return Scenario(flow, messages=["go", "yes"])


@scenario
def join_after_resume_routed(k: Any) -> Scenario:
    """The join's other input routed to it before the question; its other route was not taken."""

    def pick(node_input: Any) -> Any:
        return k.Event(output="picked", route="join")

    def elsewhere(node_input: Any) -> str:
        return "never"

    def done(node_input: dict[str, Any]) -> str:
        return f"{node_input['pick']} {node_input['ask']['answer']}"

    ask = _asker(k)
    join = k.JoinNode(name="join")
    flow = k.Workflow(
        name="flow",
        edges=[
            (k.START, pick),
            (pick, {"join": join, "other": elsewhere}),
            (k.START, ask, join),
            (join, done),
        ],
    )
    return Scenario(flow, messages=["go", "yes"])


@scenario
def join_after_resume_no_output(k: Any) -> Scenario:
    """The join's other input completed before the question without an output."""

    def quiet(node_input: Any, ctx: Any) -> None:
        ctx.state["quiet_runs"] = ctx.state.get("quiet_runs", 0) + 1

    def done(node_input: dict[str, Any]) -> str:
        return f"{node_input['quiet']} {node_input['ask']['answer']}"

    ask = _asker(k)
    join = k.JoinNode(name="join")
    flow = k.Workflow(
        name="flow",
        edges=[(k.START, quiet, join), (k.START, ask, join), (join, done)],
    )
    return Scenario(flow, messages=["go", "yes"])


@scenario
def join_after_resume_no_event(k: Any) -> Scenario:
    """The join's other input completed before the question leaving no event at all."""
    runs: list[int] = []

    def silent(node_input: Any) -> None:
        runs.append(1)

    def done(node_input: dict[str, Any]) -> str:
        return f"{node_input['silent']} {node_input['ask']['answer']} silent ran {len(runs)}"

    ask = _asker(k)
    join = k.JoinNode(name="join")
    flow = k.Workflow(
        name="flow",
        edges=[(k.START, silent, join), (k.START, ask, join), (join, done)],
    )
    return Scenario(flow, messages=["go", "yes"])


@scenario
def join_after_resume_inside_nested(k: Any) -> Scenario:
    """The join and the question are inside a nested workflow; the outer node before it and the
    join's other input completed before the question."""

    def before(node_input: Any) -> str:
        return "b"

    def other(node_input: str) -> str:
        return node_input + "-other"

    def done(node_input: dict[str, Any]) -> str:
        return f"{node_input['other']} {node_input['ask']['answer']}"

    def outer_after(node_input: str) -> str:
        return f"outer: {node_input}"

    ask = _asker(k)
    join = k.JoinNode(name="join")
    inner = k.Workflow(
        name="inner",
        edges=[(k.START, other, join), (k.START, ask, join), (join, done)],
    )
    flow = k.Workflow(name="flow", edges=[(k.START, before, inner, outer_after)])
    return Scenario(flow, messages=["go", "yes"])
