"""The events of one scenario (a turn with a tool call, then text), served by yadk and by
google-adk 2.13's api_server (recorded/api_events.json, recorded by ../record_adk_api.py with
the twin of recorded/agents/weather): per event, the same keys at every level, and
``turnComplete``, ``partial`` and ``nodeInfo`` exactly as google-adk has them, on ``/run`` and on
``/run_sse`` with streaming off and on, and in the stored session. Generated values (ids,
timestamps) may differ.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.serve.conftest import sse_events

from yadk.artifacts import InMemoryArtifactService
from yadk.models import BaseLlm, LlmRequest, LlmResponse, ScriptedModel
from yadk.serve import create_app
from yadk.sessions import InMemorySessionService
from yadk.types import Content, Part

RECORDED = Path(__file__).parent / "recorded"
RUNS: dict[str, Any] = json.loads((RECORDED / "api_events.json").read_text(encoding="utf-8"))


def event_keys(event: dict[str, Any]) -> Any:
    return keys(event)


def keys(value: Any) -> Any:
    """The value's keys at every level (lists item by item), without its values."""
    if isinstance(value, dict):
        return {key: keys(item) for key, item in value.items()}
    if isinstance(value, list):
        return [keys(item) for item in value]
    return None


def markers(events: list[dict[str, Any]]) -> list[tuple[Any, Any]]:
    return [(e.get("turnComplete"), e.get("partial")) for e in events]


async def serving(apps: Path, model: BaseLlm | None = None) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(
        apps,
        session_service=InMemorySessionService(),
        artifact_service=InMemoryArtifactService(),
        model=model,
    )
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            yield client


@pytest.fixture
def apps(tmp_path: Path) -> Path:
    target = tmp_path / "agents"
    shutil.copytree(RECORDED / "agents", target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


@pytest.fixture
async def weather(apps: Path) -> AsyncIterator[httpx.AsyncClient]:
    """The agent with the twin of the recording's model."""
    async for client in serving(apps):
        yield client


@pytest.fixture
async def weather_scripted(apps: Path) -> AsyncIterator[httpx.AsyncClient]:
    """The agent with yadk's own scripted model giving the same answers: a built-in backend,
    which must mark turns as google-adk's built-in backends do (not at all)."""
    turns = [
        {"function_calls": [{"name": "get_weather", "args": {"city": "Paris"}}]},
        {"text": "Sunny in Paris."},
    ]
    async for client in serving(apps, ScriptedModel(turns)):
        yield client


async def served(client: httpx.AsyncClient, name: str) -> tuple[Any, Any]:
    """The events yadk sends for the recorded run ``name``, and the session's stored events."""
    run = RUNS[name]
    sessions = "/apps/weather/users/u1/sessions"
    created = await client.post(sessions, json={"sessionId": name})
    assert created.status_code == 200, created.text
    response = await client.post(run["request"]["path"], json=run["request"]["body"])
    assert response.status_code == 200, response.text
    if run["request"]["path"] == "/run":
        events = response.json()
    else:
        events = sse_events(response.text)
    stored = (await client.get(f"{sessions}/{name}")).json()["events"]
    return events, stored


def test_the_recording_has_what_the_comparison_relies_on() -> None:
    assert list(RUNS) == ["run", "run_sse", "run_sse_streaming"]
    streamed = RUNS["run_sse_streaming"]["events"]
    assert [e.get("partial") for e in streamed] == [None, None, True, None]
    assert all("finishReason" in e for e in streamed if "usageMetadata" in e)


@pytest.mark.parametrize("name", ["run", "run_sse", "run_sse_streaming"])
async def test_events_have_google_adks_keys_and_turn_markers(
    weather: httpx.AsyncClient, name: str
) -> None:
    events, stored = await served(weather, name)
    recorded = RUNS[name]
    assert markers(events) == markers(recorded["events"])
    assert [event_keys(e) for e in events] == [event_keys(e) for e in recorded["events"]]
    assert markers(stored) == markers(recorded["stored"])
    assert [event_keys(e) for e in stored] == [event_keys(e) for e in recorded["stored"]]
    # The run path too: the agent's on each of its events, an empty one on the user's.
    assert [e["nodeInfo"] for e in events] == [e["nodeInfo"] for e in recorded["events"]]
    assert [e["nodeInfo"] for e in stored] == [e["nodeInfo"] for e in recorded["stored"]]


@pytest.mark.parametrize("name", ["run", "run_sse", "run_sse_streaming"])
async def test_a_built_in_backend_marks_no_turn_complete_as_in_google_adk(
    weather_scripted: httpx.AsyncClient, name: str
) -> None:
    events, stored = await served(weather_scripted, name)
    recorded = RUNS[name]
    # The scripted model streams its text in its own chunks: compare the events that are not
    # partial one by one, and that partial events come before the final text.
    finals = [e for e in events if not e.get("partial")]
    assert [e.get("turnComplete") for e in finals] == [
        e.get("turnComplete") for e in recorded["events"] if not e.get("partial")
    ]
    assert [e.get("turnComplete") for e in stored] == [
        e.get("turnComplete") for e in recorded["stored"]
    ]
    assert all("turnComplete" not in e for e in events)
    if name == "run_sse_streaming":
        assert [bool(e.get("partial")) for e in events][-1] is False
        assert any(e.get("partial") for e in events)
    else:
        assert not any(e.get("partial") for e in events)


class _SaysTurnComplete(BaseLlm):
    model = "says-turn-complete"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        yield LlmResponse(
            content=Content(role="model", parts=[Part(text="Done.")]), turn_complete=True
        )


async def test_a_model_that_sets_turn_complete_has_it_sent(apps: Path) -> None:
    async for client in serving(apps, _SaysTurnComplete()):
        await client.post("/apps/weather/users/u1/sessions", json={"sessionId": "s"})
        body = RUNS["run"]["request"]["body"] | {"sessionId": "s"}
        response = await client.post("/run", json=body)
    assert [(e["content"]["parts"], e.get("turnComplete")) for e in response.json()] == [
        ([{"text": "Done."}], True)
    ]
