"""Multi-agent speed: parallel fan-out and sequential overhead.

Targets: a ParallelAgent of 8 sub-agents whose model takes 200 ms each finishes in about 200 ms
(not 1.6 s); a 10-stage SequentialAgent pipeline costs under 2 ms per stage when the model is
free (each stage renders an instruction from the previous stage's output_key).
Run: python bench/bench_multi_agent.py
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _compare import report, run_adk, write_results

from yadk import LlmAgent, ParallelAgent, Runner, SequentialAgent
from yadk.models import ScriptedModel

BRANCHES = 8
DELAY = 0.2
STAGES = 10
PIPELINE_RUNS = 200
PARALLEL_RUNS = 3


async def parallel_yadk() -> float:
    times = []
    for _ in range(PARALLEL_RUNS):
        model = ScriptedModel(
            [{"agent": f"s{i}", "text": f"answer {i}", "delay": DELAY} for i in range(BRANCHES)]
        )
        agent = ParallelAgent(
            name="fan",
            sub_agents=[
                LlmAgent(name=f"s{i}", model=model, output_key=f"k{i}") for i in range(BRANCHES)
            ],
        )
        runner = Runner(app_name="app", agent=agent)
        session = await runner.session_service.create_session(app_name="app", user_id="u")
        start = time.perf_counter()
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message="go"):
            pass
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def pipeline_stages(model: ScriptedModel) -> list[LlmAgent]:
    return [
        LlmAgent(
            name=f"stage{i}",
            model=model,
            instruction=f"Stage {i}. Previous: {{out{i - 1}?}}",
            output_key=f"out{i}",
        )
        for i in range(STAGES)
    ]


async def pipeline_yadk() -> float:
    model = ScriptedModel([{"text": "out"}] * (STAGES * (PIPELINE_RUNS + 10)))
    agent = SequentialAgent(name="pipeline", sub_agents=pipeline_stages(model))
    runner = Runner(app_name="app", agent=agent)
    times = []
    for run in range(PIPELINE_RUNS + 10):
        session = await runner.session_service.create_session(app_name="app", user_id="u")
        start = time.perf_counter()
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message="go"):
            pass
        if run >= 10:  # warm-up runs left out
            times.append(time.perf_counter() - start)
    return statistics.median(times) / STAGES * 1000


ADK_SNIPPET = f"""
import asyncio, json, statistics, time, logging, warnings
logging.disable(logging.WARNING)
warnings.simplefilter("ignore")
from google.adk.agents import LlmAgent, ParallelAgent, SequentialAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

class Fake(BaseLlm):
    model: str = "fake"
    delay: float = 0.0
    async def generate_content_async(self, llm_request, stream=False):
        if self.delay:
            await asyncio.sleep(self.delay)
        yield LlmResponse(content=types.ModelContent("out"))

async def run_once(agent):
    service = InMemorySessionService()
    runner = Runner(app_name="app", agent=agent, session_service=service)
    session = await service.create_session(app_name="app", user_id="u")
    start = time.perf_counter()
    async for _ in runner.run_async(user_id="u", session_id=session.id,
                                    new_message=types.UserContent("go")):
        pass
    return time.perf_counter() - start

async def main():
    par = []
    for _ in range({PARALLEL_RUNS}):
        agent = ParallelAgent(name="fan", sub_agents=[
            LlmAgent(name=f"s{{i}}", model=Fake(delay={DELAY}), output_key=f"k{{i}}")
            for i in range({BRANCHES})])
        par.append(await run_once(agent))
    stages = [LlmAgent(name=f"stage{{i}}", model=Fake(),
                       instruction=f"Stage {{i}}. Previous: {{{{out{{i - 1}}?}}}}",
                       output_key=f"out{{i}}") for i in range({STAGES})]
    pipeline = SequentialAgent(name="pipeline", sub_agents=stages)
    service = InMemorySessionService()
    runner = Runner(app_name="app", agent=pipeline, session_service=service)
    seq = []
    for run in range({PIPELINE_RUNS} + 10):
        session = await service.create_session(app_name="app", user_id="u")
        start = time.perf_counter()
        async for _ in runner.run_async(user_id="u", session_id=session.id,
                                        new_message=types.UserContent("go")):
            pass
        if run >= 10:
            seq.append(time.perf_counter() - start)
    print(json.dumps({{"parallel": statistics.median(par) * 1000,
                      "per_stage": statistics.median(seq) / {STAGES} * 1000}}))
asyncio.run(main())
"""


def main() -> None:
    parallel = asyncio.run(parallel_yadk())
    per_stage = asyncio.run(pipeline_yadk())
    adk = run_adk(ADK_SNIPPET)
    print("Multi-agent speed")
    report(
        f"ParallelAgent {BRANCHES} x {DELAY * 1000:.0f} ms model (target ~200)",
        parallel,
        adk and adk["parallel"],
        "ms",
    )
    report(
        f"SequentialAgent, per stage of {STAGES} (target < 2)",
        per_stage,
        adk and adk["per_stage"],
        "ms",
    )


if __name__ == "__main__":
    main()
    write_results(__file__)
