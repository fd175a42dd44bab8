"""The web UI's trace ring and routes: the ring's bounds on real SDK spans, and the routes of a
real ``yadk web`` on 127.0.0.1 against what google-adk 2.13's dev server answers
(``recorded/adk_traces.json``, written by ``record_adk_traces.py``)."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from tests.tracing.kit import Canned
from tests.web.conftest import WebServer

from yadk import LlmAgent, Runner
from yadk.runner import RunConfig
from yadk.serve._devtraces import (
    FORCED_OFF_HINT,
    INSTALL_HINT,
    WebTracing,
    start_web_tracing,
    trace_routes,
)
from yadk.serve._tracering import DETAILS_EVENT, SpanRecord, TraceRing
from yadk.testing import ScriptedModel
from yadk.types import Content, Part

RECORDED = json.loads((Path(__file__).parent / "recorded" / "adk_traces.json").read_text())


def _provider(ring: TraceRing) -> TracerProvider:
    provider = TracerProvider()
    provider.add_span_processor(ring)
    return provider


def _invocation(
    provider: TracerProvider, session: str, *, children: int = 1, text: str = ""
) -> None:
    """One trace: a root span with ``children`` child spans, as an invocation's."""
    from opentelemetry.trace import set_span_in_context

    tracer = provider.get_tracer("test")
    root = tracer.start_span(
        "invoke_workflow w",
        attributes={"gen_ai.operation.name": "invoke_workflow", "gen_ai.conversation.id": session},
    )
    for i in range(children):
        child = tracer.start_span(
            f"generate_content m{i}",
            context=set_span_in_context(root),
            attributes={
                "gen_ai.operation.name": "generate_content",
                "gcp.vertex.agent.event_id": f"{session}-e{i}",
                "big": text,
            },
        )
        child.end()
    root.end()


def test_the_ring_keeps_the_latest_invocations_only() -> None:
    ring = TraceRing(max_traces=2)
    provider = _provider(ring)
    for session in ("s1", "s2", "s3"):
        _invocation(provider, session)
    assert ring.session_spans("s1") == []
    assert [s.name for s in ring.session_spans("s3")] == [
        "generate_content m0",
        "invoke_workflow w",
    ]
    assert ring.stats()["traces"] == 2 and ring.stats()["spans"] == 4
    assert ring.event_span("s1-e0") is None
    found = ring.event_span("s2-e0")
    assert found is not None and found.name == "generate_content m0"


def test_the_ring_is_bounded_by_spans_and_bytes() -> None:
    ring = TraceRing(max_spans=10)
    provider = _provider(ring)
    for session in ("a", "b", "c"):
        _invocation(provider, session, children=3)  # 4 spans each
    assert ring.stats() == {**ring.stats(), "traces": 2, "spans": 8}
    assert ring.session_spans("a") == []

    ring = TraceRing(max_bytes=30_000)
    provider = _provider(ring)
    for session in ("a", "b", "c"):
        _invocation(provider, session, text="x" * 10_000)
    assert ring.stats()["bytes"] <= 30_000
    assert ring.session_spans("a") == [] and ring.session_spans("c") != []


def test_a_trace_larger_than_the_ring_keeps_its_first_spans_and_counts_the_rest() -> None:
    ring = TraceRing(max_spans=3)
    provider = _provider(ring)
    _invocation(provider, "big", children=5)
    (kept,) = ring.invocations("big")
    assert len(kept["spans"]) == 3 and kept["dropped"] == 3
    assert ring.stats()["spans"] == 3


def test_web_requests_without_an_invocation_never_push_invocations_out() -> None:
    from opentelemetry.trace import set_span_in_context

    ring = TraceRing(max_traces=2)
    provider = _provider(ring)
    tracer = provider.get_tracer("test")
    # a request that runs an invocation: its first span to end is the server's own
    request = tracer.start_span("POST /run", attributes={"http.route": "/run"})
    inside = set_span_in_context(request)
    tracer.start_span("fastapi.dependencies", context=inside).end()
    invocation = tracer.start_span(
        "invoke_workflow w",
        context=inside,
        attributes={"gen_ai.operation.name": "invoke_workflow", "gen_ai.conversation.id": "s1"},
    )
    invocation.end()
    request.end()
    for _ in range(300):  # the page's other requests: no span of yadk's
        tracer.start_span("GET /apps/{app}/users/{user}/sessions/{session}").end()
    assert [s.name for s in ring.session_spans("s1")] == [
        "fastapi.dependencies",
        "invoke_workflow w",
        "POST /run",
    ]
    assert ring.stats()["traces"] == 1


