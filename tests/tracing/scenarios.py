"""Tracing scenarios run twice: in google-adk 2.13 (record_adk.py) and in yadk (the tests).

Each scenario is a function of a ``kit`` holding one framework's names (``LlmAgent``,
``Workflow``, ``START``, ``model(name, turns)``), so the same agents run in both and the span trees
compare. A model turn is a text, ``("call", name, args, call_id)`` or a list of those; every
answer reports 10 prompt tokens and 4 output tokens. ``("raise", message)`` makes the model call
raise ``RuntimeError(message)``; ``("error", code, message)`` answers with an error code and no
content (as a model's refusal does).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

SESSION_ID = "s1"


@dataclass
class Scenario:
    agent: Any
    # A text, or {"answer": interrupt id, "response": {...}}: the user's answer to a question
    # (a function response to ``adk_request_input``).
    messages: list[Any] = field(default_factory=lambda: ["hi"])
    # RunConfig's content capture ("SPAN_ONLY", ...), or None for the default: google-adk's
    # RunConfig(telemetry=TelemetryConfig(capture_message_content=...)).
    capture: str | None = None
    # Environment variables set while the scenario runs.
    env: dict[str, str] = field(default_factory=dict)


SCENARIOS: dict[str, Callable[[Any], Scenario]] = {}

EVENT_ID_KEYS = {"gcp.vertex.agent.event_id", "gcp.vertex.agent.associated_event_ids"}
INVOCATION_ID_KEYS = {"gcp.vertex.agent.invocation_id"}


def _attributes(attributes: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in attributes.items():
        if key in EVENT_ID_KEYS:
            value = ["<event-id>"] * len(value) if isinstance(value, tuple) else "<event-id>"
        elif key in INVOCATION_ID_KEYS:
            value = "<invocation-id>"
        elif isinstance(value, tuple):
            value = list(value)
        out[key] = value
    return out


def span_rows(finished: Any) -> dict[str, Any]:
    """Finished SDK spans as the fixtures store them: in start order, each with the index of its
    parent, run-to-run ids replaced, exception stack traces left out."""
    spans = sorted(finished, key=lambda s: s.start_time)
    index = {span.context.span_id: i for i, span in enumerate(spans)}
    rows = []
    for span in spans:
        rows.append(
            {
                "name": span.name,
                "kind": span.kind.name,
                "parent": index.get(span.parent.span_id) if span.parent else None,
                "attributes": _attributes(span.attributes),
                "status": {
                    "code": span.status.status_code.name,
                    "description": span.status.description,
                },
                "events": [
                    {
                        "name": event.name,
                        "attributes": {
                            k: v for k, v in event.attributes.items() if k != "exception.stacktrace"
                        },
                    }
                    for event in span.events
                ],
            }
        )
    return {"traces": len({span.context.trace_id for span in spans}), "spans": rows}


def scenario(fn: Callable[[Any], Scenario]) -> Callable[[Any], Scenario]:
    SCENARIOS[fn.__name__] = fn
    return fn


def get_weather(city: str) -> dict[str, str]:
    """Returns the weather in a city."""
    return {"city": city, "weather": "sunny"}


def explode(reason: str) -> dict[str, str]:
    """Always fails."""
    raise ValueError(f"tool failed: {reason}")


def _transfer(k: Any) -> Any:
    helper = k.LlmAgent(
        name="helper",
        description="Answers weather questions.",
        instruction="Use get_weather.",
        model=k.model(
            "helper",
            [("call", "get_weather", {"city": "Paris"}, "call-2"), "It is sunny in Paris."],
        ),
        tools=[get_weather],
    )
    return k.LlmAgent(
        name="root",
        description="Routes questions.",
        instruction="Transfer weather questions to helper.",
        model=k.model("root", [("call", "transfer_to_agent", {"agent_name": "helper"}, "call-1")]),
        sub_agents=[helper],
    )


@scenario
def transfer_and_tool(k: Any) -> Scenario:
    return Scenario(_transfer(k), messages=["weather in Paris?"])


@scenario
def transfer_and_tool_span_only(k: Any) -> Scenario:
    return Scenario(_transfer(k), messages=["weather in Paris?"], capture="SPAN_ONLY")


@scenario
def transfer_and_tool_env_span_and_event(k: Any) -> Scenario:
    return Scenario(
        _transfer(k),
        messages=["weather in Paris?"],
        env={"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "SPAN_AND_EVENT"},
    )


@scenario
def transfer_and_tool_ignore_run_config(k: Any) -> Scenario:
    """The operator's lock: the RunConfig asks for content, the environment keeps it off."""
    return Scenario(
        _transfer(k),
        messages=["weather in Paris?"],
        capture="SPAN_ONLY",
        env={"ADK_TELEMETRY_IGNORE_RUN_CONFIG": "1"},
    )


