"""Per-turn cost as history grows, for every ``include_contents`` mode.

Target: turn ~1,000 within 1.5x of turn ~10 (medians of turns 5-35 and 970-1,000), in memory and on SQLite, for ``default`` and
``none`` alike (a turn pays for what it adds, not for the history behind it). Each turn: a user
message, a model call that calls a tool, the tool's response, a model call that answers; so the
history carries function-call ids, which ``none`` must look up to find where the turn starts.
The model is free (ScriptedModel), so the time is the framework's; it is CPU time of the process
(``time.process_time``, on both sides), which a loaded machine disturbs far less than wall time. google-adk 2.13 runs the same
conversation on its in-memory session service, for fewer turns (``--adk-turns``, default 200: its
turns grow with the history, so 1,000 takes it the better part of an hour); its turn ~10 is
compared with yadk's turn ~10, its last turns with yadk's turn at the same count.
Run: python bench/bench_history.py [--turns N] [--adk-turns N]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
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

WINDOW = 30
MODES = ("default", "none")


def lookup(order_id: str) -> dict[str, str]:
    """Looks up an order."""
    return {"order_id": order_id, "status": "shipped"}


def _windows(times: list[float]) -> tuple[float, float]:
    """Median ms/turn of the ``WINDOW`` turns after five of warm-up (turn ~20) and of the last
    ``WINDOW`` turns: medians of 30 turns, as single turns swing with the machine's load."""
    return (
        statistics.median(times[5 : 5 + WINDOW]) * 1000,
        statistics.median(times[-WINDOW:]) * 1000,
    )


async def measure_yadk(
    turns: int, mode: str, service: BaseSessionService, at: int
) -> tuple[float, float, float, tuple[int, int]]:
    """``_windows`` of the turns' times, the median of the ``WINDOW`` turns before ``at``, and
    the Python function calls of one turn early and of one late (outside the timed windows): a
    count the machine's load cannot disturb, so growth with history shows in it exactly."""
    script: list[dict[str, object]] = []
    for i in range(turns):
        script.append({"function_calls": [{"name": "lookup", "args": {"order_id": f"o{i}"}}]})
        script.append({"text": f"order o{i} has shipped"})
    agent = LlmAgent(
        name="bench",
        model=ScriptedModel(turns=script),
        instruction="You track orders.",
        tools=[lookup],
        include_contents=mode,  # type: ignore[arg-type]
    )
    runner = Runner(app_name="app", agent=agent, session_service=service)
    session = await service.create_session(app_name="app", user_id="u")
    times = []
    counted = (5 + WINDOW + 1, turns - WINDOW - 2)
    calls = []
    for i in range(turns):
        profile = cProfile.Profile() if i in counted else None
        start = time.process_time()
        if profile is not None:
            profile.enable()
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=f"q{i}"):
            pass
        if profile is not None:
            profile.disable()
            calls.append(pstats.Stats(profile).total_calls)  # type: ignore[attr-defined]
        times.append(time.process_time() - start)
    await runner.close()
    first, last = _windows(times)
    return first, last, statistics.median(times[at - WINDOW : at]) * 1000, (calls[0], calls[1])


def adk_snippet(turns: int, mode: str) -> str:
    """The same conversation on google-adk (its in-memory session service)."""
    return f"""
import asyncio, json, statistics, time, logging
logging.disable(logging.WARNING)
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

class Scripted(BaseLlm):
    model: str = "scripted"
    calls: int = 0
    async def generate_content_async(self, llm_request, stream=False):
        i = self.calls // 2
        if self.calls % 2 == 0:
            part = types.Part(function_call=types.FunctionCall(
                name="lookup", args={{"order_id": f"o{{i}}"}}, id=f"call-{{i}}"))
        else:
            part = types.Part(text=f"order o{{i}} has shipped")
        self.calls += 1
        yield LlmResponse(content=types.Content(role="model", parts=[part]))

def lookup(order_id: str) -> dict:
    \"\"\"Looks up an order.\"\"\"
    return {{"order_id": order_id, "status": "shipped"}}

async def main():
    agent = LlmAgent(name="bench", model=Scripted(), instruction="You track orders.",
                     tools=[lookup], include_contents={mode!r})
    service = InMemorySessionService()
    runner = Runner(app_name="app", agent=agent, session_service=service)
    session = await service.create_session(app_name="app", user_id="u")
    times = []
    for i in range({turns}):
        start = time.process_time()
        async for _ in runner.run_async(user_id="u", session_id=session.id,
                                        new_message=types.UserContent(f"q{{i}}")):
            pass
        times.append(time.process_time() - start)
    w = {WINDOW}
    print(json.dumps({{"first": statistics.median(times[5:5 + w]) * 1000,
                      "last": statistics.median(times[-w:]) * 1000}}))
asyncio.run(main())
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--adk-turns", type=int, default=200)
    parser.add_argument("--no-adk", action="store_true", help="skip the google-adk side")
    args = parser.parse_args()
    turns: int = args.turns
    adk_turns: int = min(args.adk_turns, turns)
    results: dict[str, object] = {
        "turns": turns,
        "google_adk_turns": adk_turns,
        "window": WINDOW,
        "yadk": {},
        "google_adk": {},
    }
    yadk_results: dict[str, dict[str, float]] = results["yadk"]  # type: ignore[assignment]
    adk_results: dict[str, dict[str, float]] = results["google_adk"]  # type: ignore[assignment]
    for mode in MODES:
        adk = None if args.no_adk else run_adk(adk_snippet(adk_turns, mode), timeout=3600)
        if adk is not None:
            adk_results[mode] = {**adk, "growth": adk["last"] / adk["first"]}
        with tempfile.TemporaryDirectory() as tmp:
            services: list[tuple[str, BaseSessionService]] = [
                ("memory", InMemorySessionService()),
                ("sqlite", SqliteSessionService(Path(tmp) / "s.db")),
            ]
            for store, service in services:
                first, last, middle, calls = asyncio.run(
                    measure_yadk(turns, mode, service, adk_turns)
                )
                growth = last / first
                yadk_results[f"{mode}/{store}"] = {
                    "first": first,
                    "last": last,
                    f"at_{adk_turns}": middle,
                    "growth": growth,
                    "function_calls_early_late": list(calls),
                }
                print(
                    f"\ninclude_contents={mode}, {store}: turn ~{turns} / turn ~10 ="
                    f" {growth:.2f}x (target <= 1.5x)"
                )
                report(f"turns 5-{5 + WINDOW}", first, adk and adk["first"], "ms/turn")
                report(
                    f"turns {adk_turns - WINDOW}-{adk_turns}",
                    middle,
                    adk and adk["last"],
                    "ms/turn",
                )
                report(f"last {WINDOW} turns (of {turns})", last, None, "ms/turn")
                print(
                    f"  Python function calls in turn {5 + WINDOW + 1} and turn"
                    f" {turns - WINDOW - 2}: {calls[0]} and {calls[1]}"
                )
        if adk is not None:
            print(
                f"google-adk (in memory), {mode}: turn ~{adk_turns} / turn ~10 ="
                f" {adk['last'] / adk['first']:.2f}x"
            )
    # The printed rows, what the run was measured on (load average, ...), and these figures.
    write_results(__file__, **results)


if __name__ == "__main__":
    main()
