"""The run path on agent events (``node_info.path``), as google-adk 2.13's runner sets it.

Every expected list below was observed from google-adk 2.13.0 with the same agent trees and a
scripted ``BaseLlm`` answering the same turns (``None`` here is google-adk's empty path).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from yadk import LlmAgent, LoopAgent, ParallelAgent, Runner, SequentialAgent
from yadk.agents import BaseAgent
from yadk.events import Event
from yadk.models import ScriptedModel
from yadk.sessions import InMemorySessionService
from yadk.tools import AgentTool
from yadk.types import Content, Part


def llm(name: str, *turns: dict[str, Any], **fields: Any) -> LlmAgent:
    answers = list(turns) or [{"text": "ok"}] * 4
    return LlmAgent(name=name, model=ScriptedModel(answers), instruction="x", **fields)


def transfer(name: str) -> dict[str, Any]:
    return {"function_calls": [{"name": "transfer_to_agent", "args": {"agent_name": name}}]}


class Custom(BaseAgent):
    """Says one thing, then runs its sub-agents in order."""

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        yield Event(
            invocation_id=ctx.invocation_id,
            author=self.name,
            content=Content(role="model", parts=[Part(text="c")]),
        )
        for sub in self.sub_agents:
            async for event in sub.run_async(ctx):
                yield event


async def paths(agent: BaseAgent, turns: int = 1) -> list[list[tuple[str, str | None]]]:
    """Per turn, each agent event's author and path (the user's message left out)."""
    runner = Runner(app_name="a", agent=agent, session_service=InMemorySessionService())
    session = await runner.session_service.create_session(app_name="a", user_id="u")
    seen: list[list[tuple[str, str | None]]] = []
    for _ in range(turns):
        turn: list[tuple[str, str | None]] = []
        message = Content(role="user", parts=[Part(text="hi")])
        async for event in runner.run_async(
            user_id="u", session_id=session.id, new_message=message
        ):
            if event.author != "user":
                turn.append((event.author, event.node_info.path if event.node_info else None))
        seen.append(turn)
    return seen


async def test_a_root_llm_agent_is_name_at_1() -> None:
    assert await paths(llm("root")) == [[("root", "root@1")]]


async def test_a_transfer_target_hangs_under_its_parent_also_when_the_runner_starts_it() -> None:
    agent = llm("root", transfer("child"), sub_agents=[llm("child")])
    assert await paths(agent, turns=2) == [
        [("root", "root@1"), ("root", "root@1"), ("child", "root@1/child@1")],
        [("child", "root@1/child@1")],
    ]


async def test_a_chain_of_transfers_follows_the_tree() -> None:
    grand = llm("grand")
    agent = llm(
        "root", transfer("child"), sub_agents=[llm("child", transfer("grand"), sub_agents=[grand])]
    )
    [turn] = await paths(agent)
    assert [p for _, p in turn] == [
        "root@1",
        "root@1",
        "root@1/child@1",
        "root@1/child@1",
        "root@1/child@1/grand@1",
    ]


async def test_a_peer_is_under_the_common_parent_not_under_the_agent_that_transferred() -> None:
    agent = llm("root", transfer("c1"), sub_agents=[llm("c1", transfer("c2")), llm("c2")])
    [turn] = await paths(agent)
    assert turn[-1] == ("c2", "root@1/c2@1")


async def test_an_agent_started_again_counts_up_and_its_children_restart_at_1() -> None:
    child = llm("child", transfer("root"), {"text": "end"})
    agent = llm("root", transfer("child"), transfer("child"), sub_agents=[child])
    assert await paths(agent) == [
        [
            ("root", "root@1"),
            ("root", "root@1"),
            ("child", "root@1/child@1"),
            ("child", "root@1/child@1"),
            ("root", "root@2"),
            ("root", "root@2"),
            ("child", "root@2/child@1"),
        ]
    ]


async def test_agents_under_a_workflow_agent_at_the_root_have_no_path() -> None:
    assert await paths(SequentialAgent(name="seq", sub_agents=[llm("a"), llm("b")])) == [
        [("a", None), ("b", None)]
    ]
    [turn] = await paths(ParallelAgent(name="par", sub_agents=[llm("a"), llm("b")]))
    assert sorted(turn) == [("a", None), ("b", None)]
    assert await paths(Custom(name="cust", sub_agents=[llm("a")])) == [
        [("cust", None), ("a", None)]
    ]


async def test_agents_under_a_workflow_agent_reached_by_transfer_carry_its_path() -> None:
    loop = LoopAgent(name="loop", max_iterations=2, sub_agents=[llm("a"), llm("b")])
    agent = llm("root", transfer("loop"), sub_agents=[loop])
    [turn] = await paths(agent)
    assert turn[2:] == [
        ("a", "root@1/loop@1"),
        ("b", "root@1/loop@1"),
        ("a", "root@1/loop@1"),
        ("b", "root@1/loop@1"),
    ]
    agent = llm(
        "root", transfer("seq"), sub_agents=[SequentialAgent(name="seq", sub_agents=[llm("a")])]
    )
    assert (await paths(agent))[0][2:] == [("a", "root@1/seq@1")]
    agent = llm("root", transfer("cust"), sub_agents=[Custom(name="cust", sub_agents=[llm("a")])])
    assert (await paths(agent))[0][2:] == [("cust", "root@1/cust@1"), ("a", "root@1/cust@1")]


async def test_an_agent_tools_agent_stays_out_of_the_callers_events() -> None:
    call = {"function_calls": [{"name": "helper", "args": {"request": "q"}}]}
    agent = llm("root", call, {"text": "done"}, tools=[AgentTool(agent=llm("helper"))])
    assert await paths(agent) == [[("root", "root@1")] * 3]
