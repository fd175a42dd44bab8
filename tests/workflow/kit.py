"""yadk's names for the shared scenarios, and the summary of an event the fixtures hold."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

from yadk import LlmAgent
from yadk.events import Event
from yadk.models import ScriptedModel
from yadk.runner import Runner
from yadk.sessions import BaseSessionService, InMemorySessionService
from yadk.tools import FunctionTool, LongRunningFunctionTool
from yadk.types import Content, FunctionResponse, Part, UserContent
from yadk.workflow import (
    DEFAULT_ROUTE,
    START,
    Edge,
    FunctionNode,
    JoinNode,
    RequestInput,
    RetryConfig,
    Workflow,
    node,
)


def model(texts: list[Any]) -> ScriptedModel:
    """A text, ``{"call": name, "args": {...}}`` for a function call, or a list of those calls
    (made in one turn), per model turn."""
    return ScriptedModel(
        turns=[
            {"function_calls": [{"name": c["call"], "args": c["args"]} for c in t]}
            if isinstance(t, list)
            else {"function_calls": [{"name": t["call"], "args": t["args"]}]}
            if isinstance(t, dict)
            else {"text": t}
            for t in texts
        ]
    )


def declarations(llm_request: Any) -> list[dict[str, Any]]:
    """The function declarations a request offers (record_adk.py's form)."""
    return [
        {"name": d.name, "description": d.description, "parameters": d.parameters}
        for d in llm_request.function_declarations
    ]


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
    """The fields the fixtures compare (record_adk.py's summary, where yadk has the field)."""
    parts = event.content.parts if event.content is not None else []
    calls = [
        {"name": p.function_call.name, "args": dict(p.function_call.args), "id": p.function_call.id}
        for p in parts
        if p.function_call is not None
    ]
    info = event.node_info
    return {
        "author": event.author,
        "text": event.text or None,
        "role": event.content.role if event.content is not None else None,
        "state_delta": dict(event.actions.state_delta),
        "path": info.path if info is not None and info.path else None,
        "output_for": info.output_for if info is not None else None,
        "route": event.actions.route,
        "output": json.loads(json.dumps(event.output)),
        "function_calls": calls or None,
        "error_code": event.error_code,
        "isolation_scope": event.isolation_scope,
    }


def _waits(name: str, call_id: str | None, long_running: set[str] | None) -> bool:
    """A call the next message answers as its function response: a question, a long-running
    tool's call, a tool's confirmation request (as record_adk.py has it)."""
    return name == "adk_request_input" or call_id in (long_running or ())


async def run_turns(
    agent: Any,
    messages: list[Any],
    *,
    state: dict[str, Any] | None = None,
    session_service: BaseSessionService | None = None,
    session_id: str | None = None,
) -> tuple[list[list[Event]], dict[str, Any], str]:
    """Runs each message as one invocation (a message after an ``adk_request_input`` call is
    sent as its function response, as record_adk.py does); the events per turn, the final
    state and the session id."""
    service = session_service or InMemorySessionService()
    runner = Runner(app_name="app", agent=agent, session_service=service)
    if session_id is None:
        session = await service.create_session(app_name="app", user_id="u", state=dict(state or {}))
        session_id = session.id
    turns: list[list[Event]] = []
    pending: tuple[str, str] | None = None  # the waiting call's id and name
    for text in messages:
        message: Content
        if pending is not None:
            message = Content(
                role="user",
                parts=[
                    Part(
                        function_response=FunctionResponse(
                            id=pending[0],
                            name=pending[1],
                            response=text if isinstance(text, dict) else {"result": text},
                        )
                    )
                ],
            )
        else:
            message = UserContent(str(text))
        pending = None
        events: list[Event] = []
        first = True
        async for event in runner.run_async(
            user_id="u", session_id=session_id, new_message=message
        ):
            # google-adk yields no event for the user's message (the first one); a function
            # response authored by the user (a finished task's answer to its delegating call)
            # it does yield.
            if event.author == "user" and (first or not event.get_function_responses()):
                first = False
                continue
            first = False
            events.append(event)
            for call in event.get_function_calls():
                if _waits(call.name, call.id, event.long_running_tool_ids):
                    pending = (call.id or "", call.name)
        turns.append(events)
    final = await service.get_session(app_name="app", user_id="u", session_id=session_id)
    assert final is not None
    return turns, dict(final.state), session_id
