"""The cost of a turn with event compaction on and off, in yadk and in google-adk 2.13.

Each turn: a user message, a model call that calls a tool, the tool's response, a model call
that answers (the conversation of bench_history.py). With compaction on, every 5 invocations
the last 6 (an overlap of one) are summarised by a scripted summariser, so each fifth turn also
formats a window of events into a summary prompt and appends a compaction event, and every
request is assembled from the compacted history. Models are free (scripted), so the time is the
framework's: CPU time of the process (``time.process_time``) per turn, the mean over all turns
after five of warm-up (the turns that summarise included), on the in-memory session service on
both sides.

Run: python bench/bench_compaction.py [--turns N]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _compare import record, report, run_adk, write_results

from yadk import LlmAgent, Runner
from yadk.apps import App, EventsCompactionConfig, LlmEventSummarizer
from yadk.models import BaseLlm, LlmRequest, LlmResponse, ScriptedModel
from yadk.types import Content, Part

INTERVAL, OVERLAP, WARM_UP = 5, 1, 5


def lookup(order_id: str) -> dict[str, str]:
    """Looks up an order."""
    return {"order_id": order_id, "status": "shipped"}


class Summaries(BaseLlm):
    """A free summariser: the same short summary every time."""

    model = "summaries"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        yield LlmResponse(content=Content(role="model", parts=[Part(text="Orders looked up.")]))


async def measure_yadk(turns: int, compaction: bool) -> tuple[float, int]:
    """Mean CPU ms per turn after the warm-up, and the contents of the last request."""
    script: list[dict[str, object]] = []
    for i in range(turns):
        script.append({"function_calls": [{"name": "lookup", "args": {"order_id": f"o{i}"}}]})
        script.append({"text": f"order o{i} has shipped"})
    model = ScriptedModel(turns=script)
    agent = LlmAgent(name="bench", model=model, instruction="You track orders.", tools=[lookup])
    config = (
        EventsCompactionConfig(
            compaction_interval=INTERVAL,
            overlap_size=OVERLAP,
            summarizer=LlmEventSummarizer(Summaries()),
        )
        if compaction
        else None
    )
    runner = Runner(app=App(name="app", root_agent=agent, events_compaction_config=config))
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    times = []
    for i in range(turns):
        start = time.process_time()
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=f"q{i}"):
            pass
        times.append(time.process_time() - start)
    return statistics.mean(times[WARM_UP:]) * 1000, len(model.requests[-1].contents)


def adk_snippet(turns: int, compaction: bool) -> str:
    return f"""
import asyncio, json, statistics, time, logging
logging.disable(logging.WARNING)
from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.apps.app import EventsCompactionConfig
from google.adk.apps.llm_event_summarizer import LlmEventSummarizer
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.genai import types

class Scripted(BaseLlm):
    model: str = "scripted"
    calls: int = 0
    last: int = 0
    async def generate_content_async(self, llm_request, stream=False):
        self.last = len(llm_request.contents)
        i = self.calls // 2
        if self.calls % 2 == 0:
            part = types.Part(function_call=types.FunctionCall(
                name="lookup", args={{"order_id": f"o{{i}}"}}))
        else:
            part = types.Part(text=f"order o{{i}} has shipped")
        self.calls += 1
        yield LlmResponse(content=types.Content(role="model", parts=[part]))

class Summaries(BaseLlm):
    model: str = "summaries"
    async def generate_content_async(self, llm_request, stream=False):
        yield LlmResponse(content=types.Content(role="model",
                                                parts=[types.Part(text="Orders looked up.")]))

def lookup(order_id: str) -> dict:
    \"\"\"Looks up an order.\"\"\"
    return {{"order_id": order_id, "status": "shipped"}}

async def main():
    model = Scripted()
    agent = LlmAgent(name="bench", model=model, instruction="You track orders.", tools=[lookup])
    config = EventsCompactionConfig(compaction_interval={INTERVAL}, overlap_size={OVERLAP},
                                    summarizer=LlmEventSummarizer(llm=Summaries()))
    app = App(name="app", root_agent=agent,
              events_compaction_config=config if {compaction!r} else None)
    runner = InMemoryRunner(app=app)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    times = []
    for i in range({turns}):
        start = time.process_time()
        async for _ in runner.run_async(user_id="u", session_id=session.id,
                                        new_message=types.UserContent(f"q{{i}}")):
            pass
        times.append(time.process_time() - start)
    print(json.dumps({{"mean": statistics.mean(times[{WARM_UP}:]) * 1000,
                      "contents": model.last}}))
asyncio.run(main())
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--no-adk", action="store_true", help="skip the google-adk side")
    args = parser.parse_args()
    figures: dict[bool, float] = {}
    adk_figures: dict[bool, float] = {}
    for compaction in (False, True):
        label = "on" if compaction else "off"
        adk = None if args.no_adk else run_adk(adk_snippet(args.turns, compaction), timeout=1800)
        ms, contents = asyncio.run(measure_yadk(args.turns, compaction))
        figures[compaction] = ms
        if adk is not None:
            adk_figures[compaction] = adk["mean"]
        report(f"turn, compaction {label} ({args.turns} turns)", ms, adk and adk["mean"], "ms/turn")
        shown = f", google-adk {adk['contents']}" if adk is not None else ""
        print(f"  contents of the last request: yadk {contents}{shown}")
    overhead = figures[True] / figures[False]
    print(f"compaction on / off, yadk: {overhead:.2f}x")
    record("compaction on / off (yadk)", overhead, "x")
    if len(adk_figures) == 2:
        adk_overhead = adk_figures[True] / adk_figures[False]
        print(f"compaction on / off, google-adk: {adk_overhead:.2f}x")
        record("compaction on / off (google-adk)", adk_overhead, "x")
    write_results(__file__, turns=args.turns, compaction_interval=INTERVAL, overlap_size=OVERLAP)


if __name__ == "__main__":
    main()
