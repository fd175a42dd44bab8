"""Runner overhead per turn as history grows (issue 2).

Target: <= 2 ms/turn at 200 turns with ScriptedModel, flat as history grows.
Each turn: one user message, one model answer; the model is free, so the time is the framework's.
Run: python bench/bench_runner.py
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _compare import report, run_adk

from yadk import LlmAgent, Runner
from yadk.models import ScriptedModel

TURNS = 200
WINDOW = 10


def lookup(order_id: str) -> dict:
    """Looks up an order."""
    return {"order_id": order_id, "status": "shipped"}


async def measure_yadk() -> tuple[float, float]:
    model = ScriptedModel(turns=[{"text": f"answer {i}"} for i in range(TURNS)])
    agent = LlmAgent(
        name="bench",
        model=model,
        instruction="You help {customer?}. Be brief.",
        tools=[lookup],
    )
    runner = Runner(app_name="app", agent=agent)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    times = []
    for i in range(TURNS):
        start = time.perf_counter()
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=f"q{i}"):
            pass
        times.append(time.perf_counter() - start)
    first = sum(times[:WINDOW]) / WINDOW * 1000
    last = sum(times[-WINDOW:]) / WINDOW * 1000
    return first, last


ADK_SNIPPET = f"""
import asyncio, json, time, logging
logging.disable(logging.WARNING)
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

class Free(BaseLlm):
    model: str = "free"
    async def generate_content_async(self, llm_request, stream=False):
        yield LlmResponse(content=types.ModelContent("answer"))

def lookup(order_id: str) -> dict:
    \"\"\"Looks up an order.\"\"\"
    return {{"order_id": order_id, "status": "shipped"}}

async def main():
    agent = LlmAgent(name="bench", model=Free(), instruction="You help {{customer?}}. Be brief.", tools=[lookup])
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
    w = {WINDOW}
    print(json.dumps({{"first": sum(times[:w]) / w * 1000, "last": sum(times[-w:]) / w * 1000}}))
asyncio.run(main())
"""


def main() -> None:
    first, last = asyncio.run(measure_yadk())
    adk = run_adk(ADK_SNIPPET)
    print(f"Runner overhead per turn (ScriptedModel, {TURNS} turns)")
    report(f"first {WINDOW} turns", first, adk and adk["first"], "ms/turn")
    report(f"last {WINDOW} turns (target <= 2 ms)", last, adk and adk["last"], "ms/turn")


if __name__ == "__main__":
    main()
