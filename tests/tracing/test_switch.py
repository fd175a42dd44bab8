"""When yadk traces: never without a tracer provider (and then OpenTelemetry is not even
imported), always with the application's own global provider unless ``YADK_TRACING=0``.

Each case runs in a fresh interpreter: the global provider can be set once per process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.subprocess

TURN = """
import asyncio, json, sys
from yadk import LlmAgent, Runner
from yadk.models import ScriptedModel

def turn():
    agent = LlmAgent(name="a", model=ScriptedModel([{"text": "hi"}]))
    runner = Runner(agent=agent, app_name="app")
    async def go():
        await runner.session_service.create_session(app_name="app", user_id="u", session_id="s")
        return [e async for e in runner.run_async(user_id="u", session_id="s", new_message="x")]
    return asyncio.run(go())
"""


def run(code: str, **env: str) -> dict[str, object]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "YADK_"))}
    environment.update(env)
    done = subprocess.run(
        [sys.executable, "-c", TURN + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_without_a_provider_a_run_never_imports_opentelemetry() -> None:
    result = run(
        """
        events = turn()
        loaded = sorted(m for m in sys.modules if m.startswith("opentelemetry"))
        print(json.dumps({"events": len(events), "loaded": loaded}))
        """
    )
    assert result == {"events": 2, "loaded": []}


PROVIDER = """
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)
turn()
print(json.dumps({"spans": [s.name for s in exporter.get_finished_spans()],
                  "scopes": sorted({s.instrumentation_scope.name for s in exporter.get_finished_spans()})}))
"""


def test_the_applications_own_provider_is_used_as_is() -> None:
    assert run(PROVIDER) == {
        "spans": ["generate_content scripted", "invoke_agent a", "invoke_workflow a"],
        "scopes": ["yadk"],
    }


@pytest.mark.parametrize("value", ["0", "false"])
def test_yadk_tracing_0_forces_tracing_off(value: str) -> None:
    assert run(PROVIDER, YADK_TRACING=value) == {"spans": [], "scopes": []}


def test_a_span_processor_added_in_process_sees_every_span() -> None:
    """The hook for span consumers inside the process (the web UI's trace view)."""
    result = run(
        """
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
        from yadk.telemetry import add_span_processor
        exporter = InMemorySpanExporter()
        assert add_span_processor(SimpleSpanProcessor(exporter))
        turn()
        spans = exporter.get_finished_spans()
        print(json.dumps({"spans": [s.name for s in spans],
                          "service": spans[0].resource.attributes["service.name"]}))
        """
    )
    assert result == {
        "spans": ["generate_content scripted", "invoke_agent a", "invoke_workflow a"],
        "service": "yadk",
    }
