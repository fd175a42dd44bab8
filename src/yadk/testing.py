"""Helpers for users' own tests: the offline ScriptedModel and ready-made contexts.

``readonly_context(state={"customer_name": "Ada"})`` gives what an InstructionProvider receives;
``tool_context(...)`` what a tool receives. Both are backed by in-memory services, so
``inject_session_state`` and artifact helpers work on them. Unlike ``create_session``, ``temp:``
keys in ``state`` are kept, as they would be inside an invocation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from yadk._contexts import InvocationContext, ReadonlyContext, ToolContext, new_invocation_id
from yadk.agents import LlmAgent
from yadk.artifacts import InMemoryArtifactService
from yadk.models import ScriptedModel
from yadk.sessions import InMemorySessionService
from yadk.types import Content, Part

__all__ = ["ScriptedModel", "invocation_context", "readonly_context", "tool_context"]


def invocation_context(
    state: Mapping[str, Any] | None = None,
    *,
    artifacts: Mapping[str, str | bytes | Part] | None = None,
    with_artifact_service: bool = True,
    agent_name: str = "agent",
    user_content: Content | str | None = None,
    app_name: str = "test_app",
    user_id: str = "test_user",
) -> InvocationContext:
    """An InvocationContext over fresh in-memory services (see the module docstring)."""
    sessions = InMemorySessionService()
    initial = dict(state or {})
    session = sessions.create_session_sync(app_name=app_name, user_id=user_id, state=initial)
    for key, value in initial.items():
        if key.startswith("temp:"):
            session.state[key] = value
    artifact_service = InMemoryArtifactService() if with_artifact_service else None
    if artifacts:
        if artifact_service is None:
            raise ValueError("artifacts= needs with_artifact_service=True")
        for name, value in artifacts.items():
            artifact_service.save_artifact_sync(
                app_name=app_name,
                user_id=user_id,
                session_id=session.id,
                filename=name,
                artifact=_as_part(value),
            )
    if isinstance(user_content, str):
        user_content = Content(role="user", parts=[Part(text=user_content)])
    return InvocationContext(
        invocation_id=new_invocation_id(),
        agent=LlmAgent(name=agent_name),
        session=session,
        session_service=sessions,
        artifact_service=artifact_service,
        user_content=user_content,
    )


def readonly_context(
    state: Mapping[str, Any] | None = None,
    *,
    artifacts: Mapping[str, str | bytes | Part] | None = None,
    with_artifact_service: bool = True,
    agent_name: str = "agent",
) -> ReadonlyContext:
    """A ReadonlyContext whose session holds ``state`` and whose artifacts are ``artifacts``
    (name → text, bytes, or Part)."""
    return ReadonlyContext(
        invocation_context(
            state,
            artifacts=artifacts,
            with_artifact_service=with_artifact_service,
            agent_name=agent_name,
        )
    )


def tool_context(
    state: Mapping[str, Any] | None = None,
    *,
    artifacts: Mapping[str, str | bytes | Part] | None = None,
    with_artifact_service: bool = True,
    agent_name: str = "agent",
    user_content: Content | str | None = None,
    function_call_id: str | None = None,
) -> ToolContext:
    """A ToolContext like the one a tool receives; writes land in ``ctx.actions.state_delta``."""
    return ToolContext(
        invocation_context(
            state,
            artifacts=artifacts,
            with_artifact_service=with_artifact_service,
            agent_name=agent_name,
            user_content=user_content,
        ),
        function_call_id=function_call_id,
    )


def _as_part(value: str | bytes | Part) -> Part:
    if isinstance(value, Part):
        return value
    if isinstance(value, bytes):
        return Part.from_bytes(data=value, mime_type="application/octet-stream")
    return Part(text=value)
