"""What a token budget costs a turn: the same tool-using turn with no budget, with a budget
counting reported usage (all three limits, priced), and with a budget estimating usage (a model
that reports none); google-adk 2.13's turn (it has no budgets) for the ratio.

Each turn: one user message, a model call that calls a tool, the tool, a model call that answers;
the model is free and reports 120 input and 30 output tokens a call (except in the estimating
case), so the time is the framework's. Median ms/turn of turns 20-220 of 240 in one session.
Run: python bench/bench_budgets.py
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _compare import report, run_adk, write_results

from yadk import LlmAgent, Runner
from yadk.agents import RunConfig
from yadk.apps import Budget, ModelPrice
from yadk.models import BaseLlm, LlmRequest, LlmResponse
from yadk.types import Content, FunctionCall, Part

TURNS = 240
SKIP = 20
WINDOW = 200
USAGE = {"prompt_token_count": 120, "candidates_token_count": 30, "total_token_count": 150}


class Free(BaseLlm):
    """Calls ``lookup`` on even calls, answers on odd ones; reports ``usage`` if any."""

    def __init__(self, usage: dict[str, int] | None) -> None:
        self.model = "free"
        self.usage = usage
        self.calls = 0

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        self.calls += 1
        if self.calls % 2:
            part = Part(function_call=FunctionCall(name="lookup", args={"order_id": "A-1"}))
        else:
            part = Part(text="Order A-1 has shipped.")
        yield LlmResponse(content=Content(role="model", parts=[part]), usage_metadata=self.usage)


def lookup(order_id: str) -> dict[str, str]:
    """Looks up an order."""
    return {"order_id": order_id, "status": "shipped"}


BUDGET = Budget(
    max_tokens_per_invocation=1_000_000,
    max_tokens_per_session=1_000_000_000,
    max_cost=1_000_000,
    prices={"free": ModelPrice(input_per_million=0.3, output_per_million=2.5)},
)


async def measure(budget: Budget | None, usage: dict[str, int] | None) -> float:
    agent = LlmAgent(name="bench", model=Free(usage), instruction="Help.", tools=[lookup])
    runner = Runner(app_name="app", agent=agent, run_config=RunConfig(budget=budget))
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    times = []
    for i in range(TURNS):
        start = time.perf_counter()
        async for event in runner.run_async(
            user_id="u", session_id=session.id, new_message=f"q{i}"
        ):
            assert not event.error_code, event.error_message
        times.append(time.perf_counter() - start)
    return statistics.median(times[SKIP : SKIP + WINDOW]) * 1000


ADK = f"""
import asyncio, json, statistics, time, logging
logging.disable(logging.WARNING)
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

class Free(BaseLlm):
    model: str = "free"
    calls: int = 0
    async def generate_content_async(self, llm_request, stream=False):
        self.calls += 1
        if self.calls % 2:
            part = types.Part(function_call=types.FunctionCall(name="lookup", args={{"order_id": "A-1"}}))
        else:
            part = types.Part(text="Order A-1 has shipped.")
        usage = types.GenerateContentResponseUsageMetadata(
            prompt_token_count=120, candidates_token_count=30, total_token_count=150)
        yield LlmResponse(content=types.Content(role="model", parts=[part]), usage_metadata=usage)

def lookup(order_id: str) -> dict:
    \"\"\"Looks up an order.\"\"\"
    return {{"order_id": order_id, "status": "shipped"}}

async def main():
    agent = LlmAgent(name="bench", model=Free(), instruction="Help.", tools=[lookup])
    service = InMemorySessionService()
    runner = Runner(app_name="app", agent=agent, session_service=service)
    session = await service.create_session(app_name="app", user_id="u")
    times = []
    for i in range({TURNS}):
        start = time.perf_counter()
        async for _ in runner.run_async(user_id="u", session_id=session.id,
                                        new_message=types.UserContent(f"q{{i}}")):
            pass
        times.append(time.perf_counter() - start)
    print(json.dumps({{"turn": statistics.median(times[{SKIP}:{SKIP + WINDOW}]) * 1000}}))
asyncio.run(main())
"""


def main() -> None:
    off = asyncio.run(measure(None, USAGE))
    on = asyncio.run(measure(BUDGET, USAGE))
    estimated = asyncio.run(measure(BUDGET, None))
    adk = run_adk(ADK)
    adk_turn = adk and adk["turn"]
    print(f"Tool-using turn (2 model calls, 1 tool), median of turns {SKIP}-{SKIP + WINDOW}")
    report("no budget", off, adk_turn, "ms/turn")
    report("budget, reported usage (3 limits, priced)", on, adk_turn, "ms/turn")
    report("budget, estimated usage", estimated, adk_turn, "ms/turn")
    print(
        f"budget overhead: reported {100 * (on - off) / off:+.1f}%,"
        f" estimated {100 * (estimated - off) / off:+.1f}% (machine shared: noisy)"
    )


if __name__ == "__main__":
    main()
    write_results(__file__)
