"""Record the events google-adk's api_server sends for a turn with a tool call and a turn of
text, on ``/run`` and on ``/run_sse`` with streaming off and on, as
``recorded/api_events.json``. The yadk tests replay the same scenario against ``yadk serve``
(test_recorded_events.py) and compare the events' keys and where ``turnComplete`` and
``partial`` appear; they never need google-adk.

Re-record (google-adk 2.13.0 in its own venv, never a yadk dependency):

    /opt/adkvenv/bin/python tests/serve/record_adk_api.py

The agent (written to a temporary folder, with its sessions) has a scripted model: a
``BaseLlm`` that answers a user message with a call to ``get_weather`` and the tool's answer
with text; when streaming, the text comes first as one partial chunk. Its final answers carry
``finish_reason`` STOP and token counts, as Gemini's answers do.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
OUT = HERE / "recorded" / "api_events.json"

AGENT = '''
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.genai import types

USAGE = types.GenerateContentResponseUsageMetadata(
    prompt_token_count=5, candidates_token_count=2, total_token_count=7
)


def get_weather(city: str) -> dict:
    """The weather in a city."""
    return {"city": city, "sky": "sunny"}


class Weather(BaseLlm):
    model: str = "weather"

    async def generate_content_async(self, llm_request, stream=False):
        last = llm_request.contents[-1].parts or []
        if not any(p.function_response for p in last):
            call = types.FunctionCall(name="get_weather", args={"city": "Paris"})
            yield LlmResponse(
                content=types.Content(role="model", parts=[types.Part(function_call=call)]),
                finish_reason=types.FinishReason.STOP,
                usage_metadata=USAGE,
            )
            return
        text = "Sunny in Paris."
        if stream:
            yield LlmResponse(
                content=types.Content(role="model", parts=[types.Part(text="Sunny")]),
                partial=True,
            )
        yield LlmResponse(
            content=types.Content(role="model", parts=[types.Part(text=text)]),
            finish_reason=types.FinishReason.STOP,
            usage_metadata=USAGE,
        )


root_agent = LlmAgent(
    name="weather",
    model=Weather(),
    instruction="Say the weather.",
    tools=[get_weather],
)
'''

# (name, route, streaming): each on its own new session.
RUNS: list[tuple[str, str, bool]] = [
    ("run", "/run", False),
    ("run_sse", "/run_sse", False),
    ("run_sse_streaming", "/run_sse", True),
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def sse_events(body: str) -> list[dict[str, Any]]:
    return [
        json.loads(line[len("data: ") :]) for line in body.splitlines() if line.startswith("data: ")
    ]


@contextlib.contextmanager
def api_server(agents: Path) -> Iterator[httpx.Client]:
    """``adk api_server`` on a free port of 127.0.0.1 serving the folder ``agents`` (its
    sessions in memory), and a client for it once it answers."""
    adk = Path(sys.executable).parent / "adk"
    port = free_port()
    server = subprocess.Popen(
        [str(adk), "api_server", "--host", "127.0.0.1", "--port", str(port), str(agents)],
        cwd=agents.parent,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            deadline = time.monotonic() + 60
            while True:
                try:
                    client.get("/health")
                    break
                except httpx.TransportError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.2)
            yield client
    finally:
        server.terminate()
        server.wait(10)


def main() -> int:
    work = Path(tempfile.mkdtemp())
    agent = work / "agents" / "weather"
    agent.mkdir(parents=True)
    (agent / "__init__.py").write_text("from . import agent\n")
    (agent / "agent.py").write_text(AGENT)
    recorded: dict[str, Any] = {}
    try:
        with api_server(work / "agents") as client:
            for name, route, streaming in RUNS:
                sessions = "/apps/weather/users/u1/sessions"
                client.post(sessions, json={"sessionId": name}).raise_for_status()
                body: dict[str, Any] = {
                    "appName": "weather",
                    "userId": "u1",
                    "sessionId": name,
                    "newMessage": {"role": "user", "parts": [{"text": "weather in Paris?"}]},
                }
                if route == "/run_sse":
                    body["streaming"] = streaming
                response = client.post(route, json=body)
                response.raise_for_status()
                events = response.json() if route == "/run" else sse_events(response.text)
                stored = client.get(f"{sessions}/{name}").json()["events"]
                recorded[name] = {
                    "request": {"path": route, "body": body},
                    "events": events,
                    "stored": stored,
                }
                print(name, len(events), "events,", len(stored), "stored")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    OUT.parent.mkdir(exist_ok=True)
    text = json.dumps(recorded, indent=2, sort_keys=True, ensure_ascii=False)
    OUT.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
