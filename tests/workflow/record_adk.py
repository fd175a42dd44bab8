"""Records the workflow scenarios' events from google-adk 2.13 as JSON fixtures.

Run with google-adk's own interpreter (never a yadk dependency):

    /opt/adkvenv/bin/python tests/workflow/record_adk.py

Each fixture lists, per user message, the events google-adk yields (author, text, state delta,
node path, route, output, function calls, error) the session's final state and, for a scenario whose agents note them, what each
model request held. A message that
follows a ``request_input`` function call is sent as that call's function response, as
google-adk's web UI does.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.events.event import Event
from google.adk.events.request_input import RequestInput
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.adk.tools import FunctionTool, LongRunningFunctionTool
from google.adk.workflow import (
    DEFAULT_ROUTE,
    START,
    Edge,
    FunctionNode,
    JoinNode,
    RetryConfig,
    Workflow,
    node,
)
from google.genai import types

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent.parent))

from tests.workflow import (  # noqa: E402,F401  (register scenarios)
    scenarios_dynamic,
    scenarios_limits,
    scenarios_modes,
    scenarios_resume,
)
from tests.workflow.scenarios import INVALID, SCENARIOS, canonical_message  # noqa: E402


class CannedModel(BaseLlm):
    """Answers each call with the next text of its list."""

    texts: list[Any]
    calls: int = 0

    async def generate_content_async(self, llm_request: Any, stream: bool = False) -> Any:
        turn = self.texts[self.calls]
        self.calls += 1
        calls = turn if isinstance(turn, list) else [turn] if isinstance(turn, dict) else []
        # {"call": name, "args": {...}}: a function call; a list of them: calls in one turn
        parts = [
            types.Part(function_call=types.FunctionCall(name=c["call"], args=c["args"]))
            for c in calls
        ] or [types.Part(text=turn)]
        yield LlmResponse(content=types.Content(role="model", parts=parts))


def model(texts: list[Any]) -> CannedModel:
    return CannedModel(model="canned", texts=texts)


def declarations(llm_request: Any) -> list[dict[str, Any]]:
    """The function declarations a request offers: name, description, JSON Schema parameters."""
    found = []
    for tool in llm_request.config.tools or []:
        for declaration in tool.function_declarations or []:
            parameters = declaration.parameters_json_schema
            if parameters is None and declaration.parameters is not None:
                parameters = declaration.parameters.json_schema.model_dump(
                    mode="json", exclude_none=True
                )
            found.append(
                {
                    "name": declaration.name,
                    "description": declaration.description,
                    "parameters": parameters,
                }
            )
    return found


KIT = SimpleNamespace(
    Workflow=Workflow,
    START=START,
    DEFAULT_ROUTE=DEFAULT_ROUTE,
    Edge=Edge,
    FunctionNode=FunctionNode,
    JoinNode=JoinNode,
    node=node,
    RetryConfig=RetryConfig,
    Event=Event,
    RequestInput=RequestInput,
    LlmAgent=LlmAgent,
    model=model,
    declarations=declarations,
    LongRunningFunctionTool=LongRunningFunctionTool,
    FunctionTool=FunctionTool,
)


def summarize(event: Event) -> dict[str, Any]:
    parts = event.content.parts if event.content and event.content.parts else []
    text = "".join(p.text for p in parts if p.text and not p.thought)
    calls = [
        {"name": p.function_call.name, "args": p.function_call.args, "id": p.function_call.id}
        for p in parts
        if p.function_call
    ]
    row: dict[str, Any] = {
        "author": event.author,
        "text": text or None,
        "role": event.content.role if event.content else None,
        "state_delta": dict(event.actions.state_delta),
        "path": event.node_info.path or None,
        "output_for": event.node_info.output_for,
        "route": getattr(event.actions, "route", None),
        "output": _jsonable(event.output),
        "function_calls": calls or None,
        "error_code": event.error_code,
        "error_message": event.error_message,
        "end_of_agent": event.actions.end_of_agent,
        "isolation_scope": event.isolation_scope,
    }
    return row


def _waits(call: Any, long_running: Any) -> bool:
    """A call the next message answers as its function response: a question, a long-running
    tool's call, a tool's confirmation request."""
    if call is None:
        return False
    return call.name == "adk_request_input" or call.id in (long_running or ())


def _jsonable(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    return json.loads(json.dumps(value, default=str))


async def record(name: str) -> dict[str, Any]:
    sc = SCENARIOS[name](KIT)
    runner = InMemoryRunner(agent=sc.agent, app_name="app")
    session = await runner.session_service.create_session(
        app_name="app", user_id="u", state=dict(sc.state)
    )
    turns = []
    pending: tuple[str, str] | None = None  # the waiting call's id and name
    for text in sc.messages:
        if pending is not None:
            message = types.Content(
                role="user",
                parts=[
                    types.Part(
                        function_response=types.FunctionResponse(
                            id=pending[0],
                            name=pending[1],
                            response=text if isinstance(text, dict) else {"result": text},
                        )
                    )
                ],
            )
        else:
            message = types.UserContent(text)
        pending = None
        events = []
        try:
            async for event in runner.run_async(
                user_id="u", session_id=session.id, new_message=message
            ):
                events.append(summarize(event))
                for part in event.content.parts if event.content and event.content.parts else []:
                    if _waits(part.function_call, event.long_running_tool_ids):
                        pending = (part.function_call.id, part.function_call.name)
        except Exception as exc:  # google-adk raises some node errors out of run_async
            events.append({"raised": f"{type(exc).__name__}: {exc}"})
        turns.append({"message": text, "events": events})
    final = await runner.session_service.get_session(
        app_name="app", user_id="u", session_id=session.id
    )
    assert final is not None
    fixture = {"scenario": name, "turns": turns, "final_state": _jsonable(dict(final.state))}
    if sc.requests is not None:
        fixture["requests"] = sc.requests
    return fixture


def record_invalid() -> dict[str, str]:
    """The message of the error google-adk raises building each invalid graph."""
    messages = {}
    for name, edges in INVALID.items():
        try:
            spec = edges(KIT)
            Workflow(name="bad", **(spec if isinstance(spec, dict) else {"edges": spec}))
        except Exception as exc:
            # pydantic wraps the error; its own message is what the user reads first.
            errors = exc.errors() if hasattr(exc, "errors") else None
            text = errors[0]["msg"] if errors else str(exc)
            messages[name] = canonical_message(text.removeprefix("Value error, "))
        else:
            messages[name] = "(accepted)"
    return messages


# YAML workflow folders (tests/workflow/configs/<name>): the messages each is run with, and the
# texts its LLM agents answer.
YAML_CASES: dict[str, dict[str, Any]] = {
    "adk_desk": {
        "messages": ["How do I reset it?", "Broken screen", "A refund for A-7", "yes"],
        "texts": ["You can reset it from the login page."],
    }
}


async def record_yaml(name: str) -> dict[str, Any]:
    from google.adk.agents.config_agent_utils import from_config

    case = YAML_CASES[name]
    sys.path.insert(0, str(HERE / "configs"))
    agent = from_config(str(HERE / "configs" / name / "root_agent.yaml"))
    for each in agent.graph.nodes:
        if isinstance(each, LlmAgent):
            each.model = model(case["texts"])
    scenario = SimpleNamespace(agent=agent, messages=case["messages"], state={})
    SCENARIOS[f"yaml_{name}"] = lambda _kit: scenario
    return await record(f"yaml_{name}")


async def main(names: list[str]) -> None:
    out = HERE / "recorded"
    out.mkdir(exist_ok=True)
    invalid = json.dumps(record_invalid(), indent=1, sort_keys=True) + "\n"
    (out / "invalid_graphs.json").write_text(invalid)
    for name in names or [*SCENARIOS, *(f"yaml_{n}" for n in YAML_CASES)]:
        if name.startswith("yaml_"):
            fixture = await record_yaml(name.removeprefix("yaml_"))
        else:
            fixture = await record(name)
        (out / f"{name}.json").write_text(json.dumps(fixture, indent=1, sort_keys=True) + "\n")
        print(f"recorded {name}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
