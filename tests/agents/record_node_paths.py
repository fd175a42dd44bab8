"""Record the run path (``node_info.path``) google-adk 2.13's runner puts on each agent event,
for the agent trees test_node_paths.py builds in yadk, as ``recorded/node_paths.json``:
per case, per turn, each non-user event's author and path (``""``: no path).

Re-record (google-adk 2.13.0 in its own venv, never a yadk dependency):

    /opt/adkvenv/bin/python tests/agents/record_node_paths.py

Each LlmAgent has a scripted ``BaseLlm`` giving its answers in order (a transfer is a
``transfer_to_agent`` call), then ``ok``.
"""

from __future__ import annotations

import asyncio
import json
import warnings
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

from google.adk.agents import BaseAgent, LlmAgent, LoopAgent, ParallelAgent, SequentialAgent
from google.adk.events import Event
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.adk.tools.agent_tool import AgentTool
from google.genai import types
from pydantic import Field

OUT = Path(__file__).resolve().parent / "recorded" / "node_paths.json"


class Scripted(BaseLlm):
    model: str = "scripted"
    answers: list[Any] = Field(default_factory=list)

    async def generate_content_async(
        self, llm_request: Any, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        answer = self.answers.pop(0) if self.answers else "ok"
        if isinstance(answer, tuple):
            part = types.Part(function_call=types.FunctionCall(name=answer[0], args=answer[1]))
        else:
            part = types.Part(text=answer)
        yield LlmResponse(content=types.Content(role="model", parts=[part]))


class Custom(BaseAgent):
    """Says one thing, then runs its sub-agents in order."""

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        yield Event(
            invocation_id=ctx.invocation_id,
            author=self.name,
            content=types.Content(role="model", parts=[types.Part(text="c")]),
        )
        for sub in self.sub_agents:
            async for event in sub.run_async(ctx):
                yield event


def llm(name: str, *answers: Any, **fields: Any) -> LlmAgent:
    return LlmAgent(name=name, model=Scripted(answers=list(answers)), instruction="x", **fields)


def transfer(name: str) -> tuple[str, dict[str, str]]:
    return ("transfer_to_agent", {"agent_name": name})


def cases() -> dict[str, tuple[BaseAgent, int]]:
    """Each case's agent tree and how many turns it runs."""
    return {
        "root": (llm("root"), 1),
        "transfer": (llm("root", transfer("child"), sub_agents=[llm("child")]), 2),
        "chain": (
            llm(
                "root",
                transfer("child"),
                sub_agents=[llm("child", transfer("grand"), sub_agents=[llm("grand")])],
            ),
            2,
        ),
        "peer": (
            llm("root", transfer("c1"), sub_agents=[llm("c1", transfer("c2")), llm("c2")]),
            1,
        ),
        "back_and_forth": (
            llm(
                "root",
                transfer("child"),
                transfer("child"),
                sub_agents=[llm("child", transfer("root"), "end")],
            ),
            1,
        ),
        "sequential_root": (SequentialAgent(name="seq", sub_agents=[llm("a"), llm("b")]), 1),
        "parallel_root": (ParallelAgent(name="par", sub_agents=[llm("a"), llm("b")]), 1),
        "custom_root": (Custom(name="cust", sub_agents=[llm("a")]), 1),
        "transfer_to_loop": (
            llm(
                "root",
                transfer("loop"),
                sub_agents=[
                    LoopAgent(name="loop", max_iterations=2, sub_agents=[llm("a"), llm("b")])
                ],
            ),
            1,
        ),
        "transfer_to_sequential": (
            llm(
                "root",
                transfer("seq"),
                sub_agents=[SequentialAgent(name="seq", sub_agents=[llm("a")])],
            ),
            1,
        ),
        "transfer_to_custom": (
            llm("root", transfer("cust"), sub_agents=[Custom(name="cust", sub_agents=[llm("a")])]),
            1,
        ),
        "agent_tool": (
            llm(
                "root",
                ("helper", {"request": "q"}),
                "done",
                tools=[AgentTool(agent=llm("helper"))],
            ),
            1,
        ),
    }


async def record(agent: BaseAgent, turns: int) -> list[list[list[str]]]:
    runner = InMemoryRunner(agent=agent, app_name="a")
    session = await runner.session_service.create_session(app_name="a", user_id="u")
    seen: list[list[list[str]]] = []
    for _ in range(turns):
        turn: list[list[str]] = []
        message = types.Content(role="user", parts=[types.Part(text="hi")])
        async for event in runner.run_async(
            user_id="u", session_id=session.id, new_message=message
        ):
            if event.author != "user":
                turn.append([event.author, event.node_info.path])
        seen.append(turn)
    return seen


async def main() -> None:
    recorded = {name: await record(agent, turns) for name, (agent, turns) in cases().items()}
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(recorded, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    asyncio.run(main())
