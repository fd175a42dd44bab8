"""What yadk web's trace ring costs a turn, and what reading it back costs the Trace tab.

The turn: one user message, a model call that asks for a tool, the tool, a model call that
answers (5 spans), as bench_tracing.py's. Variants, each in its own interpreter (the tracer
provider is process-global), rounds alternating, CPU time per turn, median of the rounds:

* ``untraced``: no tracer provider;
* ``recording``: an SDK provider whose spans go to a SimpleSpanProcessor and an exporter that
  drops them (what any span consumer costs at least);
* ``ring``: an SDK provider whose spans go to yadk web's ``TraceRing`` (each finished span copied
  into plain data and filed under its invocation, the bounds kept).

google-adk 2.13's side: the same turn with its dev server's two span stores (``adk web``'s
``ApiServerSpanExporter`` and ``InMemoryExporter``, each behind a SimpleSpanProcessor), and
untraced. Then the Trace tab's read: ``TraceRing.invocations`` for a session of 50 turns (the
route's data, before JSON), and google-adk's ``InMemoryExporter.get_finished_spans`` plus its
``ui_telemetry_from_otel`` for the same session. Run: python bench/bench_trace_ring.py
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

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "7"))
TURNS = 300

TURN = f"""
import asyncio, json, sys, time
variant = sys.argv[1]
ring = None
if variant != "untraced":
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

    class Drop(SpanExporter):
        def export(self, spans):
            return SpanExportResult.SUCCESS

    provider = TracerProvider()
    if variant == "ring":
        from yadk.serve._tracering import TraceRing
        ring = TraceRing()
        provider.add_span_processor(ring)
    else:
        provider.add_span_processor(SimpleSpanProcessor(Drop()))
    trace.set_tracer_provider(provider)
from yadk import LlmAgent, Runner
from yadk.models import ScriptedModel

def get_weather(city: str) -> dict:
    \"\"\"The weather in a city.\"\"\"
    return {{"city": city, "weather": "sunny"}}

TURNS = {TURNS}
script = [{{"function_calls": [{{"name": "get_weather", "args": {{"city": "Paris"}}}}]}},
          {{"text": "It is sunny."}}] * (TURNS + 60)
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
        if i % 50 == 0:
            session = await runner.session_service.create_session(app_name="app", user_id="u")
        start = time.process_time()
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message="q"):
            pass
        elapsed += time.process_time() - start
    read_ms = None
    if ring is not None:  # the Trace tab's read: a session of 50 turns
        start = time.process_time()
        for _ in range(20):
            found = ring.invocations(session.id)
        read_ms = (time.process_time() - start) / 20 * 1000
        assert len(found) == 50, len(found)
    print(json.dumps({{"ms": elapsed / TURNS * 1000, "read_ms": read_ms}}))

asyncio.run(main())
"""

VARIANTS = ["untraced", "recording", "ring"]


def _one(variant: str) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "YADK_TRACING"))}
    done = subprocess.run(
        [sys.executable, "-c", TURN, variant],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=300,
    )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


ADK = (
    """
import asyncio, json, logging, sys, time
logging.disable(logging.WARNING)
traced = sys.argv[1] == "dev server stores"
if traced:
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from google.adk.cli.api_server import ApiServerSpanExporter, InMemoryExporter
    from google.adk.telemetry._web_ui import ui_telemetry_from_otel
    store = InMemoryExporter({})
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(ApiServerSpanExporter({})))
    provider.add_span_processor(SimpleSpanProcessor(store))
    trace.set_tracer_provider(provider)
"""
    + ADK_TOOL_TURN_AGENT
    + """
async def main():
    runner = InMemoryRunner(agent=LlmAgent(name="bench", model=Free(), instruction="Help.",
                                           tools=[get_weather]), app_name="app")
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    async def turn(s):
        async for _ in runner.run_async(user_id="u", session_id=s.id,
                                        new_message=types.UserContent("q")):
            pass
    for _ in range(3):
        await turn(session)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    start = time.process_time()
    for _ in range(50):
        await turn(session)
    ms = (time.process_time() - start) / 50 * 1000
    read_ms = None
    if traced:
        start = time.process_time()
        for _ in range(20):
            found = ui_telemetry_from_otel(store.get_finished_spans(session.id), ())
        read_ms = (time.process_time() - start) / 20 * 1000
    print(json.dumps({"ms": ms, "read_ms": read_ms}))

asyncio.run(main())
"""
)


def _adk(variant: str) -> dict[str, float] | None:
    runs = [run_adk(ADK.replace("sys.argv[1]", repr(variant))) for _ in range(3)]
    if any(r is None for r in runs):
        return None
    return {
        key: statistics.median(r[key] for r in runs if r is not None and r[key] is not None)
        for key in ("ms", "read_ms")
        if all(r is not None and r[key] is not None for r in runs)
    }


def main() -> None:
    rounds: dict[str, list[dict[str, float]]] = {v: [] for v in VARIANTS}
    for _ in range(ROUNDS):
        for variant in VARIANTS:
            rounds[variant].append(_one(variant))
    turn = {v: statistics.median(r["ms"] for r in runs) for v, runs in rounds.items()}
    read = statistics.median(r["read_ms"] for r in rounds["ring"])
    base = turn["untraced"]
    print(f"A scripted turn with one tool call ({TURNS} turns a round, median of {ROUNDS} rounds)")
    for variant, value in turn.items():
        print(
            f"  {variant:<10} {value:8.4f} ms/turn  ({(value / base - 1) * 100:+.1f}% vs untraced)"
        )
        record(f"turn, {variant}", value, "ms/turn")
    extra = (turn["ring"] / turn["recording"] - 1) * 100
    print(f"  the ring vs a span processor that drops the spans: {extra:+.1f}%\n")
    record("ring vs a dropping span processor, extra", extra, "%")
    adk_traced = _adk("dev server stores")
    adk_plain = _adk("untraced")
    report("turn, untraced", base, adk_plain["ms"] if adk_plain else None, "ms/turn")
    report(
        "turn, spans kept for the dev UI",
        turn["ring"],
        adk_traced["ms"] if adk_traced else None,
        "ms/turn",
    )
    report(
        "the trace view's read of a 50-turn session",
        read,
        adk_traced.get("read_ms") if adk_traced else None,
        "ms",
    )


if __name__ == "__main__":
    main()
    write_results(__file__)
