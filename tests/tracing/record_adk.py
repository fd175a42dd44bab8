"""Records google-adk 2.13's OpenTelemetry spans for the tracing scenarios as JSON fixtures.

Run with google-adk's own interpreter (never a yadk dependency):

    /opt/adkvenv/bin/python tests/tracing/record_adk.py

Each scenario (scenarios.py) runs once under an SDK TracerProvider with an
InMemorySpanExporter. ``recorded/<scenario>.json`` lists the finished spans in start order: name,
kind, the index of the parent span (None for a root), attributes, status and span events (the
exception stack trace left out); plus the number of distinct traces. Ids that change from run to
run (event and invocation ids) are replaced by ``<event-id>`` and
``<invocation-id>``.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from google.adk.agents import LlmAgent, LoopAgent, ParallelAgent, SequentialAgent
from google.adk.agents.run_config import RunConfig
from google.adk.events.event import Event
from google.adk.events.request_input import RequestInput
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.adk.telemetry.context import ContentCapturingMode, TelemetryConfig
from google.adk.tools import LongRunningFunctionTool
from google.adk.workflow import START, RetryConfig, Workflow, node
from google.genai import types
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent.parent))

from tests.tracing.scenarios import SCENARIOS, SESSION_ID, span_rows  # noqa: E402

EXPORTER = InMemorySpanExporter()
PROVIDER = TracerProvider()
PROVIDER.add_span_processor(SimpleSpanProcessor(EXPORTER))
trace.set_tracer_provider(PROVIDER)


class Canned(BaseLlm):
    """Answers each call with the next turn of its list."""

    turns: list[Any]

    async def generate_content_async(self, llm_request: Any, stream: bool = False) -> Any:
        turn = self.turns.pop(0)
        if isinstance(turn, tuple) and turn[0] == "raise":
            raise RuntimeError(turn[1])
        if isinstance(turn, tuple) and turn[0] == "error":
            yield LlmResponse(error_code=turn[1], error_message=turn[2])
            return
        items = turn if isinstance(turn, list) else [turn]
        parts = []
        for item in items:
            if isinstance(item, str):
                parts.append(types.Part(text=item))
            else:
                _, name, args, call_id = item
                parts.append(
                    types.Part(function_call=types.FunctionCall(name=name, args=args, id=call_id))
                )
        yield LlmResponse(
            content=types.Content(role="model", parts=parts),
            usage_metadata=types.GenerateContentResponseUsageMetadata(
                prompt_token_count=10, candidates_token_count=4, total_token_count=14
            ),
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
    model=lambda name, turns: Canned(model="gemini-2.5-flash", turns=list(turns)),
)


async def record(name: str) -> dict[str, Any]:
    scenario = SCENARIOS[name](KIT)
    saved = {key: os.environ.get(key) for key in scenario.env}
    os.environ.update(scenario.env)
    try:
        EXPORTER.clear()
        runner = InMemoryRunner(agent=scenario.agent, app_name="app")
        await runner.session_service.create_session(
            app_name="app", user_id="u", session_id=SESSION_ID
        )
        run_config = RunConfig(
            telemetry=TelemetryConfig(
                capture_message_content=ContentCapturingMode(scenario.capture)
            )
            if scenario.capture
            else None
        )
        error = None
        for message in scenario.messages:
            if isinstance(message, str):
                part = types.Part(text=message)
            else:
                part = types.Part(
                    function_response=types.FunctionResponse(
                        id=message["answer"], name="adk_request_input", response=message["response"]
                    )
                )
            content = types.Content(role="user", parts=[part])
            try:
                async for _ in runner.run_async(
                    user_id="u", session_id=SESSION_ID, new_message=content, run_config=run_config
                ):
                    pass
            except Exception as exc:  # the tool_error scenarios end the invocation
                error = f"{type(exc).__name__}: {exc}"
        result = span_rows(EXPORTER.get_finished_spans())
        result["error"] = error
        return result
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def main() -> None:
    out = HERE / "recorded"
    out.mkdir(exist_ok=True)
    for name in sys.argv[1:] or SCENARIOS:
        result = asyncio.run(record(name))
        path = out / f"{name}.json"
        path.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
        print(path, len(result["spans"]), "spans")


if __name__ == "__main__":
    main()