@scenario
def workflow(k: Any) -> Scenario:
    def prepare(node_input: str) -> str:
        return "topic: " + node_input

    writer = k.LlmAgent(
        name="writer",
        description="Writes one line.",
        instruction="Write one line.",
        model=k.model("writer", ["A line about the sea."]),
    )
    return Scenario(k.Workflow(name="flow", edges=[(k.START, prepare, writer)]), messages=["sea"])


@scenario
def tool_error(k: Any) -> Scenario:
    agent = k.LlmAgent(
        name="fragile",
        description="Calls a tool that fails.",
        instruction="Call explode.",
        # google-adk ends the invocation when the tool raises; yadk tells the model, which
        # answers with the second turn.
        model=k.model(
            "fragile",
            [("call", "explode", {"reason": "secret detail"}, "call-9"), "Sorry, that failed."],
        ),
        tools=[explode],
    )
    return Scenario(agent, messages=["go"])


@scenario
def tool_error_span_only(k: Any) -> Scenario:
    scenario_ = tool_error(k)
    scenario_.capture = "SPAN_ONLY"
    return scenario_


@scenario
def sequential(k: Any) -> Scenario:
    first = k.LlmAgent(name="first", description="One.", model=k.model("first", ["one"]))
    second = k.LlmAgent(name="second", description="Two.", model=k.model("second", ["two"]))
    return Scenario(k.SequentialAgent(name="seq", description="Both.", sub_agents=[first, second]))


@scenario
def nested_workflow(k: Any) -> Scenario:
    def shout(node_input: str) -> str:
        return node_input.upper()

    inner = k.Workflow(name="inner", edges=[(k.START, shout)])

    def finish(node_input: str) -> str:
        return node_input + "!"

    return Scenario(k.Workflow(name="outer", edges=[(k.START, inner, finish)]), messages=["x"])


@scenario
def parallel(k: Any) -> Scenario:
    left = k.LlmAgent(name="left", description="L.", model=k.model("left", ["l"]))
    right = k.LlmAgent(name="right", description="R.", model=k.model("right", ["r"]))
    return Scenario(k.ParallelAgent(name="both", description="Both.", sub_agents=[left, right]))


@scenario
def loop(k: Any) -> Scenario:
    step = k.LlmAgent(name="step", description="S.", model=k.model("step", ["one", "two"]))
    return Scenario(
        k.LoopAgent(name="again", description="Twice.", sub_agents=[step], max_iterations=2)
    )


@scenario
def retried_node(k: Any) -> Scenario:
    """A node that fails its first attempt and succeeds on its retry."""
    attempts: list[int] = []

    def flaky(node_input: str) -> str:
        attempts.append(1)
        if len(attempts) == 1:
            raise ValueError("first attempt fails")
        return node_input + " done"

    retried = k.node(flaky, retry_config=k.RetryConfig(max_attempts=3, initial_delay=0, jitter=0))
    return Scenario(k.Workflow(name="flow", edges=[(k.START, retried)]), messages=["job"])