def test_a_span_the_ring_cannot_read_never_breaks_the_run(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    ring = TraceRing()
    provider = _provider(ring)

    def unreadable(cls: type[SpanRecord], span: Any) -> SpanRecord:
        raise AttributeError("a span this ring does not know how to read")

    monkeypatch.setattr(SpanRecord, "of", classmethod(unreadable))
    _invocation(provider, "s1")  # the spans end without an error
    _invocation(provider, "s2")
    assert ring.stats()["spans"] == 0
    assert caplog.text.count("could not read") == 1  # logged once, not per span


def test_a_ring_needs_room() -> None:
    with pytest.raises(ValueError, match="at least one"):
        TraceRing(max_traces=0)


async def test_a_traced_run_gives_the_waterfall_of_each_invocation() -> None:
    ring = TraceRing()
    provider = _provider(ring)
    model = Canned([("call", "get_weather", {"city": "Paris"}, "c1"), "Sunny."])

    def get_weather(city: str) -> dict[str, str]:
        """The weather in a city."""
        raise RuntimeError("the weather service is down")

    agent = LlmAgent(name="weather", model=model, tools=[get_weather])
    runner = Runner(agent=agent, app_name="app")
    await runner.session_service.create_session(app_name="app", user_id="u", session_id="s1")
    events = [
        e
        async for e in runner.run_async(
            user_id="u",
            session_id="s1",
            new_message=Content(role="user", parts=[Part(text="Weather in Paris?")]),
            run_config=RunConfig(tracer_provider=provider),
        )
    ]
    (invocation,) = ring.invocations("s1")
    assert invocation["invocationId"] == events[0].invocation_id
    names = [s["name"] for s in invocation["spans"]]
    assert names == [
        "invoke_workflow weather",
        "invoke_agent weather",
        "generate_content gemini-2.5-flash",
        "execute_tool get_weather",
        "generate_content gemini-2.5-flash",
    ]
    root, agent_span, first_call, tool, _ = invocation["spans"]
    assert root["parentId"] is None and agent_span["parentId"] == root["spanId"]
    assert (
        first_call["parentId"] == agent_span["spanId"] and tool["parentId"] == agent_span["spanId"]
    )
    assert tool["status"] == "ERROR" and tool["attributes"]["error.type"] == "RuntimeError"
    assert first_call["attributes"]["gen_ai.usage.input_tokens"] == 10
    assert root["start"] <= first_call["start"] <= first_call["end"] <= root["end"]
    assert set(invocation["eventIds"]) >= {e.id for e in events if e.author == "weather"}


async def test_captured_content_is_each_model_call_s_log_in_google_adk_s_json() -> None:
    ring = TraceRing()
    provider = _provider(ring)
    runner = Runner(
        agent=LlmAgent(name="a", model=ScriptedModel([{"text": "Hi."}])), app_name="app"
    )
    await runner.session_service.create_session(app_name="app", user_id="u", session_id="s1")
    config = RunConfig(tracer_provider=provider, capture_message_content="EVENT_ONLY")
    message = Content(role="user", parts=[Part(text="Hello")])
    async for _ in runner.run_async(
        user_id="u", session_id="s1", new_message=message, run_config=config
    ):
        pass
    spans = [s.adk_json() for s in ring.session_spans("s1")]
    call = next(s for s in spans if s["name"].startswith("generate_content"))
    (log,) = call["logs"]
    assert log["event_name"] == DETAILS_EVENT
    assert "Hello" in log["attributes"]["gen_ai.input.messages"]
    assert "Hi." in log["attributes"]["gen_ai.output.messages"]


@pytest.mark.subprocess
def test_without_the_sdk_the_trace_route_says_how_to_turn_tracing_on() -> None:
    code = (
        "import sys; sys.modules['opentelemetry.sdk'] = None\n"
        "from yadk.serve._devtraces import start_web_tracing\n"
        "t = start_web_tracing(); print(t.ring is None); print(t.hint)\n"
        "print('opentelemetry.trace' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["True", INSTALL_HINT, "False"]
    assert "pip install 'yadk[otel]'" in INSTALL_HINT


def test_yadk_tracing_0_keeps_the_ring_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("YADK_TRACING", "0")
    tracing = start_web_tracing()
    assert tracing.ring is None and "YADK_TRACING" in tracing.hint
    assert len(trace_routes(WebTracing(None))) == 3


# --- the routes of a real yadk web -----------------------------------------------------------

WEATHER = """\
name: weather
description: Answers about the weather.
instruction: Answer about the weather with get_weather.
model: scripted:scripted.yaml
tools:
  - name: .tools.get_weather
"""
SCRIPT = """\
turns:
  - function_calls: [{name: get_weather, args: {city: Paris}}]
  - text: Sunny.
"""
TOOLS = '''\
def get_weather(city: str) -> dict[str, str]:
    """The weather in a city."""
    return {"city": city, "weather": "sunny"}
'''


def _get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def _post(url: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


@pytest.fixture
def weather(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "agents" / "weather"
    folder.mkdir(parents=True)
    (folder / "root_agent.yaml").write_text(WEATHER)
    (folder / "scripted.yaml").write_text(SCRIPT)
    (folder / "tools.py").write_text(TOOLS)
    monkeypatch.delenv("YADK_TRACING", raising=False)
    return folder.parent


def _run_turn(url: str) -> list[dict[str, Any]]:
    _post(f"{url}apps/weather/users/u/sessions/s1", {})
    events: list[dict[str, Any]] = _post(
        f"{url}run",
        {
            "app_name": "weather",
            "user_id": "u",
            "session_id": "s1",
            "new_message": {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
        },
    )
    return events


def _kind(name: str) -> str:
    """A span's name without the model's (the recording's is Gemini's, this one scripted)."""
    return "generate_content" if name.startswith("generate_content") else name


def _shape(value: Any) -> str:
    return type(value).__name__


@pytest.mark.subprocess
def test_google_adk_s_trace_routes_answer_as_google_adk_2_13_s(
    weather: Path, web_at: Callable[..., WebServer]
) -> None:
    server = web_at(weather)
    events = _run_turn(server.url)
    status, spans = _get(f"{server.url}dev/apps/weather/debug/trace/session/s1")
    assert status == 200
    adk_spans = RECORDED["spans"]
    # FastAPI traces the request in both servers: the invocation's spans sit under POST /run
    assert sorted(_kind(s["name"]) for s in spans) == sorted(_kind(s["name"]) for s in adk_spans)
    by_id = {s["span_id"]: s for s in spans}
    for span in spans:
        want = next(s for s in adk_spans if _kind(s["name"]) == _kind(span["name"]))
        assert sorted(span) == want["keys"]
        assert {k: _shape(v) for k, v in span.items()} == want["types"], span["name"]
        assert set(want["attributes"]) - {
            "gen_ai.usage.input_tokens",
            "gen_ai.usage.output_tokens",
        } <= set(span["attributes"]), span["name"]  # the scripted model reports no tokens
        parent = by_id.get(span["parent_span_id"])
        wanted_parent = None if want["parent"] is None else adk_spans[want["parent"]]["name"]
        assert (parent and _kind(parent["name"])) == (wanted_parent and _kind(wanted_parent))

    tool_event = next(
        e for e in events if any("functionResponse" in p for p in e["content"]["parts"])
    )
    for label, event in (("tool_response", tool_event), ("final_answer", events[-1])):
        status, body = _get(f"{server.url}dev/apps/weather/debug/trace/{event['id']}")
        want = RECORDED["event"][label]
        assert status == want["status"]
        tokens = {"gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"}
        assert set(want["keys"]) - tokens <= set(body), label
        assert {k: _shape(body[k]) for k in set(want["keys"]) - tokens} == {
            k: v for k, v in want["types"].items() if k not in tokens
        }
        assert by_id[body["span_id"]]["name"].split()[0] == want["span_name"].split()[0]
        assert body["gcp.vertex.agent.event_id"] == event["id"]

    assert _get(f"{server.url}dev/apps/weather/debug/trace/nope") == (
        RECORDED["unknown_event"]["status"],
        RECORDED["unknown_event"]["body"],
    )
    assert _get(f"{server.url}dev/apps/weather/debug/trace/session/nope") == (
        RECORDED["unknown_session"]["status"],
        RECORDED["unknown_session"]["body"],
    )

    status, mine = _get(f"{server.url}dev/apps/weather/users/u/sessions/s1/traces")
    assert status == 200 and mine["enabled"] is True
    (invocation,) = mine["invocations"]
    assert invocation["invocationId"] == events[0]["invocationId"]
    assert {e["id"] for e in events} <= set(invocation["eventIds"])


@pytest.mark.subprocess
def test_with_tracing_off_the_routes_answer_empty_and_say_why(
    weather: Path, web_at: Callable[..., WebServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("YADK_TRACING", "0")
    server = web_at(weather)
    assert "YADK_TRACING" in server.line_with("Tracing is off")
    events = _run_turn(server.url)
    assert _get(f"{server.url}dev/apps/weather/debug/trace/session/s1") == (200, [])
    assert _get(f"{server.url}dev/apps/weather/debug/trace/{events[-1]['id']}")[0] == 404
    assert _get(f"{server.url}dev/apps/weather/users/u/sessions/s1/traces")[1] == {
        "enabled": False,
        "hint": FORCED_OFF_HINT,
        "invocations": [],
    }


def test_the_docs_state_the_ring_s_bounds_routes_and_the_off_line() -> None:
    root = Path(__file__).parents[2] / "docs"
    web, tracing = (root / "web.md").read_text(), (root / "tracing.md").read_text()
    ring = TraceRing()
    bounds = f"{ring.max_traces} invocations, {ring.max_spans:,} spans and about {ring.max_bytes >> 20} MB"
    assert bounds in " ".join(web.split())
    assert (
        f"at most {ring.max_traces} invocations, {ring.max_spans:,} spans, about {ring.max_bytes >> 20} MB"
        in " ".join(tracing.split())
    )
    assert f"yadk web: {INSTALL_HINT}" in " ".join(web.split())
    for route in trace_routes(WebTracing(None)):
        assert route.path.replace("{session}", "{id}").replace("{event}", "{event_id}") in web
    assert "(web/trace.png)" in web and "(web/trace.png)" in tracing
    assert (root / "web" / "trace.png").is_file()
