"""Runner overhead per turn as history grows.

Targets: <= 2 ms/turn at 200 turns with ScriptedModel; turn ~1,000 within 1.5x of turn ~10 on
the in-memory and the SQLite session service (a turn pays for what is new, not the history).
Each turn: one user message, one model answer; the model is free, so the time is the framework's.
A tool-using history (each turn: the model calls a tool, then answers; two model calls whose
requests carry every call and response so far) must stay as flat: turn ~500 within 1.5x of
turn ~10 (yadk only: google-adk takes minutes to get there).
Run: python bench/bench_runner.py
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _compare import report, run_adk, write_results

from yadk import LlmAgent, Runner
from yadk.models import ScriptedModel
from yadk.sessions import BaseSessionService, InMemorySessionService, SqliteSessionService

TURNS = 200
WINDOW = 10
LONG_TURNS = 1000
TOOL_TURNS = 500


def lookup(order_id: str) -> dict:
    """Looks up an order."""
    return {"order_id": order_id, "status": "shipped"}


async def measure_yadk(
    turns: int = TURNS, service: BaseSessionService | None = None, median: bool = False
) -> tuple[float, float]:
    """ms/turn of turns 5-15 (after warm-up) and of the last 10 turns: their mean, or their
    median (steadier on a loaded machine, for the growth ratio)."""
    model = ScriptedModel(turns=[{"text": f"answer {i}"} for i in range(turns)])
    agent = LlmAgent(
        name="bench",
        model=model,
        instruction="You help {customer?}. Be brief.",
        tools=[lookup],
    )
    runner = Runner(app_name="app", agent=agent, session_service=service)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    times = []
    for i in range(turns):
        start = time.perf_counter()
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=f"q{i}"):
            pass
        times.append(time.perf_counter() - start)
    await runner.close()
    pick = statistics.median if median else statistics.fmean
    return pick(times[5 : 5 + WINDOW]) * 1000, pick(times[-WINDOW:]) * 1000


async def measure_tool_turns(turns: int) -> tuple[float, float]:
    """Median ms/turn of turns 5-15 and of the last 10 turns of a tool-using conversation."""
    script: list[dict[str, object]] = []
    for i in range(turns):
        script.append({"function_calls": [{"name": "lookup", "args": {"order_id": f"o{i}"}}]})
        script.append({"text": f"order o{i} has shipped"})
    agent = LlmAgent(name="bench", model=ScriptedModel(turns=script), tools=[lookup])
    runner = Runner(app_name="app", agent=agent)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    times = []
    for i in range(turns):
        start = time.perf_counter()
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=f"q{i}"):
            pass
        times.append(time.perf_counter() - start)
    await runner.close()
    return statistics.median(times[5 : 5 + WINDOW]) * 1000, statistics.median(
        times[-WINDOW:]
    ) * 1000


def adk_snippet(turns: int = TURNS, median: bool = False) -> str:
    """The same measurement on google-adk (its own in-memory session service)."""
    pick = "statistics.median" if median else "statistics.fmean"
    return f"""
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
    for i in range({turns}):
        start = time.perf_counter()
        async for _ in runner.run_async(user_id="u", session_id=session.id,
                                        new_message=types.UserContent(f"q{{i}}")):
            pass
        times.append(time.perf_counter() - start)
    w = {WINDOW}
    pick = {pick}
    print(json.dumps({{"first": pick(times[5:5 + w]) * 1000, "last": pick(times[-w:]) * 1000}}))
asyncio.run(main())
"""


def main() -> None:
    first, last = asyncio.run(measure_yadk())
    adk = run_adk(adk_snippet())
    print(f"Runner overhead per turn (ScriptedModel, {TURNS} turns)")
    report("turns 5-15", first, adk and adk["first"], "ms/turn")
    report(f"last {WINDOW} turns (target <= 2 ms)", last, adk and adk["last"], "ms/turn")

    first, last = asyncio.run(measure_tool_turns(TOOL_TURNS))
    print(
        f"\ntool-using history, in memory, {TOOL_TURNS} turns: turn ~{TOOL_TURNS} / turn ~10 ="
        f" {last / first:.2f}x (target <= 1.5x); median {first:.2f} vs {last:.2f} ms/turn",
        flush=True,
    )

    long: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        services: list[tuple[str, BaseSessionService]] = [
            ("memory", InMemorySessionService()),
            ("sqlite", SqliteSessionService(Path(tmp) / "s.db")),
        ]
        for name, service in services:
            first, last = long[name] = asyncio.run(measure_yadk(LONG_TURNS, service, median=True))
            print(
                f"\n{name} sessions, {LONG_TURNS} turns: turn ~1000 / turn ~10 = {last / first:.2f}x"
                " (target <= 1.5x)",
                flush=True,
            )
    adk_long = run_adk(adk_snippet(LONG_TURNS, median=True), timeout=1200)
    for name, (first, last) in long.items():
        print(f"\n{name} sessions, {LONG_TURNS} turns (median ms/turn of each window)")
        report(f"{name}, turns 5-15", first, adk_long and adk_long["first"], "ms/turn")
        report(f"{name}, last {WINDOW} turns", last, adk_long and adk_long["last"], "ms/turn")
    if adk_long:
        print(
            f"\ngoogle-adk (in memory): turn ~1000 / turn ~10 ="
            f" {adk_long['last'] / adk_long['first']:.2f}x"
        )


if __name__ == "__main__":
    main()
    write_results(__file__)