@scenario
def retried_node_fails(k: Any) -> Scenario:
    """A node that fails every one of its attempts: the workflow fails."""

    def broken(node_input: str) -> str:
        raise ValueError("always fails")

    retried = k.node(broken, retry_config=k.RetryConfig(max_attempts=2, initial_delay=0, jitter=0))
    return Scenario(k.Workflow(name="flow", edges=[(k.START, retried)]), messages=["job"])


@scenario
def node_tool_asks(k: Any) -> Scenario:
    """A node called as a tool asks the user; the next message answers and it is resumed."""

    @k.node(rerun_on_resume=True)
    def buy(item: str, ctx: Any):  # type: ignore[no-untyped-def]
        """Buys an item once the user agrees."""
        answer = ctx.resume_inputs.get("agree")
        if answer is None:
            yield k.RequestInput(interrupt_id="agree", message=f"Buy {item}?")
            return
        yield k.Event(output={"bought": item if answer == "yes" else None})

    shop = k.LlmAgent(
        name="shop",
        description="Buys things.",
        instruction="Buy what the user asks for.",
        model=k.model("shop", [("call", "buy", {"item": "tea"}, "call-buy"), "Bought the tea."]),
        tools=[buy],
    )
    return Scenario(shop, messages=["buy tea", {"answer": "agree", "response": {"result": "yes"}}])


def ask_approval(amount: int) -> None:
    """Asks a person to approve a payment; the answer comes later."""
    return None


@scenario
def long_running_waits(k: Any) -> Scenario:
    """A long-running tool that answers nothing yet: the call waits, with no response event."""
    agent = k.LlmAgent(
        name="payer",
        description="Pays after approval.",
        instruction="Ask for approval.",
        model=k.model("payer", [("call", "ask_approval", {"amount": 5}, "call-pay")]),
        tools=[k.LongRunningFunctionTool(ask_approval)],
    )
    return Scenario(agent, messages=["pay 5"])


@scenario
def long_running_waits_span_only(k: Any) -> Scenario:
    scenario_ = long_running_waits(k)
    scenario_.capture = "SPAN_ONLY"
    return scenario_


@scenario
def node_tool_asks_span_only(k: Any) -> Scenario:
    scenario_ = node_tool_asks(k)
    scenario_.capture = "SPAN_ONLY"
    return scenario_


@scenario
def model_raises(k: Any) -> Scenario:
    """The model call raises: the invocation fails."""
    agent = k.LlmAgent(
        name="broken",
        description="Its model fails.",
        instruction="Answer.",
        model=k.model("broken", [("raise", "model unavailable: secret detail")]),
    )
    return Scenario(agent, messages=["hi"])


@scenario
def model_raises_span_only(k: Any) -> Scenario:
    scenario_ = model_raises(k)
    scenario_.capture = "SPAN_ONLY"
    return scenario_


@scenario
def model_error_code(k: Any) -> Scenario:
    """The model answers with an error code instead of content (nothing raises)."""
    agent = k.LlmAgent(
        name="refuser",
        description="Its model refuses.",
        instruction="Answer.",
        model=k.model("refuser", [("error", "SAFETY", "blocked")]),
    )
    return Scenario(agent, messages=["hi"])


@scenario
def retried_node_fails_span_only(k: Any) -> Scenario:
    scenario_ = retried_node_fails(k)
    scenario_.capture = "SPAN_ONLY"
    return scenario_


@scenario
def nested_workflow_fails(k: Any) -> Scenario:
    """A node of a workflow inside a workflow fails: both workflows' spans and the node's."""

    def crash(node_input: str) -> str:
        raise ValueError("inner node fails")

    inner = k.Workflow(name="inner", edges=[(k.START, crash)])
    return Scenario(k.Workflow(name="outer", edges=[(k.START, inner)]), messages=["x"])


@scenario
def nested_workflow_fails_span_only(k: Any) -> Scenario:
    scenario_ = nested_workflow_fails(k)
    scenario_.capture = "SPAN_ONLY"
    return scenario_
