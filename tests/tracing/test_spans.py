"""yadk's spans against google-adk 2.13's, recorded on the same scenarios (record_adk.py).

Names, kinds, the parent of every span, attributes, status and span events must be equal, after
the differences yadk makes on purpose, each applied by one function below:

* a tool that raises is reported to the model (yadk's rule for every tool error), so the
  invocation goes on: one more ``generate_content`` span, and the agent's and invocation's spans
  do not fail; the tool span names the real call id, and (content captured) carries the error
  result the model got;
* content "in events" (``EVENT_ONLY``, ``SPAN_AND_EVENT``) goes on a span event named as
  google-adk's log record, ``gen_ai.client.inference.operation.details`` (yadk emits no
  OpenTelemetry logs: that API is still private in opentelemetry-python);
* an exception's message is content: without capture a failed span's status and its
  ``exception`` event name the type only (google-adk records the message); a failed tool span
  has one ``exception`` event (google-adk's has it twice);
* a model call that raised: yadk's spans record its ``ModelError``, the call's span carries
  ``error.type`` and the agent's span does not fail.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from tests.tracing.kit import run_scenario

RECORDED = Path(__file__).parent / "recorded"


def recorded(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((RECORDED / f"{name}.json").read_text())
    data.pop("error")
    return data


@pytest.mark.parametrize(
    "name",
    [
        "transfer_and_tool",
        "transfer_and_tool_span_only",
        "workflow",
        "sequential",
        "loop",
        "nested_workflow",
    ],
)
async def test_spans_are_google_adks(name: str) -> None:
    assert await run_scenario(name) == recorded(name)


@pytest.mark.parametrize(
    "name",
    ["transfer_and_tool_span_only", "transfer_and_tool_ignore_run_config"],
)
@pytest.mark.parametrize("telemetry", [True, False], ids=["TelemetryConfig", "yadk"])
async def test_the_run_configs_content_capture_is_google_adks(name: str, telemetry: bool) -> None:
    """google-adk's ``RunConfig(telemetry=TelemetryConfig(capture_message_content=...))`` and
    yadk's ``RunConfig(capture_message_content=...)`` capture alike, and the operator's
    ``ADK_TELEMETRY_IGNORE_RUN_CONFIG`` overrides both."""
    assert await run_scenario(name, telemetry=telemetry) == recorded(name)


def _tree(rows: dict[str, Any]) -> list[str]:
    """The spans as their paths from the root (with attributes, status, events), sorted: the
    shape, whatever order concurrent branches started in."""
    spans = rows["spans"]

    def path(index: int | None) -> list[str]:
        return [] if index is None else [*path(spans[index]["parent"]), spans[index]["name"]]

    return sorted(
        json.dumps(
            [path(i), span["attributes"], span["status"], span["events"], span["kind"]],
            sort_keys=True,
        )
        for i, span in enumerate(spans)
    )


async def test_parallel_branches_nest_as_google_adks() -> None:
    rows = await run_scenario("parallel")
    assert rows["traces"] == 1
    assert _tree(rows) == _tree(recorded("parallel"))


DETAILS = "gen_ai.client.inference.operation.details"


@pytest.mark.parametrize("telemetry", [True, False], ids=["TelemetryConfig", "yadk"])
async def test_content_in_events_is_a_span_event_of_each_model_call(telemetry: bool) -> None:
    """The variable's capture; with ``telemetry``, through a ``TelemetryConfig`` whose field is
    unset, which reads the variable when it is made."""
    name = "transfer_and_tool_env_span_and_event"
    rows = await run_scenario(name, telemetry=telemetry)
    for span in rows["spans"]:
        details = [e for e in span["events"] if e["name"] == DETAILS]
        span["events"] = [e for e in span["events"] if e["name"] != DETAILS]
        if not span["name"].startswith("generate_content"):
            assert details == []
            continue
        (event,) = details
        attributes = span["attributes"]
        assert event["attributes"] == {
            key: attributes[key]
            for key in (
                "gen_ai.input.messages",
                "gen_ai.system_instructions",
                "gen_ai.output.messages",
            )
        }
    assert rows == recorded(name)


async def test_event_only_keeps_content_off_the_span_attributes() -> None:
    rows = await run_scenario("transfer_and_tool", capture_message_content="EVENT_ONLY")
    plain = recorded("transfer_and_tool")
    for span, adk in zip(rows["spans"], plain["spans"], strict=True):
        events = [e for e in span["events"] if e["name"] == DETAILS]
        assert len(events) == (1 if span["name"].startswith("generate_content") else 0)
        if events:
            messages = json.loads(events[0]["attributes"]["gen_ai.input.messages"])
            assert messages[0]["parts"][0]["content"] == "weather in Paris?"
        assert span["attributes"] == adk["attributes"]


def _tool_error_as_yadk(adk: dict[str, Any], *, captured: bool) -> dict[str, Any]:
    expected = copy.deepcopy(adk)
    spans = expected["spans"]
    for span in spans[:2]:  # the invocation and the agent go on
        span["status"] = {"code": "UNSET", "description": None}
        span["events"] = []
    tool = spans[3]
    tool["attributes"]["gen_ai.tool.call.id"] = "call-9"
    tool["attributes"]["gcp.vertex.agent.event_id"] = "<event-id>"
    if captured:
        tool["attributes"]["gen_ai.tool.call.result"] = json.dumps(
            {"error": "Tool 'explode' raised ValueError: tool failed: secret detail"}
        )
        tool["events"] = tool["events"][:1]
    else:
        _without_message(tool)
        tool["events"] = tool["events"][:1]
    answer = copy.deepcopy(spans[2])  # the model hears the error and answers
    answer["attributes"] = {
        k: v for k, v in answer["attributes"].items() if not k.startswith("gen_ai.output")
    }
    spans.append(answer)
    return expected


@pytest.mark.parametrize("captured", [False, True])
async def test_a_failing_tool(captured: bool) -> None:
    name = "tool_error_span_only" if captured else "tool_error"
    spans = await run_scenario(name)
    expected = _tool_error_as_yadk(recorded(name), captured=captured)
    if captured:  # the second call's messages hold the error; compared on their own below
        answer = spans["spans"][4]["attributes"]
        messages = json.loads(answer.pop("gen_ai.input.messages"))
        assert messages[-1]["parts"][0]["type"] == "tool_call_response"
        assert json.loads(answer.pop("gen_ai.output.messages"))[0]["parts"] == [
            {"content": "Sorry, that failed.", "type": "text"}
        ]
        expected["spans"][4]["attributes"].pop("gen_ai.input.messages")
    assert spans == expected


async def test_one_trace_per_invocation_and_spans_end_in_order() -> None:
    rows = await run_scenario("transfer_and_tool")
    assert rows["traces"] == 1
    names = [span["name"] for span in rows["spans"]]
    assert names.count("invoke_workflow root") == 1


def _without_message(span: dict[str, Any]) -> None:
    """A failed span with content capture off, as yadk ends it: the exception's message is
    content, so the status names the type only and the ``exception`` events leave the message
    out (google-adk records it)."""
    for event in span["events"]:
        del event["attributes"]["exception.message"]
    span["status"]["description"] = span["events"][0]["attributes"]["exception.type"]


@pytest.mark.parametrize(
    "name", ["retried_node", "retried_node_fails", "retried_node_fails_span_only"]
)
async def test_each_attempt_of_a_retried_node_has_its_span(name: str) -> None:
    """As google-adk: one ``invoke_node`` span per attempt; a failed attempt's span fails, with
    an ``exception`` event and no ``error.type``, and the error event between the attempts
    belongs to neither; a retry that succeeds leaves the invocation's span unfailed, a node that
    fails for good fails it as its exception."""
    expected = recorded(name)
    if not name.endswith("span_only"):
        for span in expected["spans"]:
            if span["status"]["code"] == "ERROR":
                _without_message(span)
    assert await run_scenario(name) == expected


@pytest.mark.parametrize("name", ["nested_workflow_fails", "nested_workflow_fails_span_only"])
async def test_a_failed_node_fails_the_workflows_around_it(name: str) -> None:
    """As google-adk: the node's span, the nested workflow's and the invocation's fail with the
    node's exception; the nested workflow's status (content captured) is the message alone."""
    expected = recorded(name)
    assert expected["spans"][1]["status"]["description"] == "inner node fails"
    if not name.endswith("span_only"):
        for span in expected["spans"]:
            _without_message(span)
    assert await run_scenario(name) == expected


async def test_the_failed_invocations_span_records_its_exception() -> None:
    """The exception that ended the invocation, on the invocation's span as on the node's:
    status, ``exception`` event, stack trace (content captured)."""
    out: dict[str, Any] = {}
    await run_scenario("retried_node_fails_span_only", out=out)
    root = next(span for span in out["spans"] if span.parent is None)
    (event,) = root.events
    assert event.attributes["exception.stacktrace"].endswith("ValueError: always fails\n")


async def test_an_error_code_no_exception_caused_leaves_the_invocation_unfailed() -> None:
    """As google-adk: a model's answer with an error code (a refusal) ends the invocation with
    an error event, and no span fails."""
    assert await run_scenario("model_error_code") == recorded("model_error_code")


@pytest.mark.parametrize("name", ["model_raises", "model_raises_span_only"])
async def test_a_model_that_raised_fails_the_invocations_span(name: str) -> None:
    """The invocation's span fails as google-adk's, with the exception yadk ends the invocation
    with: yadk's ``ModelError``, whose message names the model and quotes the model's own
    exception (google-adk's records that exception itself). Where yadk differs: the model call's
    span carries ``error.type`` and the agent's span does not fail."""
    adk = recorded(name)["spans"]
    expected = adk[0]
    (event,) = expected["events"]
    assert event["attributes"]["exception.type"] == "RuntimeError"
    event["attributes"]["exception.type"] = "yadk.errors.ModelError"
    if name.endswith("span_only"):
        message = "Model 'gemini-2.5-flash' failed: RuntimeError: model unavailable: secret detail"
        event["attributes"]["exception.message"] = message
        expected["status"]["description"] = f"ModelError: {message}"
    else:
        _without_message(expected)
        expected["status"]["description"] = "ModelError"
    root, agent, model = (await run_scenario(name))["spans"]
    assert root == expected
    assert (agent["name"], agent["status"]["code"], adk[1]["status"]["code"]) == (
        "invoke_agent broken",
        "UNSET",
        "ERROR",
    )
    assert model["attributes"]["error.type"] == "ModelError"
    assert "error.type" not in adk[2]["attributes"]


async def test_a_node_called_as_a_tool_is_traced_again_when_resumed() -> None:
    """As google-adk: the call that asked has its ``execute_tool`` span beside the node's
    ``invoke_node``, naming neither the call id (``<not specified>``) nor a response event (there
    is none yet); when the answer resumes it, the call gets a new ``execute_tool`` span, naming
    both, and the node another ``invoke_node``."""
    expected = recorded("node_tool_asks")
    asked = expected["spans"][3]
    assert (asked["name"], asked["attributes"]["gen_ai.tool.call.id"]) == (
        "execute_tool buy",
        "<not specified>",
    )
    assert await run_scenario("node_tool_asks") == expected


@pytest.mark.parametrize("name", ["long_running_waits", "long_running_waits_span_only"])
async def test_a_long_running_call_that_answered_nothing_names_no_call_id(name: str) -> None:
    """As google-adk, which reads the call id from the response event: a long-running tool that
    returned nothing has none yet, so its span says ``<not specified>``, names no response event
    and (content captured) carries the arguments but no result."""
    expected = recorded(name)
    tool = expected["spans"][3]["attributes"]
    assert tool["gen_ai.tool.call.id"] == "<not specified>"
    assert "gcp.vertex.agent.event_id" not in tool
    assert await run_scenario(name) == expected


async def test_a_waiting_calls_span_with_content_captured() -> None:
    """The asking call's span carries its arguments, and no result until the resumed call's.
    The tool spans compared (the model spans' tool definitions differ: google-adk titles the
    node's parameter schema ``buyParams``)."""

    def tool_spans(rows: dict[str, Any]) -> list[dict[str, Any]]:
        return [span for span in rows["spans"] if span["name"] == "execute_tool buy"]

    expected = tool_spans(recorded("node_tool_asks_span_only"))
    assert [span["attributes"].get("gen_ai.tool.call.result") for span in expected] == [
        None,
        '{"bought": "tea"}',
    ]
    assert tool_spans(await run_scenario("node_tool_asks_span_only")) == expected


async def test_the_resumed_calls_span_names_its_response_event() -> None:
    out: dict[str, Any] = {}
    await run_scenario("node_tool_asks", out=out)
    tool_spans = [s for s in out["spans"] if s.name == "execute_tool buy"]
    assert "gcp.vertex.agent.event_id" not in tool_spans[0].attributes
    (response,) = [
        e for e in out["events"] if [r.name for r in e.get_function_responses()] == ["buy"]
    ]
    assert tool_spans[1].attributes["gcp.vertex.agent.event_id"] == response.id
