"""The Trace tab in a real browser: Chromium (playwright) against a real ``yadk web`` process,
its spans kept by the process's trace ring (the OpenTelemetry SDK is installed in the tests)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.subprocess, pytest.mark.browser]

Page = Any  # conftest.Page: one browser tab on the UI
WebServer = Any  # conftest.WebServer

FORECAST = Path(__file__).parent / "forecast"


@pytest.fixture
def forecast(tmp_path: Path) -> Path:
    """A copy of ``tests/web/forecast`` (its model reports tokens) in a folder of agents."""
    target = tmp_path / "agents" / "forecast"
    shutil.copytree(FORECAST, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target.parent


def _rows(trace: Any) -> Any:
    return trace.locator(".waterfall > li")


def test_an_event_opens_its_invocation_as_a_waterfall_with_tokens_errors_and_content(
    forecast: Path,
    web_at: Callable[..., WebServer],
    tab: Callable[..., Page],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "SPAN_ONLY")
    monkeypatch.delenv("YADK_TRACING", raising=False)
    server = web_at(forecast)
    page = tab()
    page.open(server.url)
    page.send("Weather in Paris?")
    page.answer("It is sunny in Paris.")
    page.send("Weather in Atlantis?")
    page.answer("The weather service failed.")

    # the first turn's answer: its "trace" button opens the first invocation
    events = page.page.locator("#panel-events .timeline > li")
    events.nth(7).wait_for()
    assert "It is sunny in Paris." in events.nth(3).locator("summary").inner_text()
    events.nth(3).locator("button.trace-link").click()
    assert page.page.get_by_role("tab", name="Trace").get_attribute("aria-selected") == "true"
    panel = page.page.get_by_role("tabpanel", name="Trace")
    opened = panel.locator("details.trace[open]")
    opened.wait_for()  # the tab asks for the spans when it is shown
    assert panel.locator("details.trace").count() == 2
    assert opened.count() == 1
    assert opened.get_attribute("aria-label") == "trace of turn 1"
    summary = opened.locator("summary").first.inner_text()
    assert "5 spans" in summary and "48 in · 12 out" in summary and "error" not in summary

    rows = _rows(opened)
    kinds = [rows.nth(i).get_attribute("data-kind") for i in range(rows.count())]
    labels = [rows.nth(i).locator(".trace-name").inner_text() for i in range(rows.count())]
    assert kinds == ["workflow", "agent", "model", "tool", "model"]
    assert labels == ["forecast", "forecast", "forecaster-1", "get_weather", "forecaster-1"]
    assert rows.nth(2).locator(".trace-tokens").inner_text() == "12 in · 6 out"
    assert rows.nth(4).locator(".trace-tokens").inner_text() == "36 in · 6 out"
    assert rows.nth(3).locator(".trace-tokens").count() == 0
    for i in range(rows.count()):
        assert rows.nth(i).locator(".trace-duration").inner_text().endswith(("ms", " s"))
    # the bars lie in time order within the invocation's
    boxes = [rows.nth(i).locator(".trace-bar").bounding_box() for i in range(rows.count())]
    assert all(box is not None for box in boxes)
    root = boxes[0]
    for box in boxes[1:]:
        assert (
            root["x"] - 1 <= box["x"] and box["x"] + box["width"] <= root["x"] + root["width"] + 1
        )
    assert boxes[2]["x"] <= boxes[3]["x"] <= boxes[4]["x"]

    # captured content: the tool's arguments and result, the model's output messages
    rows.nth(3).locator("summary").click()
    tool = rows.nth(3).locator(".span-details")
    assert '"city": "Paris"' in tool.locator(".trace-content", has_text="arguments").inner_text()
    assert '"weather": "sunny"' in tool.locator(".trace-content", has_text="result").inner_text()
    assert panel.locator(".legend").count() == 0  # no "content is not captured" note
    page.shot("trace")
    rows.nth(4).locator("summary").click()
    answer = rows.nth(4).locator(".trace-content", has_text="output messages")
    assert "It is sunny in Paris." in answer.inner_text()

    # the second turn's tool failed: its answer event opens a waterfall that says so
    page.tab("Events")
    events.nth(7).locator("button.trace-link").click()
    opened = panel.locator("details.trace[open]")
    assert opened.get_attribute("aria-label") == "trace of turn 2"
    assert "1 error" in opened.locator("summary").first.inner_text()
    failed = _rows(opened).and_(opened.locator("li.failed"))
    assert failed.count() == 1 and failed.get_attribute("data-kind") == "tool"
    assert failed.locator(".badge.error").inner_text() == "RuntimeError"
    failed.locator("summary").click()
    assert "no weather station in Atlantis" in failed.locator(".trace-error").inner_text()


def test_a_failed_model_call_is_marked_in_the_waterfall(
    web: Callable[..., WebServer], tab: Callable[..., Page], desk: Path
) -> None:
    script = desk.parent / "one_turn.yaml"
    script.write_text('turns:\n  - when: "(?i)hello"\n    text: Hello from the only turn.\n')
    server = web("--model", f"scripted:{script}")
    page = tab()
    page.open(server.url)
    page.send("hello")
    page.answer("Hello from the only turn.")
    page.send("and now?")  # no turn left: the model call fails
    page.page.locator(".msg.error[role='alert']").last.wait_for(timeout=30000)
    page.page.wait_for_selector("body[data-busy='0']", timeout=30000)
    panel = page.tab("Trace")
    opened = panel.locator("details.trace[open]")
    assert opened.get_attribute("aria-label") == "trace of turn 2"
    assert "2 errors" in opened.locator("summary").first.inner_text()  # the call and its agent
    failed = opened.locator(".waterfall > li.failed")
    kinds = [failed.nth(i).get_attribute("data-kind") for i in range(failed.count())]
    assert "model" in kinds, kinds
    model = opened.locator(".waterfall > li.failed[data-kind='model']").first
    assert model.locator(".badge.error").inner_text() != ""
    # every failed row names what failed: error.type, or the class of the recorded exception
    badges = [failed.nth(i).locator(".badge.error").inner_text() for i in range(failed.count())]
    assert badges and "error" not in badges, badges
    # content capture is off by default: the panel says how to turn it on
    assert (
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
        in panel.locator(".legend").inner_text()
    )


def test_with_tracing_off_the_trace_tab_says_how_to_turn_it_on(
    web: Callable[..., WebServer], tab: Callable[..., Page], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("YADK_TRACING", "0")
    server = web()
    page = tab()
    page.open(server.url)
    page.page.wait_for_selector("body[data-loaded='1']", timeout=30000)
    panel = page.tab("Trace")
    assert "YADK_TRACING" in panel.locator(".trace-off").inner_text()


def test_an_event_from_before_the_server_started_says_its_trace_is_not_kept(
    forecast: Path, web_at: Callable[..., WebServer], tab: Callable[..., Page]
) -> None:
    first = web_at(forecast)
    page = tab()
    page.open(first.url)
    page.send("Weather in Paris?")
    page.answer("It is sunny in Paris.")
    page.page.context.close()  # before its server goes: its event stream would fail
    first.stop()  # the ring goes with the process; the session stays in the SQLite file

    second = web_at(forecast)
    page = tab()
    page.open(second.url)
    events = page.page.locator("#panel-events .timeline > li")
    events.nth(3).wait_for()
    events.nth(3).locator("button.trace-link").click()
    missing = page.page.get_by_role("tabpanel", name="Trace").locator(".trace-missing")
    assert "No trace kept for invocation" in missing.inner_text()


def test_a_workflow_turn_shows_its_nodes(
    tmp_path: Path, web_at: Callable[..., WebServer], tab: Callable[..., Page]
) -> None:
    configs = Path(__file__).resolve().parents[2] / "configs"
    target = tmp_path / "apps" / "triage_workflow"
    shutil.copytree(
        configs / "triage_workflow", target, ignore=shutil.ignore_patterns("__pycache__")
    )
    server = web_at(target.parent)
    page = tab()
    page.open(server.url)
    page.send("How do I reset my password?")
    page.page.wait_for_selector("body[data-busy='0']", timeout=30000)
    panel = page.tab("Trace")
    opened = panel.locator("details.trace[open]")
    opened.wait_for()
    rows = _rows(opened)
    found = [
        (rows.nth(i).get_attribute("data-kind"), rows.nth(i).locator(".trace-name").inner_text())
        for i in range(rows.count())
    ]
    assert found[0] == ("workflow", "triage"), found  # the workflow's name
    nodes = [name for kind, name in found if kind == "node"]
    # every node the turn went through, in the order they started
    for node in ("classify", "check_tone", "check_length", "summarize"):
        assert node in nodes, found
    assert nodes.index("classify") < nodes.index("check_tone") < nodes.index("summarize")
    assert ("agent", "writer") in found
