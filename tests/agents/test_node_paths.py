"""The run path on agent events (``node_info.path``), as google-adk 2.13's runner sets it:
each case's agent tree is built as record_node_paths.py builds it in google-adk, answers the
same turns, and must give the recorded authors and paths (recorded/node_paths.json; google-adk's
empty path is yadk's ``None``).
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Callable
from pathlib import Path
from typing import Any

import pytest

from yadk import LlmAgent, LoopAgent, ParallelAgent, Runner, SequentialAgent
from yadk.agents import BaseAgent
from yadk.events import Event
from yadk.models import ScriptedModel
from yadk.sessions import InMemorySessionService
from yadk.tools import AgentTool
from yadk.types import Content, Part

RECORDED: dict[str, list[list[list[str]]]] = json.loads(
    (Path(__file__).parent / "recorded" / "node_paths.json").read_text(encoding="utf-8")
)


def llm(name: str, *turns: dict[str, Any], **fields: Any) -> LlmAgent:
    answers = list(turns) or [{"text": "ok"}] * 4
    return LlmAgent(name=name, model=ScriptedModel(answers), instruction="x", **fields)


def transfer(name: str) -> dict[str, Any]:
    return {"function_calls": [{"name": "transfer_to_agent", "args": {"agent_name": name}}]}


def text(value: str) -> dict[str, Any]:
    return {"text": value}


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


def _ok_after(*answers: dict[str, Any]) -> tuple[dict[str, Any], ...]:
    return (*answers, *[text("ok")] * 4)


CASES: dict[str, tuple[Callable[[], BaseAgent], int]] = {
    "root": (lambda: llm("root"), 1),
    "transfer": (lambda: llm("root", *_ok_after(transfer("child")), sub_agents=[llm("child")]), 2),
    "chain": (
        lambda: llm(
            "root",
            *_ok_after(transfer("child")),
            sub_agents=[llm("child", *_ok_after(transfer("grand")), sub_agents=[llm("grand")])],
        ),
        2,
    ),
    "peer": (
        lambda: llm(
            "root",
            *_ok_after(transfer("c1")),
            sub_agents=[llm("c1", *_ok_after(transfer("c2"))), llm("c2")],
        ),
        1,
    ),
    "back_and_forth": (
        lambda: llm(
            "root",
            *_ok_after(transfer("child"), transfer("child")),
            sub_agents=[llm("child", *_ok_after(transfer("root"), text("end")))],
        ),
        1,
    ),
    "sequential_root": (lambda: SequentialAgent(name="seq", sub_agents=[llm("a"), llm("b")]), 1),
    "parallel_root": (lambda: ParallelAgent(name="par", sub_agents=[llm("a"), llm("b")]), 1),
    "custom_root": (lambda: Custom(name="cust", sub_agents=[llm("a")]), 1),
    "transfer_to_loop": (
        lambda: llm(
            "root",
            *_ok_after(transfer("loop")),
            sub_agents=[LoopAgent(name="loop", max_iterations=2, sub_agents=[llm("a"), llm("b")])],
        ),
        1,
    ),
    "transfer_to_sequential": (
        lambda: llm(
            "root",
            *_ok_after(transfer("seq")),
            sub_agents=[SequentialAgent(name="seq", sub_agents=[llm("a")])],
        ),
        1,
    ),
    "transfer_to_custom": (
        lambda: llm(
            "root",
            *_ok_after(transfer("cust")),
            sub_agents=[Custom(name="cust", sub_agents=[llm("a")])],
        ),
        1,
    ),
    "agent_tool": (
        lambda: llm(
            "root",
            {"function_calls": [{"name": "helper", "args": {"request": "q"}}]},
            text("done"),
            tools=[AgentTool(agent=llm("helper"))],
        ),
        1,
    ),
}


async def paths(agent: BaseAgent, turns: int = 1) -> list[list[tuple[str, str | None]]]:
    """Per turn, each agent event's author and path (the user's message left out; ``None``:
    no path)."""
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


def test_every_recorded_case_is_replayed() -> None:
    assert list(CASES) == list(RECORDED)
    # What the comparison relies on: a transfer target under its tree parent, a restarted agent
    # counting up, and no path under a workflow agent at the root.
    assert RECORDED["peer"][0][-1] == ["c2", "root@1/c2@1"]
    assert RECORDED["back_and_forth"][0][-1] == ["child", "root@2/child@1"]
    assert RECORDED["sequential_root"] == [[["a", ""], ["b", ""]]]


@pytest.mark.parametrize("name", list(CASES))
async def test_agent_events_carry_google_adks_run_path(name: str) -> None:
    build, turns = CASES[name]
    expected = [[(author, path or None) for author, path in turn] for turn in RECORDED[name]]
    seen = await paths(build(), turns)
    if name == "parallel_root":  # the branches' events interleave as they come
        seen, expected = [sorted(t) for t in seen], [sorted(t) for t in expected]
    assert seen == expected
