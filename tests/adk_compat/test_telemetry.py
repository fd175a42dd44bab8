"""google-adk's ``google.adk.telemetry`` on yadk: agent code that sets its content capture with
``RunConfig(telemetry=TelemetryConfig(...))`` runs unchanged, and its spans carry what
google-adk 2.13's do (the recording of tests/tracing)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pydantic
import pytest
from tests.tracing.kit import KIT, traced_provider
from tests.tracing.scenarios import SCENARIOS, SESSION_ID, span_rows
from tests.tracing.test_spans import recorded

import yadk.agents
from yadk.adk_compat import disable, enable, install

ADK_CODE = """
from google.adk.agents.run_config import RunConfig, StreamingMode
from google.adk.runners import InMemoryRunner
from google.adk.telemetry import ContentCapturingMode, TelemetryConfig


def run_config() -> RunConfig:
    return RunConfig(
        streaming_mode=StreamingMode.NONE,
        telemetry=TelemetryConfig(capture_message_content=ContentCapturingMode.SPAN_ONLY),
    )


def runner(agent):
    return InMemoryRunner(agent=agent, app_name="app")
"""


@pytest.fixture(autouse=True)
def _shim(tmp_path: Path) -> Iterator[None]:
    install()
    path = list(sys.path)
    yield
    disable()
    enable()
    sys.path[:] = path
    sys.modules.pop("adk_code", None)


def test_the_names_are_yadks() -> None:
    from google.adk.telemetry import ContentCapturingMode, TelemetryConfig
    from google.adk.telemetry.context import TelemetryConfig as FromContext

    assert TelemetryConfig is FromContext is yadk.agents.TelemetryConfig
    assert ContentCapturingMode is yadk.agents.ContentCapturingMode


TRACER_CODE = """
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from yadk.adk_compat import install

install()
from google.adk.telemetry import tracer

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)
with tracer.start_as_current_span("mine"):
    pass
(span,) = exporter.get_finished_spans()
print(span.name, span.instrumentation_scope.name)
"""


@pytest.mark.subprocess
def test_the_tracer_makes_spans_in_yadks_scope() -> None:
    """google-adk code that makes spans of its own with ``google.adk.telemetry.tracer`` (after
    setting the global provider, as google-adk's docs do)."""
    done = subprocess.run(
        [sys.executable, "-c", TRACER_CODE], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["mine", "yadk"]


def test_what_yadk_does_itself_is_refused_with_the_way_to_do_it() -> None:
    with pytest.raises(ImportError, match=r"trace_call_llm.*yadk traces its agents, nodes"):
        from google.adk.telemetry import trace_call_llm  # noqa: F401


async def test_adk_code_captures_content_as_google_adk(tmp_path: Path) -> None:
    (tmp_path / "adk_code.py").write_text(textwrap.dedent(ADK_CODE), encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    import adk_code  # type: ignore[import-not-found]

    config: Any = adk_code.run_config()
    assert config.telemetry.capture_message_content is yadk.agents.ContentCapturingMode.SPAN_ONLY
    # The test's own provider (google-adk code sets the global one); the runner's copy of the
    # config (``dataclasses.replace``) must keep both.
    provider, exporter = traced_provider()
    config = dataclasses.replace(config, tracer_provider=provider)
    scenario = SCENARIOS["transfer_and_tool_span_only"](KIT)
    runner = adk_code.runner(scenario.agent)
    await runner.session_service.create_session(app_name="app", user_id="u", session_id=SESSION_ID)
    async for _ in runner.run_async(
        user_id="u", session_id=SESSION_ID, new_message="weather in Paris?", run_config=config
    ):
        pass
    assert span_rows(exporter.get_finished_spans()) == recorded("transfer_and_tool_span_only")


def test_run_config_takes_the_settings_as_a_mapping_as_google_adks_does() -> None:
    from google.adk.agents import RunConfig

    config = RunConfig(telemetry={"capture_message_content": "SPAN_ONLY"})
    assert config.telemetry == yadk.agents.TelemetryConfig(
        capture_message_content=yadk.agents.ContentCapturingMode.SPAN_ONLY
    )
    with pytest.raises(pydantic.ValidationError, match="bogus"):
        RunConfig(telemetry={"bogus": 1})
