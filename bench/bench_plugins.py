"""What plugins cost a scripted turn.

Target: a turn run through an App with no plugin configured costs <= 5% more than the same turn
on a Runner without an app (the plugin hooks, when there are no plugins, are one ``is None``
test each). Also measured: an app with one plugin that counts model calls, and with one that
implements every callback as a no-op, against google-adk 2.13's scripted turn (no plugins, and
the same counting plugin).

Each turn: one user message, one model answer from a free model, on a fresh in-memory session
every 50 turns (so history stays short). The variants run in alternating rounds, and each figure
is the median of its rounds, to keep a loaded machine's drift out of the comparison.
Run: python bench/bench_plugins.py
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _compare import record, report, run_adk, write_results

from yadk import LlmAgent, Runner
from yadk.apps import App, BasePlugin
from yadk.models import ScriptedModel

ROUNDS = 15
TURNS = 50  # per round


class CountModelCalls(BasePlugin):
    def __init__(self) -> None:
        super().__init__(name="count")
        self.calls = 0

    async def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> None:
        self.calls += 1


class EveryCallback(BasePlugin):
    """Implements each callback (doing nothing), so every hook calls it."""


async def _noop(self: Any, **kwargs: Any) -> None:
    return None


for _name in (
    "on_user_message_callback",
    "before_run_callback",
    "on_event_callback",
    "after_run_callback",
    "before_agent_callback",
    "after_agent_callback",
    "before_model_callback",
    "after_model_callback",
):
    setattr(EveryCallback, _name, _noop)


def _runner(variant: str) -> Runner:
    agent = LlmAgent(
        name="bench",
        model=ScriptedModel(turns=[{"text": "answer"}] * (TURNS + 5)),
        instruction="You help {customer?}. Be brief.",
    )
    if variant == "no app":
        return Runner(app_name="app", agent=agent)
    plugins: list[Any] = {
        "app, no plugins": [],
        "app, 1 counting plugin": [CountModelCalls()],
        "app, 1 plugin on every callback": [EveryCallback("every")],
    }[variant]
    return Runner(app=App(name="app", root_agent=agent, plugins=plugins))


async def _round(variant: str) -> float:
    """ms per turn of one round of ``variant`` (after two warm-up turns)."""
    runner = _runner(variant)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    for i in range(2):
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=f"w{i}"):
            pass
    start = time.perf_counter()
    for i in range(TURNS):
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=f"q{i}"):
            pass
    return (time.perf_counter() - start) / TURNS * 1000


VARIANTS = [
    "no app",
    "app, no plugins",
    "app, 1 counting plugin",
    "app, 1 plugin on every callback",
]


async def measure() -> dict[str, float]:
    rounds: dict[str, list[float]] = {v: [] for v in VARIANTS}
    for _ in range(ROUNDS):
        for variant in VARIANTS:
            rounds[variant].append(await _round(variant))
    return {v: statistics.median(times) for v, times in rounds.items()}


ADK = f"""
import asyncio, json, statistics, time, logging
logging.disable(logging.WARNING)
from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.plugins import BasePlugin
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

class Free(BaseLlm):
    model: str = "free"
    async def generate_content_async(self, llm_request, stream=False):
        yield LlmResponse(content=types.ModelContent("answer"))

class CountModelCalls(BasePlugin):
    def __init__(self):
        super().__init__(name="count")
        self.calls = 0
    async def before_model_callback(self, *, callback_context, llm_request):
        self.calls += 1

def runner(plugins):
    agent = LlmAgent(name="bench", model=Free(), instruction="You help {{customer?}}. Be brief.")
    if plugins is None:
        return Runner(app_name="app", agent=agent, session_service=InMemorySessionService())
    return Runner(app=App(name="app", root_agent=agent, plugins=plugins),
                  session_service=InMemorySessionService())

async def one_round(plugins):
    r = runner(plugins)
    session = await r.session_service.create_session(app_name="app", user_id="u")
    for i in range(2):
        async for _ in r.run_async(user_id="u", session_id=session.id,
                                   new_message=types.UserContent(f"w{{i}}")):
            pass
    start = time.perf_counter()
    for i in range({TURNS}):
        async for _ in r.run_async(user_id="u", session_id=session.id,
                                   new_message=types.UserContent(f"q{{i}}")):
            pass
    return (time.perf_counter() - start) / {TURNS} * 1000

async def main():
    plain, counting = [], []
    for _ in range({ROUNDS} // 3):
        plain.append(await one_round(None))
        counting.append(await one_round([CountModelCalls()]))
    print(json.dumps({{"plain": statistics.median(plain), "counting": statistics.median(counting)}}))
asyncio.run(main())
"""


def main() -> None:
    figures = asyncio.run(measure())
    base = figures["no app"]
    print(f"A scripted turn ({TURNS} turns a round, median of {ROUNDS} alternating rounds)")
    for variant in VARIANTS:
        extra = (figures[variant] / base - 1) * 100
        print(f"  {variant:<34} {figures[variant]:8.3f} ms/turn  ({extra:+.1f}% vs no app)")
    overhead = (figures["app, no plugins"] / base - 1) * 100
    verdict = "within" if overhead <= 5 else "OVER"
    print(f"  app without plugins: {overhead:+.1f}% ({verdict} the 5% target)\n")
    record("app without plugins vs no app, extra", overhead, "%")
    adk = run_adk(ADK)
    report("scripted turn, no plugins", base, adk and adk["plain"], "ms/turn")
    report(
        "scripted turn, 1 counting plugin",
        figures["app, 1 counting plugin"],
        adk and adk["counting"],
        "ms/turn",
    )
    record("scripted turn, app without plugins", figures["app, no plugins"], "ms/turn")
    record(
        "scripted turn, 1 plugin on every callback",
        figures["app, 1 plugin on every callback"],
        "ms/turn",
    )


if __name__ == "__main__":
    main()
    write_results(__file__)
