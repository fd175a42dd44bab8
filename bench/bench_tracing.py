"""What tracing costs a scripted turn.

Targets: with tracing off, a turn costs <= 1% more than a turn that runs no tracing code; with
spans recorded (the OpenTelemetry SDK, every span sampled and handed to an exporter), <= 25% more.

The turn: one user message, a model call that asks for a tool, the tool, a model call that
answers (5 spans when traced: invoke_workflow, invoke_agent, 2 x generate_content,
execute_tool), on a fresh in-memory session every 50 turns. Variants, each in its own interpreter
(the tracer provider is process-global):

* ``untraced``: OpenTelemetry never imported (the runner's check is one ``sys.modules`` lookup,
  then one ``is None`` per agent, model call and tool);
* ``no provider``: OpenTelemetry imported but no tracer provider set (decided once per
  invocation: off);
* ``YADK_TRACING=0``: an SDK provider set, tracing forced off;
* ``recording``: an SDK provider whose spans go to a SimpleSpanProcessor and an exporter that
  drops them (the cost of building and ending the spans, not of a network);
* ``no tracing code`` (when ``YADK_BENCH_BASELINE_SRC`` names the ``src`` folder of a yadk
  checkout from before tracing existed): the same turn on that code, e.g.
  ``git archive 72d9e1c^ src | tar -x -C /some/dir`` and
  ``YADK_BENCH_BASELINE_SRC=/some/dir/src python bench/bench_tracing.py``.

Rounds alternate between the variants (one interpreter per variant and round); a turn is
timed in CPU time (``time.process_time``), as the machine is shared, and each figure is the
median of its rounds. The cost of the decision itself (per invocation, in-process) is measured
on its own too: it is what "off" adds. google-adk 2.13's same turn, untraced and recording, gives the
scale. Run: python bench/bench_tracing.py
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _compare import ADK_TOOL_TURN_AGENT, record, report, run_adk, write_results

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "9"))
TURNS = 300  # per round, after warm-up turns

TURN = f"""
import asyncio, json, os, sys, time
variant = sys.argv[1]
if variant in ("recording", "YADK_TRACING=0"):
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

    class Drop(SpanExporter):
        def export(self, spans):
            return SpanExportResult.SUCCESS

    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(Drop()))
    trace.set_tracer_provider(provider)
elif variant == "no provider":
    import opentelemetry.trace
from yadk import LlmAgent, Runner
from yadk.models import ScriptedModel

def get_weather(city: str) -> dict:
    \"\"\"The weather in a city.\"\"\"
    return {{"city": city, "weather": "sunny"}}

TURNS = {TURNS}
script = [{{"function_calls": [{{"name": "get_weather", "args": {{"city": "Paris"}}}}]}},
          {{"text": "It is sunny."}}] * (TURNS + 10)
agent = LlmAgent(name="bench", model=ScriptedModel(script), instruction="Help.",
                 tools=[get_weather])
runner = Runner(agent=agent, app_name="app")

async def main():
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    for i in range(5):
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message="w"):
            pass
    elapsed = 0.0
    for i in range(TURNS):
        if i % 50 == 0:  # a fresh session now and then: history stays short
            session = await runner.session_service.create_session(app_name="app", user_id="u")
        start = time.process_time()
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message="q"):
            pass
        elapsed += time.process_time() - start
    elapsed = elapsed / TURNS * 1000
    loaded = any(m.startswith("opentelemetry") for m in sys.modules)
    import importlib.util
    has_tracing = importlib.util.find_spec("yadk.telemetry") is not None
    print(json.dumps({{"ms": elapsed, "otel_loaded": loaded, "has_tracing": has_tracing}}))

asyncio.run(main())
"""

VARIANTS = ["untraced", "no provider", "YADK_TRACING=0", "recording"]


def _one(variant: str, src: str | None = None) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "YADK_TRACING"))}
    if variant == "YADK_TRACING=0":
        env["YADK_TRACING"] = "0"
    if src is not None:
        env["PYTHONPATH"] = src
    done = subprocess.run(
        [sys.executable, "-c", TURN, variant],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=300,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if variant == "untraced":
        assert not result["otel_loaded"], "an untraced run imported OpenTelemetry"
    assert result["has_tracing"] == (src is None), "the baseline source has tracing code"
    return float(result["ms"])


def measure() -> dict[str, float]:
    baseline = os.environ.get("YADK_BENCH_BASELINE_SRC")
    variants = [*VARIANTS, *(["no tracing code"] if baseline else [])]
    rounds: dict[str, list[float]] = {v: [] for v in variants}
    for _ in range(ROUNDS):
        for variant in variants:
            if variant == "no tracing code":
                rounds[variant].append(_one("untraced", baseline))
            else:
                rounds[variant].append(_one(variant))
    return {v: statistics.median(times) for v, times in rounds.items()}


ADK = (
    """
