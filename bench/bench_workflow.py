"""Graph workflow scheduling overhead, beside google-adk 2.13.

Per node, in microseconds of wall time per node run (the whole invocation, session appends
included, divided by the nodes that ran): a chain of 100 trivial functions, and a fan-out of
100 trivial functions into a JoinNode. Target: at most 50 us per node. And a loop that routes
back to itself 1,000 times: the time per iteration over the last 100 iterations against the
first 100 (flat means about 1.0); the same for a loop over an LlmAgent node (single-turn, a
scripted model) and a router, yadk only: an agent node's model call reads its own run's events,
so it must stay flat as the session grows.
Run: python bench/bench_workflow.py  (writes bench/results/bench_workflow.json)
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _compare import report, run_adk

from yadk import LlmAgent
from yadk.agents import RunConfig
from yadk.events import Event
from yadk.models import ScriptedModel
from yadk.runner import Runner
from yadk.workflow import START, JoinNode, Workflow, node

CHAIN = 100
FAN = 100
LOOP = 1000
RUNS = 15

# The scenario code, the same text for both frameworks (names given by the caller).
SCENARIOS = f"""
def chain_workflow():
    def make(i):
        def step(node_input):
            return i
        return node(step, name=f"n{{i}}")
    return Workflow(name="chain", edges=[(START, *[make(i) for i in range({CHAIN})])])


def fan_workflow():
    def make(i):
        def leaf(node_input):
            return i
        return node(leaf, name=f"n{{i}}")
    def split(node_input):
        return 0
    return Workflow(
        name="fan",
        edges=[(START, split, tuple(make(i) for i in range({FAN})), JoinNode(name="join"))],
    )


def loop_workflow(stamps):
    def step(node_input):
        n = node_input if isinstance(node_input, int) else 0
        stamps.append(time.perf_counter())
        return Event(output=n + 1, route="again" if n + 1 < {LOOP} else "done")
    def end(node_input):
        return node_input
    return Workflow(name="loop", edges=[(START, step), (step, {{"again": step, "done": end}})])


CPU = []


async def invoke(runner, message):
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    start = time.perf_counter()
    cpu = time.process_time()
    async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message):
        pass
    CPU.append(time.process_time() - cpu)
    return time.perf_counter() - start


async def measure(make_runner, message):
    chain = make_runner(chain_workflow())
    fan = make_runner(fan_workflow())
    for _ in range(3):  # warm up
        await invoke(chain, message)
        await invoke(fan, message)
    CPU.clear()
    chain_us = statistics.median([await invoke(chain, message) for _ in range({RUNS})])
    chain_cpu = statistics.median(CPU)
    CPU.clear()
    fan_us = statistics.median([await invoke(fan, message) for _ in range({RUNS})])
    fan_cpu = statistics.median(CPU)
    ratios = []
    for _ in range(3):
        stamps = []
        await invoke(make_runner(loop_workflow(stamps)), message)
        first = (stamps[100] - stamps[0]) / 100
        last = (stamps[-1] - stamps[-101]) / 100
        ratios.append(last / first)
    return {{
        "chain_us_per_node": chain_us / {CHAIN} * 1e6,
        "chain_cpu_us_per_node": chain_cpu / {CHAIN} * 1e6,
        "fan_us_per_node": fan_us / ({FAN} + 2) * 1e6,
        "fan_cpu_us_per_node": fan_cpu / ({FAN} + 2) * 1e6,
        "loop_last_over_first": statistics.median(ratios),
        "loop_us_per_iteration": (stamps[-1] - stamps[0]) / ({LOOP} - 1) * 1e6,
    }}
"""

ADK_SNIPPET = (
    """
import asyncio, json, logging, statistics, time, warnings
logging.disable(logging.WARNING)
warnings.filterwarnings("ignore")
from google.adk.events.event import Event
from google.adk.runners import InMemoryRunner
from google.adk.workflow import START, JoinNode, Workflow, node
from google.genai import types
"""
    + SCENARIOS
    + """
def make_runner(agent):
    return InMemoryRunner(agent=agent, app_name="app")

print(json.dumps(asyncio.run(measure(make_runner, types.UserContent("go")))))
"""
)


def yadk_figures() -> dict[str, Any]:
    namespace: dict[str, Any] = {
        "Event": Event,
        "JoinNode": JoinNode,
        "START": START,
        "Workflow": Workflow,
        "node": node,
        "statistics": statistics,
        "time": time,
    }
    exec(SCENARIOS, namespace)  # the benchmark's own scenario text, run as google-adk runs it

    def make_runner(agent: Any) -> Runner:
        return Runner(app_name="app", agent=agent)

    result: dict[str, Any] = asyncio.run(namespace["measure"](make_runner, "go"))
    result["agent_loop_last_over_first"] = asyncio.run(agent_loop())
    return result


async def agent_loop() -> float:
    """Per iteration over the last 100 of LOOP runs of an agent node and a router, against
    the first 100."""
    stamps: list[float] = []
    model = ScriptedModel(turns=[{"text": f"draft {i}"} for i in range(LOOP)])
    writer = LlmAgent(name="writer", model=model, instruction="Write.")

    def check(node_input: Any) -> Event:
        stamps.append(time.perf_counter())
        return Event(output=node_input, route="again" if len(stamps) < LOOP else "done")

    def end(node_input: Any) -> str:
        return "done"

    flow = Workflow(
        name="agent_loop",
        edges=[(START, writer), (writer, check), (check, {"again": writer, "done": end})],
    )
    runner = Runner(app_name="app", agent=flow)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    run_config = RunConfig(max_llm_calls=LOOP * 2)
    async for _ in runner.run_async(
        user_id="u", session_id=session.id, new_message="go", run_config=run_config
    ):
        pass
    first = stamps[100] - stamps[0]
    last = stamps[-1] - stamps[-101]
    return last / first


def main() -> None:
    yadk = yadk_figures()
    adk = run_adk(ADK_SNIPPET)
    rows = [
        ("chain of 100 functions, per node (wall)", "chain_us_per_node", "us"),
        ("chain of 100 functions, per node (CPU)", "chain_cpu_us_per_node", "us"),
        ("fan-out of 100 into a join, per node (wall)", "fan_us_per_node", "us"),
        ("fan-out of 100 into a join, per node (CPU)", "fan_cpu_us_per_node", "us"),
        ("loop of 1,000 iterations, per iteration", "loop_us_per_iteration", "us"),
    ]
    for label, key, unit in rows:
        report(label, yadk[key], adk[key] if adk else None, unit)
    print(
        f"{'loop: last 100 iterations / first 100':<48} yadk {yadk['loop_last_over_first']:>12.2f}"
        + (f"   | google-adk {adk['loop_last_over_first']:>12.2f}" if adk else "")
    )
    print(
        f"{'agent-node loop: last 100 / first 100':<48} yadk"
        f" {yadk['agent_loop_last_over_first']:>12.2f}   (target: about 1.0)"
    )
    out = Path(__file__).parent / "results" / "bench_workflow.json"
    load = os.getloadavg()[0]
    print(f"load average while measuring: {load:.1f} on {os.cpu_count()} cores")
    out.write_text(
        json.dumps({"yadk": yadk, "google_adk": adk, "load_average": load}, indent=2) + "\n"
    )
    print(f"written to {out}")


if __name__ == "__main__":
    main()
