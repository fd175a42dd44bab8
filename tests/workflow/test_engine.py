"""The workflow engine beyond the recorded scenarios: retries and their back-off, timeouts,
concurrency and its bound, failures, agents and tools as nodes, nodes scheduled at run time."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from tests.workflow.kit import run_turns, summarize

from yadk import LlmAgent, SequentialAgent
from yadk.agents import RunConfig
from yadk.events import Event
from yadk.models import ScriptedModel
from yadk.runner import Runner
from yadk.serve._wire import event_json
from yadk.sessions import InMemorySessionService, SqliteSessionService
from yadk.tools import AgentTool
from yadk.types import Content, FunctionCall, Part
from yadk.workflow import (
    DEFAULT_ROUTE,
    START,
    BaseNode,
    FunctionNode,
    JoinNode,
    NodeContext,
    NodeTimeoutError,
    RequestInput,
    RetryConfig,
    Workflow,
    node,
)


def rows(turns: list[list[Event]]) -> list[dict[str, Any]]:
    keep = ("author", "text", "state_delta", "path", "route", "output", "error_code")
    return [
        {k: v for k, v in summarize(e).items() if k in keep and v not in (None, {})}
        for turn in turns
        for e in turn
    ]


class FakeSleep:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


async def test_retries_back_off_through_the_injected_sleep() -> None:
    def flaky(node_input: str, ctx: NodeContext) -> str:
        if ctx.attempt_count < 4:
            raise ConnectionError(f"attempt {ctx.attempt_count}")
        return "ok"

    sleep = FakeSleep()
    config = RetryConfig(max_attempts=4, initial_delay=0.5, backoff_factor=3.0, jitter=0.0)
    flow = Workflow(
        name="flow", edges=[(START, node(flaky, retry_config=config))], retry_sleep=sleep
    )
    turns, _, _ = await run_turns(flow, ["go"])
    assert sleep.delays == [0.5, 1.5, 4.5]
    assert [r.get("error_code") for r in rows(turns)] == [
        "ConnectionError",
        "ConnectionError",
        "ConnectionError",
        None,
    ]


async def test_retry_delay_is_capped_and_jitter_stays_within_max_delay() -> None:
    config = RetryConfig(initial_delay=10.0, max_delay=15.0, backoff_factor=2.0, jitter=0.0)
    assert [config.delay(n) for n in (1, 2, 3)] == [10.0, 15.0, 15.0]
    jittered = RetryConfig(initial_delay=10.0, max_delay=15.0, jitter=1.0)
    assert all(0.0 <= jittered.delay(n) <= 15.0 for n in range(1, 50))


async def test_retries_only_the_exceptions_named_and_gives_up_with_one_error_event() -> None:
    calls: list[int] = []

    def picky(node_input: str, ctx: NodeContext) -> str:
        calls.append(ctx.attempt_count)
        raise KeyError("missing")

    sleep = FakeSleep()
    config = RetryConfig(max_attempts=3, exceptions=["ValueError"], jitter=0.0)
    flow = Workflow(
        name="flow", edges=[(START, node(picky, retry_config=config))], retry_sleep=sleep
    )
    turns, _, _ = await run_turns(flow, ["go"])
    assert calls == [1]
    assert rows(turns) == [{"author": "flow", "path": "flow@1/picky@1", "error_code": "KeyError"}]
    assert turns[0][0].error_message == "'missing'"


async def test_a_node_past_its_timeout_fails_with_node_timeout_error() -> None:
    never = asyncio.Event()

    async def stuck(node_input: str) -> str:
        await never.wait()
        return "never"

    flow = Workflow(name="flow", edges=[(START, node(stuck, timeout=0.01))])
    turns, _, _ = await run_turns(flow, ["go"])
    [event] = turns[0]
    assert (event.error_code, event.error_message) == (
        "NodeTimeoutError",
        "Node 'stuck' timed out after 0.01 seconds.",
    )
    assert issubclass(NodeTimeoutError, Exception)


async def test_a_timed_out_node_is_retried() -> None:
    never = asyncio.Event()

    async def slow_first(node_input: str, ctx: NodeContext) -> str:
        if ctx.attempt_count == 1:
            await never.wait()
        return f"attempt {ctx.attempt_count}"

    config = RetryConfig(max_attempts=2, initial_delay=0.0, jitter=0.0)
    flow = Workflow(
        name="flow",
        edges=[(START, node(slow_first, timeout=0.01, retry_config=config))],
        retry_sleep=FakeSleep(),
    )
    turns, _, _ = await run_turns(flow, ["go"])
    assert [r.get("error_code") or r.get("output") for r in rows(turns)] == [
        "NodeTimeoutError",
        "attempt 2",
    ]


async def test_fan_out_branches_run_at_the_same_time() -> None:
    started: list[str] = []
    all_started = asyncio.Event()

    def branch(label: str) -> Any:
        async def run(node_input: str) -> str:
            started.append(label)
            if len(started) == 3:
                all_started.set()
            await all_started.wait()  # deadlocks unless the three run concurrently
            return label

        return node(run, name=label)

    join = JoinNode(name="join")
    flow = Workflow(name="flow", edges=[(START, (branch("a"), branch("b"), branch("c")), join)])
    turns, _, _ = await run_turns(flow, ["go"])
    assert rows(turns)[-1]["output"] == {"a": "a", "b": "b", "c": "c"}
    assert started == ["a", "b", "c"]


async def test_max_concurrency_bounds_the_nodes_running_at_once() -> None:
    running = 0
    peak = 0

    def branch(label: str) -> Any:
        async def run(node_input: str) -> str:
            nonlocal running, peak
            running += 1
            peak = max(peak, running)
            await asyncio.sleep(0)  # yield so that any other started node runs alongside
            running -= 1
            return label

        return node(run, name=label)

    branches = tuple(branch(f"n{i}") for i in range(6))
    flow = Workflow(
        name="flow", edges=[(START, branches, JoinNode(name="join"))], max_concurrency=2
    )
    turns, _, _ = await run_turns(flow, ["go"])
    assert peak == 2
    assert rows(turns)[-1]["output"] == {f"n{i}": f"n{i}" for i in range(6)}


async def test_an_exception_ends_the_invocation_with_one_error_event_and_cancels_branches() -> None:
    never = asyncio.Event()
    cancelled = asyncio.Event()

    async def waits(node_input: str) -> str:
        try:
            await never.wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    def fails(node_input: str) -> str:
        raise RuntimeError("broken")

    flow = Workflow(name="flow", edges=[(START, (waits, fails))])
    turns, _, _ = await run_turns(flow, ["go"])
    assert rows(turns) == [
        {"author": "flow", "path": "flow@1/fails@1", "error_code": "RuntimeError"}
    ]
    assert cancelled.is_set()


async def test_raise_errors_raises_the_node_exception_after_its_error_event() -> None:
    def fails(node_input: str) -> str:
        raise RuntimeError("broken")

    flow = Workflow(name="flow", edges=[(START, fails)])
    service = InMemorySessionService()
    session = await service.create_session(app_name="app", user_id="u")
    runner = Runner(app_name="app", agent=flow, session_service=service)
    seen: list[Event] = []
    with pytest.raises(RuntimeError, match="broken"):
        async for event in runner.run_async(
            user_id="u",
            session_id=session.id,
            new_message="go",
            run_config=RunConfig(raise_errors=True),
        ):
            seen.append(event)
    assert [e.error_code for e in seen] == [None, "RuntimeError"]


async def test_an_agent_after_a_function_node_answers_that_nodes_output() -> None:
    model = ScriptedModel(turns=[{"text": "Paris"}])
    agent = LlmAgent(name="geo", model=model, instruction="Answer.")

    def ask(node_input: str) -> str:
        return "Capital of France?"

    flow = Workflow(name="flow", edges=[(START, ask, agent)])
    turns, _, _ = await run_turns(flow, ["go"])
    assert rows(turns) == [
        {"author": "flow", "path": "flow@1/ask@1", "output": "Capital of France?"},
        {"author": "geo", "text": "Paris", "path": "flow@1/geo@1"},
    ]
    assert model.requests[0].contents[-1].parts[0].text == "Capital of France?"
    assert turns[0][1].node_info is not None
    assert turns[0][1].node_info.message_as_output is True


async def test_an_agent_tool_is_a_node_whose_output_is_the_agents_answer() -> None:
    helper = LlmAgent(
        name="helper", model=ScriptedModel(turns=[{"text": "42"}]), instruction="Answer."
    )

    def show(node_input: Any) -> str:
        return f"got {node_input}"

    flow = Workflow(name="flow", edges=[(START, AgentTool(helper), show)])
    turns, _, _ = await run_turns(flow, ["what is it?"])
    assert rows(turns)[-1]["output"] == "got 42"


async def test_nodes_scheduled_at_run_time_get_paths_under_their_parent() -> None:
    def square(node_input: int) -> int:
        return node_input * node_input

    async def fan(node_input: str, ctx: NodeContext) -> int:
        results = await asyncio.gather(*(ctx.run_node(square, n) for n in (2, 3, 4)))
        return sum(results)

    flow = Workflow(name="flow", edges=[(START, fan)])
    turns, _, _ = await run_turns(flow, ["go"])
    assert [(r["path"], r["output"]) for r in rows(turns)] == [
        ("flow@1/fan@1/square@1", 4),
        ("flow@1/fan@1/square@2", 9),
        ("flow@1/fan@1/square@3", 16),
        ("flow@1/fan@1", 29),
    ]


async def test_run_node_options_set_the_child_runs_id_branch_and_output() -> None:
    def shout(node_input: str) -> str:
        return node_input.upper()

    writer = LlmAgent(
        name="writer",
        model=ScriptedModel([{"text": "Aside."}, {"text": "Main."}]),
        instruction="Write.",
    )

    async def named(node_input: str, ctx: NodeContext) -> str:
        first = await ctx.run_node(shout, "go", run_id="first")
        aside = await ctx.run_node(writer, "aside", use_sub_branch=True)
        elsewhere = await ctx.run_node(shout, "x", override_branch="side")
        return f"{first}/{aside}/{elsewhere}"

    async def delegate(node_input: str, ctx: NodeContext) -> Any:
        await ctx.run_node(writer, node_input, use_as_output=True)
        # As in google-adk: what it returns is passed on, but no event of its own is sent.
        return "passed on, not sent"

    flow = Workflow(name="flow", edges=[(START, named, delegate)])
    turns, _, _ = await run_turns(flow, ["go"])
    got = [
        (summarize(e)["path"], e.branch, e.output, summarize(e)["output_for"])
        for e in turns[0]
        if e.author != "user"
    ]
    assert got == [
        ("flow@1/named@1/shout@first", None, "GO", ["flow@1/named@1/shout@first"]),
        ("flow@1/named@1/writer@1", "writer@1", None, ["flow@1/named@1/writer@1"]),
        ("flow@1/named@1/shout@1", "side", "X", ["flow@1/named@1/shout@1"]),
        ("flow@1/named@1", None, "GO/Aside./X", ["flow@1/named@1"]),
        (
            "flow@1/delegate@1/writer@1",
            None,
            None,
            ["flow@1/delegate@1/writer@1", "flow@1/delegate@1", "flow@1"],
        ),
    ]


async def test_raise_on_wait_ends_the_node_even_through_except_exception() -> None:
    def quiet(node_input: Any) -> None:
        return None

    silent = Workflow(name="silent", edges=[(START, quiet)])
    patient = FunctionNode(func=quiet, name="patient", wait_for_output=True)

    async def careless(node_input: str, ctx: NodeContext) -> str:
        try:
            await ctx.run_node(silent, node_input, raise_on_wait=True)
        except Exception:  # NodeInterruptedError is a BaseException: not caught here
            return "caught"
        return "went on"

    async def waits(node_input: Any, ctx: NodeContext) -> str:
        await ctx.run_node(patient, node_input, raise_on_wait=True)
        return "went on"

    async def done(node_input: Any) -> str:
        return f"done after {node_input}"

    flow = Workflow(name="flow", edges=[(START, careless, waits, done)])
    turns, _, _ = await run_turns(flow, ["go"])
    assert [(r["path"], r.get("output")) for r in rows(turns)] == [
        ("flow@1/done@1", "done after None"),
    ]


async def test_an_agent_under_an_isolation_scope_sees_its_task_and_that_scope_only(
    tmp_path: Path,
) -> None:
    seen: list[list[str]] = []

    def remember(callback_context: Any, llm_request: Any) -> None:
        seen.append(
            [f"{c.role}: {' | '.join(p.text or '' for p in c.parts)}" for c in llm_request.contents]
        )

    writer = LlmAgent(
        name="writer",
        model=ScriptedModel([{"text": "One."}, {"text": "Two."}]),
        instruction="Write.",
        before_model_callback=remember,
    )

    async def scoped(node_input: Any, ctx: NodeContext) -> str:
        await ctx.run_node(writer, "alpha", override_isolation_scope="s1")
        await ctx.run_node(writer, "gamma")
        return "done"

    flow = Workflow(name="flow", edges=[(START, scoped)])
    service = SqliteSessionService(str(tmp_path / "sessions.db"))
    turns, _, session_id = await run_turns(flow, ["hi"], session_service=service)
    writer.model = ScriptedModel([{"text": "Three."}, {"text": "Four."}])
    # The second turn reads the first one's events back from the database, scopes included.
    await run_turns(flow, ["again"], session_service=service, session_id=session_id)
    # google-adk's words for an agent that answers once (its single_turn mode, the default for
    # an agent node): each run sees its input, under a scope after the scope's task.
    nudge = (
        "Important: You will not receive any user replies or clarifications."
        " Complete the task using only the information provided above."
    )
    assert seen == [
        [f"user: hi | {nudge}", "user: alpha"],
        ["user: gamma"],
        [f"user: again | {nudge}", "user: alpha"],
        ["user: gamma"],
    ]
    assert [(summarize(e)["path"], e.isolation_scope) for e in turns[0]] == [
        ("flow@1/scoped@1/writer@1", "s1"),
        ("flow@1/scoped@1/writer@2", None),
        ("flow@1/scoped@1", None),
    ]
    stored = await SqliteSessionService(str(tmp_path / "sessions.db")).get_session(
        app_name="app", user_id="u", session_id=session_id
    )
    assert stored is not None
    scoped_events = [e for e in stored.events if e.isolation_scope == "s1"]
    # A single-turn agent's input is its request's, not the session's (as in google-adk).
    assert [e.text for e in scoped_events] == ["One.", "Three."]
    assert event_json(scoped_events[0])["isolationScope"] == "s1"
    assert "isolationScope" not in event_json(stored.events[0])


async def test_an_agent_scoped_by_a_calls_id_opens_with_the_calls_arguments() -> None:
    seen: list[str] = []

    def remember(callback_context: Any, llm_request: Any) -> None:
        seen.extend(" | ".join(p.text or "" for p in c.parts) for c in llm_request.contents)

    writer = LlmAgent(
        name="writer",
        model=ScriptedModel([{"text": "Tides rise."}]),
        instruction="Write.",
        before_model_callback=remember,
    )

    async def delegate(node_input: str, ctx: NodeContext):  # type: ignore[no-untyped-def]
        call = FunctionCall(id="call-7", name="write_about", args={"topic": "tides"})
        yield Event(content=Content(role="model", parts=[Part(function_call=call)]))
        yield await ctx.run_node(writer, "ignored", override_isolation_scope="call-7")

    turns, _, _ = await run_turns(Workflow(name="flow", edges=[(START, delegate)]), ["go"])
    assert rows(turns)[-1]["output"] == "Tides rise."
    assert seen[0] == (
        '{"topic": "tides"} | Important: You will not receive any user replies or'
        " clarifications. Complete the task using only the information provided above."
    )


async def test_the_answer_to_a_question_asked_in_a_scope_is_in_that_scope() -> None:
    @node(rerun_on_resume=True)
    def ask(node_input: str, ctx: NodeContext):  # type: ignore[no-untyped-def]
        answer = ctx.resume_inputs.get("ok")
        if answer is None:
            yield RequestInput(interrupt_id="ok", message="Sure?")
            return
        yield Event(output=f"{node_input}: {answer}")

    async def scoped(node_input: str, ctx: NodeContext) -> Any:
        return await ctx.run_node(ask, "x", override_isolation_scope="s1")

    service = InMemorySessionService()
    flow = Workflow(name="flow", edges=[(START, scoped)])
    turns, _, session_id = await run_turns(flow, ["go", "yes"], session_service=service)
    assert rows(turns)[-1]["output"] == "x: yes"
    stored = await service.get_session(app_name="app", user_id="u", session_id=session_id)
    assert stored is not None
    asked = [e for e in stored.events if e.get_function_calls()]
    answered = [e for e in stored.events if e.get_function_responses()]
    assert [(e.author, e.isolation_scope) for e in asked + answered] == [
        ("flow", "s1"),
        ("user", "s1"),
    ]
    plain = [e for e in stored.events if e.author == "user" and not e.get_function_responses()]
    assert [e.isolation_scope for e in plain] == [None]


async def test_state_parameters_bind_by_name_with_defaults_and_a_missing_one_fails() -> None:
    def uses(node_input: str, city: str, units: str = "metric") -> str:
        return f"{city}/{units}"

    flow = Workflow(name="flow", edges=[(START, uses)])
    turns, _, _ = await run_turns(flow, ["go"], state={"city": "Oslo"})
    assert rows(turns)[-1]["output"] == "Oslo/metric"
    turns, _, _ = await run_turns(flow, ["go"])
    # google-adk 2.13's error, word for word.
    assert (turns[0][0].error_code, turns[0][0].error_message, summarize(turns[0][0])["path"]) == (
        "WorkflowDataError",
        'Missing value for parameter "city" of function "uses". It was not found in state and'
        " has no default value.",
        "flow@1/uses@1",
    )


async def test_wait_for_output_keeps_a_node_waiting_until_it_outputs() -> None:
    def first(node_input: str) -> str:
        return "a"

    def second(node_input: str) -> str:
        return "b"

    class Collect(BaseNode):
        wait_for_output: bool = True

        async def _run_impl(self, *, ctx: NodeContext, node_input: Any) -> Any:
            seen = [*list(ctx.state.get("seen", [])), node_input]
            ctx.state["seen"] = seen
            if len(seen) == 2:
                yield seen

    collect = Collect(name="collect")

    def after(node_input: list[str]) -> str:
        return "+".join(node_input)

    flow = Workflow(name="flow", edges=[(START, (first, second), collect, after)])
    turns, _state, _ = await run_turns(flow, ["go"])
    assert rows(turns)[-1]["output"] == "a+b"
    assert [r["path"] for r in rows(turns) if r["path"].startswith("flow@1/collect")] == [
        "flow@1/collect@1",
        "flow@1/collect@2",
    ]


async def test_a_loop_of_a_thousand_iterations_runs_to_its_end() -> None:
    def step(node_input: Any, ctx: NodeContext) -> Event:
        n = 0 if not isinstance(node_input, int) else node_input
        return Event(output=n + 1, route="again" if n + 1 < 1000 else "done")

    def end(node_input: int) -> str:
        return f"{node_input}"

    flow = Workflow(name="flow", edges=[(START, step), (step, {"again": step, "done": end})])
    turns, _, _ = await run_turns(flow, ["go"])
    assert rows(turns)[-1] == {"author": "flow", "path": "flow@1/end@1", "output": "1000"}
    assert rows(turns)[-2]["path"] == "flow@1/step@1000"


def test_base_node_has_google_adks_fields() -> None:
    assert list(BaseNode.model_fields) == [
        "name",
        "description",
        "input_schema",
        "output_schema",
        "state_schema",
        "retry_config",
        "timeout",
        "wait_for_output",
        "rerun_on_resume",
        "parallel_worker",
        "max_parallel_workers",
        "max_concurrency",
    ]


def test_node_decorator_forms() -> None:
    @node
    def plain(node_input: str) -> str:
        return node_input

    @node(name="renamed", rerun_on_resume=True)
    def other(node_input: str) -> str:
        return node_input

    assert isinstance(plain, FunctionNode) and plain.name == "plain"
    assert (other.name, other.rerun_on_resume) == ("renamed", True)
    assert node(plain, name="copy").name == "copy" and plain.name == "plain"


def test_the_same_node_in_several_edges_is_one_node() -> None:
    def a(node_input: str) -> str:
        return node_input

    def b(node_input: str) -> str:
        return node_input

    flow = Workflow(name="flow", edges=[(START, a), (a, b), [b]])
    assert flow.graph is not None
    assert [n.name for n in flow.graph.nodes] == ["__START__", "a", "b"]


def test_default_route_and_dict_edges() -> None:
    def a(node_input: str) -> Event:
        return Event(output=node_input, route="x")

    def b(node_input: str) -> str:
        return node_input

    def c(node_input: str) -> str:
        return node_input

    fa, fb, fc = node(a), node(b), node(c)
    flow = Workflow(
        name="flow",
        edges=[
            {"from_node": START, "to_node": fa},
            {"from_node": fa, "to_node": fb, "route": ["x", "y"]},
            {"from_node": fa, "to_node": fc, "route": DEFAULT_ROUTE},
        ],
    )
    assert flow.graph is not None
    assert flow.graph.next_nodes("a", "x") == ["b"]
    assert flow.graph.next_nodes("a", "z") == ["c"]
    assert flow.graph.next_nodes("a", ["y", "z"]) == ["b"]


async def test_a_legacy_workflow_agent_is_a_node_whose_output_is_its_last_answer() -> None:
    model = ScriptedModel(turns=[{"text": "first"}, {"text": "second"}])
    pipeline = SequentialAgent(
        name="pipeline",
        sub_agents=[
            LlmAgent(name="one", model=model, instruction="One."),
            LlmAgent(name="two", model=model, instruction="Two."),
        ],
    )

    def after(node_input: str) -> str:
        return "after " + node_input

    flow = Workflow(name="flow", edges=[(START, pipeline, after)])
    turns, _, _ = await run_turns(flow, ["go"])
    assert [(r["author"], r.get("text") or r.get("output")) for r in rows(turns)] == [
        ("one", "first"),
        ("two", "second"),
        ("flow", "after second"),
    ]


async def test_a_nested_workflow_in_a_sequential_agent_runs_as_an_agent() -> None:
    def double(node_input: str) -> str:
        return node_input * 2

    inner = Workflow(name="inner", edges=[(START, double)])
    outer = SequentialAgent(name="outer", sub_agents=[inner])
    turns, _, _ = await run_turns(outer, ["ab"])
    assert rows(turns) == [{"author": "inner", "path": "inner@1/double@1", "output": "abab"}]


async def test_a_node_subclass_runs_once_per_item_as_a_parallel_worker() -> None:
    from yadk.workflow import Node

    class Square(Node):
        async def run_node_impl(self, *, ctx: NodeContext, node_input: Any) -> Any:
            yield node_input * node_input

    def items(node_input: str) -> list[int]:
        return [1, 2, 3]

    flow = Workflow(
        name="flow", edges=[(START, items, Square(name="square", parallel_worker=True))]
    )
    turns, _, _ = await run_turns(flow, ["go"])
    assert [(r["path"], r["output"]) for r in rows(turns)][-1] == ("flow@1/square@1", [1, 4, 9])
