"""yadk's side of the tracing scenarios: the kit the scenarios build with, and a run that
returns the spans as the fixtures store them."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from tests.tracing.scenarios import SCENARIOS, SESSION_ID, span_rows

from yadk import LlmAgent, LoopAgent, ParallelAgent, Runner, SequentialAgent, Workflow
from yadk.agents import ContentCapturingMode, TelemetryConfig
from yadk.events import Event
from yadk.models import BaseLlm, LlmRequest, LlmResponse
from yadk.runner import RunConfig
from yadk.tools import LongRunningFunctionTool
from yadk.types import Content, FunctionCall, FunctionResponse, Part
from yadk.workflow import START, RequestInput, RetryConfig, node


class Canned(BaseLlm):
    """Answers each call with the next turn of its list, reporting 10 + 4 tokens."""

    provider_name = "gcp.gemini"

    def __init__(self, turns: list[Any]) -> None:
        self.model = "gemini-2.5-flash"
        self.turns = list(turns)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        turn = self.turns.pop(0)
        if isinstance(turn, tuple) and turn[0] == "raise":
            raise RuntimeError(turn[1])
        if isinstance(turn, tuple) and turn[0] == "error":
            yield LlmResponse(error_code=turn[1], error_message=turn[2])
            return
        parts = []
        for item in turn if isinstance(turn, list) else [turn]:
            if isinstance(item, str):
                parts.append(Part(text=item))
            else:
                _, name, args, call_id = item
                parts.append(Part(function_call=FunctionCall(name=name, args=args, id=call_id)))
        yield LlmResponse(
            content=Content(role="model", parts=parts),
            usage_metadata={
                "prompt_token_count": 10,
                "candidates_token_count": 4,
                "total_token_count": 14,
            },
        )


KIT = SimpleNamespace(
    LlmAgent=LlmAgent,
    SequentialAgent=SequentialAgent,
    ParallelAgent=ParallelAgent,
    LoopAgent=LoopAgent,
    Workflow=Workflow,
    START=START,
    RetryConfig=RetryConfig,
    node=node,
    Event=Event,
    RequestInput=RequestInput,
    LongRunningFunctionTool=LongRunningFunctionTool,
    model=lambda name, turns: Canned(turns),
)


def _content(message: Any) -> Content | str:
    if isinstance(message, str):
        return message
    answer = FunctionResponse(
        id=message["answer"], name="adk_request_input", response=message["response"]
    )
    return Content(role="user", parts=[Part(function_response=answer)])


def traced_provider() -> tuple[TracerProvider, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


async def run_scenario(
    name: str, *, telemetry: bool = False, out: dict[str, Any] | None = None, **run_config: Any
) -> dict[str, Any]:
    """Run scenario ``name`` in yadk with its own tracer provider; its spans as fixture rows.
    The scenario's capture is ``RunConfig(capture_message_content=...)``, or with ``telemetry``
    google-adk's spelling, ``RunConfig(telemetry=TelemetryConfig(capture_message_content=...))``
    (made while the scenario's environment is set, as google-adk's recording made it). ``out``,
    when given, receives the events (``events``) and the finished SDK spans (``spans``)."""
    scenario = SCENARIOS[name](KIT)
    provider, exporter = traced_provider()
    saved = {key: os.environ.get(key) for key in scenario.env}
    os.environ.update(scenario.env)
    try:
        runner = Runner(agent=scenario.agent, app_name="app")
        await runner.session_service.create_session(
            app_name="app", user_id="u", session_id=SESSION_ID
        )
        settings: dict[str, Any] = {"capture_message_content": scenario.capture}
        if telemetry:
            mode = ContentCapturingMode(scenario.capture) if scenario.capture else None
            settings = {"telemetry": TelemetryConfig(capture_message_content=mode)}
        settings.update(run_config)
        config = RunConfig(tracer_provider=provider, **settings)
        events: list[Any] = []
        for message in scenario.messages:
            async for event in runner.run_async(
                user_id="u", session_id=SESSION_ID, new_message=_content(message), run_config=config
            ):
                events.append(event)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    if out is not None:
        out.update(events=events, spans=exporter.get_finished_spans())
    return span_rows(exporter.get_finished_spans())


__all__ = ["KIT", "Canned", "run_scenario", "traced_provider"]
