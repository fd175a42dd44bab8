"""Running an eval case: replay its user turns against a freshly built agent, record what happened.

Each case (and each run of it) gets a new agent from the factory, so a ScriptedModel starts its
script again and scripted evals are reproducible, and a new in-memory session seeded with the
case's initial state. The events of each turn become an actual ``Invocation`` as google-adk builds
one: every tool call any agent made, and the last final response (one with text preferred).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from yadk.agents import BaseAgent, LlmAgent
from yadk.artifacts import InMemoryArtifactService
from yadk.eval._model import EvalCase, Invocation, ToolCall
from yadk.events import Event
from yadk.reload import RunTarget, runner_for, target_agent, target_name
from yadk.sessions import InMemorySessionService
from yadk.types import Content

if TYPE_CHECKING:
    from yadk.eval._app_details import AppDetailsRecorder

__all__ = ["AgentFactory", "CaseRun", "invocation_from_events", "run_case", "tool_names"]

# Builds what a case runs: a folder's App, or its root agent.
AgentFactory = Callable[[], RunTarget]

DEFAULT_USER_ID = "eval_user"


@dataclasses.dataclass
class CaseRun:
    """What running a case produced: one actual invocation per completed turn, and the error
    that stopped it, if any."""

    actual: list[Invocation]
    error: str | None
    session_id: str
    user_id: str


async def run_case(
    factory: AgentFactory,
    case: EvalCase,
    *,
    session_id: str,
    details: AppDetailsRecorder | None = None,
) -> CaseRun:
    """Replay ``case``'s user turns on a new agent from ``factory``; with ``details``, each
    actual invocation also gets what the agents' models were given (for judge models)."""
    target = factory()
    agent = target_agent(target)
    if details is not None:
        details.instrument(agent)
    sessions = InMemorySessionService()
    app_name = case.app_name or target_name(target)
    user_id = case.user_id or DEFAULT_USER_ID
    runner = runner_for(
        target,
        app_name=app_name,
        session_service=sessions,
        artifact_service=InMemoryArtifactService(),
    )
    session = await sessions.create_session(
        app_name=app_name,
        user_id=user_id,
        state=dict(case.state),
        session_id=case.session_id or session_id,
    )
    actual: list[Invocation] = []
    for expected in case.conversation:
        events = [
            event
            async for event in runner.run_async(
                user_id=user_id, session_id=session.id, new_message=expected.user_content
            )
            if not event.partial
        ]
        failed = next((e for e in events if e.error_code or e.error_message), None)
        if failed is not None:
            message = failed.error_message or failed.error_code or "the run failed"
            turn = len(actual) + 1
            return CaseRun(actual, f"turn {turn}: {message}", session.id, user_id)
        invocation = invocation_from_events(events, expected.user_content)
        if details is not None:
            invocation.app_details = details.take(invocation.invocation_id) or {}
        actual.append(invocation)
    return CaseRun(actual, None, session.id, user_id)


def invocation_from_events(events: Sequence[Event], user_content: Content) -> Invocation:
    """The actual ``Invocation`` one turn's events make (see the module docstring)."""
    final: Content | None = None
    calls: list[ToolCall] = []
    recorded: list[dict[str, Any]] = []
    model_calls = 0
    invocation_id = ""
    final_event: Event | None = None
    answered: list[Event] = []
    for event in events:
        invocation_id = invocation_id or event.invocation_id
        if event.author == "user" or event.content is None or not event.content.parts:
            continue
        if event.content.role == "model":
            model_calls += 1
        calls.extend(ToolCall(c.name, dict(c.args)) for c in event.get_function_calls())
        if event.is_final_response():
            has_text = any(p.text for p in event.content.parts)
            if final is None or not any(p.text for p in final.parts) or has_text:
                final, final_event = event.content, event
        answered.append(event)
    for event in answered:
        # As google-adk records it: the final response's text is already `final_response`, so
        # its event is kept without content (unless it also calls tools), and a judge never
        # sees the answer as evidence for itself.
        keep = event is not final_event or bool(event.get_function_calls())
        content = event.content.to_dict() if keep and event.content is not None else None
        recorded.append({"author": event.author, "content": content})
    return Invocation(
        user_content=user_content,
        final_response=final,
        tool_uses=calls,
        invocation_id=invocation_id,
        intermediate={"invocation_events": recorded},
        model_calls=model_calls,
    )


async def tool_names(root: BaseAgent) -> set[str] | None:
    """Every tool name the agents of ``root`` can call (``None`` if a toolset cannot list its
    tools without a running session)."""
    names: set[str] = set()
    for agent in root.walk():
        if not isinstance(agent, LlmAgent):
            continue
        if agent.sub_agents or agent.parent_agent is not None:
            names.add("transfer_to_agent")
        try:
            tools = await agent.canonical_tools(None)
        except Exception:
            return None
        names.update(tool.name for tool in tools)
    return names