import asyncio, json, logging, sys, time
logging.disable(logging.WARNING)
recording = sys.argv[1] == "recording"
if recording:
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
    class Drop(SpanExporter):
        def export(self, spans):
            return SpanExportResult.SUCCESS
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(Drop()))
    trace.set_tracer_provider(provider)
"""
    + ADK_TOOL_TURN_AGENT
    + """
async def main():
    runner = InMemoryRunner(agent=LlmAgent(name="bench", model=Free(), instruction="Help.",
                                           tools=[get_weather]), app_name="app")
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    async def turn():
        async for _ in runner.run_async(user_id="u", session_id=session.id,
                                        new_message=types.UserContent("q")):
            pass
    for _ in range(3):
        await turn()
    start = time.perf_counter()
    for _ in range(30):
        await turn()
    print(json.dumps({"ms": (time.perf_counter() - start) / 30 * 1000}))

asyncio.run(main())
"""
)


def _adk(variant: str) -> float | None:
    values = []
    for _ in range(3):
        result = run_adk(ADK.replace("sys.argv[1]", repr(variant)))
        if result is None:
            return None
        values.append(result["ms"])
    return statistics.median(values)


def decision_cost() -> dict[str, float]:
    """µs per invocation of deciding whether to trace, measured in this process: first with
    OpenTelemetry not imported, then imported without a provider."""
    import asyncio
    import timeit

    from yadk import LlmAgent
    from yadk.agents import InvocationContext
    from yadk.models import ScriptedModel
    from yadk.runner import _trace_for
    from yadk.sessions import InMemorySessionService

    agent = LlmAgent(name="bench", model=ScriptedModel([]))
    service = InMemorySessionService()
    session = asyncio.run(service.create_session(app_name="app", user_id="u"))
    ctx = InvocationContext(
        invocation_id="e-1", agent=agent, session=session, session_service=service
    )
    costs = {}
    assert "opentelemetry.trace" not in sys.modules
    for label in ("OpenTelemetry not imported", "imported, no provider"):
        if label == "imported, no provider":
            import opentelemetry.trace  # noqa: F401
        n = 200_000
        costs[label] = (
            min(timeit.repeat(lambda: _trace_for(ctx, agent), number=n, repeat=5)) / n * 1e6
        )
    return costs


def main() -> None:
    costs = decision_cost()
    print("Deciding whether to trace, once per invocation:")
    for label, micros in costs.items():
        print(f"  {label:<28} {micros:8.3f} µs")
        record(f"decision per invocation, {label}", micros, "µs")
    figures = measure()
    base = figures["untraced"]
    print(f"A scripted turn with one tool call ({TURNS} turns a round, median of {ROUNDS} rounds)")
    for variant, value in figures.items():
        print(
            f"  {variant:<18} {value:8.4f} ms/turn  ({(value / base - 1) * 100:+.1f}% vs untraced)"
        )
    for label, micros in costs.items():
        share = micros / 1000 / base * 100
        print(f"  the decision ({label}) is {share:.2f}% of an untraced turn")
        record(f"decision ({label}) as a share of a turn", share, "%")
    reference = figures.get("no tracing code", base)
    for variant in ("untraced", "no provider", "YADK_TRACING=0"):
        if variant == "untraced" and "no tracing code" not in figures:
            continue
        extra = (figures[variant] / reference - 1) * 100
        against = "no tracing code" if "no tracing code" in figures else "untraced"
        verdict = "within" if extra <= 1 else "OVER"
        print(f"  {variant}: {extra:+.1f}% vs {against} ({verdict} the 1% target)")
        record(f"tracing off ({variant}) vs {against}, extra", extra, "%")
    against = "no tracing code" if "no tracing code" in figures else "untraced"
    extra = (figures["recording"] / reference - 1) * 100
    verdict = "within" if extra <= 25 else "OVER"
    print(f"  recording: {extra:+.1f}% vs {against} ({verdict} the 25% target)\n")
    record(f"recording vs {against}, extra", extra, "%")
    report("scripted tool turn, untraced", base, _adk("untraced"), "ms/turn")
    report("scripted tool turn, spans recorded", figures["recording"], _adk("recording"), "ms/turn")


if __name__ == "__main__":
    main()
    write_results(__file__, baseline_src=os.environ.get("YADK_BENCH_BASELINE_SRC"))
