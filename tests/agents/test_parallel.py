"""ParallelAgent: branches, their isolation, event order, shared state, speed, early stops.

Branch names and what each branch's model receives were captured from google-adk 2.13.0 with
the same tree (google-adk interleaves events by arrival; yadk orders them by sub-agent, and the
latencies here make both orders agree).
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from _multi_agent import (
    Conversation,
    authors,
    call,
    called,
    contents,
    context,
    requests_of,
    returned,
    said,
    say,
    user,
)
from tests.manual_clock import until

from yadk import LlmAgent, LoopAgent, ParallelAgent, SequentialAgent
from yadk.agents import CallbackContext, RunConfig
from yadk.errors import CallbackError
from yadk.models import BaseLlm, LlmRequest, LlmResponse, ScriptedModel
from yadk.sessions import BaseSessionService, InMemorySessionService, SqliteSessionService
from yadk.tools import ToolContext, exit_loop
from yadk.types import Content, Part


def note(text: str, tool_context: ToolContext) -> str:
    """Notes."""
    tool_context.state["note_" + tool_context.agent_name] = text
    return "noted"


def call_and_result(who: str, tool: str, args: dict[str, Any], result: str) -> list[dict[str, Any]]:
    return [
        {"role": "model", "parts": [{"function_call": {"name": tool, "args": args}}]},
        {
            "role": "user",
            "parts": [{"function_response": {"name": tool, "response": {"result": result}}}],
        },
    ]


async def test_nested_fan_out_matches_adk() -> None:
    scripted = ScriptedModel(
        [
            call("p1", "note", text="one"),
            say("p1", "p1 done"),
            say("p2", "p2 done", delay=0.1),
            say("q1", "q1 done"),
            call("q2", "note", text="two"),
            say("q2", "q2 done"),
            say("after", "merged"),
        ]
    )
    p1 = LlmAgent(name="p1", instruction="P1.", model=scripted, tools=[note], output_key="o1")
    p2 = LlmAgent(name="p2", instruction="P2.", model=scripted, output_key="o2")
    q1 = LlmAgent(name="q1", instruction="Q1.", model=scripted)
    q2 = LlmAgent(name="q2", instruction="Q2 sees {o1?}.", model=scripted, tools=[note])
    inner = ParallelAgent(name="inner", sub_agents=[q1, q2])
    fan = ParallelAgent(
        name="fan", sub_agents=[p1, SequentialAgent(name="seq", sub_agents=[p2, inner])]
    )
    after = LlmAgent(name="after", instruction="Merge {o1} {o2}.", model=scripted)
    chat = Conversation(
        SequentialAgent(name="pipeline", sub_agents=[fan, after]), state={"topic": "cats"}
    )
    events = await chat.send("go")

    assert authors(events) == [
        ("p1", "fan.p1", "note(text='one')"),
        ("p1", "fan.p1", "note->{'result': 'noted'}"),
        ("p1", "fan.p1", "p1 done"),
        ("p2", "fan.seq", "p2 done"),
        ("q1", "fan.seq.inner.q1", "q1 done"),
        ("q2", "fan.seq.inner.q2", "note(text='two')"),
        ("q2", "fan.seq.inner.q2", "note->{'result': 'noted'}"),
        ("q2", "fan.seq.inner.q2", "q2 done"),
        ("after", None, "merged"),
    ]
    p1_second = requests_of(scripted, "p1")[1]
    assert contents(p1_second) == [
        user("go"),
        *call_and_result("p1", "note", {"text": "one"}, "noted"),
    ]
    (q1_request,) = requests_of(scripted, "q1")
    assert contents(q1_request) == [user("go"), context(said("p2", "p2 done"))]
    q2_first, q2_second = requests_of(scripted, "q2")
    # State is shared: q2 reads what p1, on another branch, wrote.
    assert (
        q2_first.system_instruction
        == 'Q2 sees p1 done.\n\nYou are an agent. Your internal name is "q2".'
    )
    assert contents(q2_second) == [
        user("go"),
        context(said("p2", "p2 done")),
        *call_and_result("q2", "note", {"text": "two"}, "noted"),
    ]
    (after_request,) = requests_of(scripted, "after")
    assert after_request.system_instruction.startswith("Merge p1 done p2 done.\n\n")
    assert contents(after_request) == [
        user("go"),
        context(called("p1", "note", "{'text': 'one'}")),
        context(returned("p1", "note", "{'result': 'noted'}")),
        context(said("p1", "p1 done")),
        context(said("p2", "p2 done")),
        context(said("q1", "q1 done")),
        context(called("q2", "note", "{'text': 'two'}")),
        context(returned("q2", "note", "{'result': 'noted'}")),
        context(said("q2", "q2 done")),
    ]
    assert (await chat.stored()).state == {
        "topic": "cats",
        "note_p1": "one",
        "o1": "p1 done",
        "o2": "p2 done",
        "note_q2": "two",
    }


def fan_out(
    turns: list[dict[str, Any]], names: list[str], **agent: Any
) -> tuple[ParallelAgent, ScriptedModel]:
    scripted = ScriptedModel(turns)
    subs = [LlmAgent(name=n, model=scripted, **agent) for n in names]
    return ParallelAgent(name="par", sub_agents=subs), scripted


class Gates:
    """Model calls that answer ``<agent> done`` only once the test opens that agent's gate:
    ``started`` lists the calls in flight, ``cancelled`` the calls cancelled while waiting."""

    def __init__(self) -> None:
        self.open: defaultdict[str, asyncio.Event] = defaultdict(asyncio.Event)
        self.started: list[str] = []
        self.cancelled: list[str] = []

    def agent(self, name: str) -> LlmAgent:
        return LlmAgent(name=name, model=GatedModel(name, self))


class GatedModel(BaseLlm):
    model = "gated"

    def __init__(self, name: str, gates: Gates) -> None:
        self.name = name
        self.gates = gates

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        self.gates.started.append(self.name)
        try:
            await self.gates.open[self.name].wait()
        except asyncio.CancelledError:
            self.gates.cancelled.append(self.name)
            raise
        yield LlmResponse(content=Content(role="model", parts=[Part(text=f"{self.name} done")]))


# Bounds a test that would otherwise hang on a gate never opened; no test depends on its length.
HANG = 60


async def test_events_come_in_sub_agent_order_whatever_order_the_answers_come_in() -> None:
    names = ["s0", "s1", "s2", "s3"]
    gates = Gates()
    par = ParallelAgent(name="par", sub_agents=[gates.agent(n) for n in names])
    sending = asyncio.ensure_future(Conversation(par).send("go"))
    await until(lambda: len(gates.started) == len(names))  # all four calls in flight at once
    for name in reversed(names):  # the last branch answers first
        gates.open[name].set()
        await asyncio.sleep(0)
    events = await asyncio.wait_for(sending, HANG)
    assert authors(events) == [(n, f"par.{n}", f"{n} done") for n in names]


async def test_eight_branches_wait_on_their_models_at_once() -> None:
    names = [f"s{i}" for i in range(8)]
    gates = Gates()
    par = ParallelAgent(name="par", sub_agents=[gates.agent(n) for n in names])
    sending = asyncio.ensure_future(Conversation(par).send("go"))
    await until(lambda: len(gates.started) == len(names))  # not one after another
    for name in names:
        gates.open[name].set()
    events = await asyncio.wait_for(sending, HANG)
    assert [e.author for e in events] == names


async def test_branches_run_tool_loops_without_seeing_each_other() -> None:
    names = ["a", "b"]
    par, scripted = fan_out(
        [
            call("a", "note", text="from a"),
            call("b", "note", text="from b"),
            say("a", "a done", delay=0.05),
            say("b", "b done"),
        ],
        names,
        tools=[note],
    )
    events = await Conversation(par).send("go")
    assert [(a, b) for a, b, _ in authors(events)] == [("a", "par.a")] * 3 + [("b", "par.b")] * 3
    for name in names:
        assert contents(requests_of(scripted, name)[1]) == [
            user("go"),
            *call_and_result(name, "note", {"text": f"from {name}"}, "noted"),
        ]


@pytest.mark.parametrize("service_kind", ["memory", "sqlite"])
async def test_concurrent_state_writes_are_all_persisted(service_kind: str, tmp_path: Path) -> None:
    def write(value: int, tool_context: ToolContext) -> str:
        """Writes."""
        tool_context.state[f"key_{tool_context.agent_name}"] = value
        tool_context.state["shared"] = tool_context.agent_name
        return "ok"

    names = [f"w{i}" for i in range(6)]
    # Later sub-agents write first: the persisted "shared" is still the last sub-agent's.
    turns = [call(n, "write", value=i, delay=0.01 * (6 - i)) for i, n in enumerate(names)]
    turns += [say(n, "done") for n in names]
    par, _ = fan_out(turns, names, tools=[write])
    service: BaseSessionService = (
        InMemorySessionService()
        if service_kind == "memory"
        else SqliteSessionService(tmp_path / "sessions.db")
    )
    chat = Conversation(par, session_service=service)
    await chat.send("go")
    expected = {f"key_{n}": i for i, n in enumerate(names)} | {"shared": "w5"}
    assert (await chat.stored()).state == expected
    assert [
        e.actions.state_delta for e in (await chat.stored()).events if e.actions.state_delta
    ] == [{f"key_{n}": i, "shared": n} for i, n in enumerate(names)]


async def test_events_of_callbacks_in_branches_carry_author_and_branch() -> None:
    def greet(callback_context: CallbackContext) -> str:
        callback_context.state[f"seen_{callback_context.agent_name}"] = callback_context.branch
        return f"hello from {callback_context.agent_name}"

    par = ParallelAgent(
        name="par",
        sub_agents=[
            LlmAgent(name="a", model=ScriptedModel([]), before_agent_callback=greet),
            LlmAgent(name="b", model=ScriptedModel([]), before_agent_callback=greet),
        ],
    )
    outer = ParallelAgent(name="outer", sub_agents=[par])
    chat = Conversation(outer)
    assert authors(await chat.send("go")) == [
        ("a", "outer.par.par.a", "hello from a"),
        ("b", "outer.par.par.b", "hello from b"),
    ]
    assert (await chat.stored()).state == {
        "seen_a": "outer.par.par.a",
        "seen_b": "outer.par.par.b",
    }


def failing(callback_context: CallbackContext) -> None:
    raise RuntimeError("boom")


@pytest.mark.parametrize("raise_errors", [False, True])
async def test_a_failing_branch_cancels_the_others(raise_errors: bool) -> None:
    scripted = ScriptedModel([say("fast", "fast done")])
    gates = Gates()
    par = ParallelAgent(
        name="par",
        sub_agents=[
            LlmAgent(name="fast", model=scripted),
            gates.agent("slow"),  # never answers
            LlmAgent(name="broken", model=scripted, before_agent_callback=failing),
        ],
    )
    chat = Conversation(par, run_config=RunConfig(raise_errors=raise_errors))
    seen: list[Any] = []

    async def read() -> None:
        async for event in chat.events("go"):
            seen.append(event)

    if raise_errors:
        with pytest.raises(CallbackError, match="boom"):
            await asyncio.wait_for(read(), HANG)
    else:
        await asyncio.wait_for(read(), HANG)
    assert gates.cancelled == gates.started  # the slow call, if it started, was cancelled
    what = authors([e for e in seen if e.author != "user"])
    assert what[0] == ("fast", "par.fast", "fast done")
    if not raise_errors:
        assert what[1][2] == "CALLBACK_ERROR"
        assert seen[-1].error_message.startswith("before_agent_callback")
    assert len(what) == (1 if raise_errors else 2)
    stored = await chat.stored()
    assert [e.author for e in stored.events][:2] == ["user", "fast"]


async def test_a_branch_failing_before_the_others_start_still_ends_the_fan_out() -> None:
    # The broken branch fails before its siblings ever run: they are cancelled unstarted.
    scripted = ScriptedModel([say("later", "never")])
    par = ParallelAgent(
        name="par",
        sub_agents=[
            LlmAgent(name="broken", model=scripted, before_agent_callback=failing),
            LlmAgent(name="later", model=scripted),
            LlmAgent(name="last", model=scripted),
        ],
    )
    chat = Conversation(par, run_config=RunConfig(raise_errors=True))
    with pytest.raises(CallbackError, match="boom"):
        await asyncio.wait_for(chat.send("go"), timeout=2)
    assert scripted.requests == []


async def test_escalation_by_a_sub_agent_stops_the_other_branches_and_the_loop() -> None:
    scripted = ScriptedModel([call("quitter", "exit_loop")])
    gates = Gates()
    par = ParallelAgent(
        name="par",
        sub_agents=[
            gates.agent("slow"),  # never answers
            LlmAgent(name="quitter", model=scripted, tools=[exit_loop]),
        ],
    )
    chat = Conversation(LoopAgent(name="loop", sub_agents=[par]))
    events = await asyncio.wait_for(chat.send("go"), HANG)
    assert gates.cancelled == ["slow"]
    assert authors(events) == [
        ("quitter", "par.quitter", "exit_loop()"),
        ("quitter", "par.quitter", "exit_loop->{'result': None}"),
    ]


async def test_a_consumer_that_stops_reading_leaves_no_branch_running() -> None:
    gates = Gates()
    gates.open["a"].set()  # b and c never answer
    par = ParallelAgent(name="par", sub_agents=[gates.agent(n) for n in ("a", "b", "c")])
    chat = Conversation(par)
    events = chat.events("go")
    async for event in events:
        if event.author == "a":
            break
    await events.aclose()  # type: ignore[attr-defined]
    # The runner's generators are closed by the event loop's async-generator finalizer, which
    # takes a few loop iterations; the branches waiting on their models must then be cancelled.
    await until(lambda: not _other_tasks())
    assert sorted(gates.cancelled) == sorted(set(gates.started) - {"a"})


def _other_tasks() -> list[asyncio.Task[Any]]:
    return [t for t in asyncio.all_tasks() if t is not asyncio.current_task() and not t.done()]


async def test_parallel_agent_without_sub_agents_yields_nothing() -> None:
    assert await Conversation(ParallelAgent(name="par")).send("go") == []
