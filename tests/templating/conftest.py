"""Contexts for templating tests: a real in-memory session and artifact service per call."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Mapping
from typing import Any, Protocol

import pytest

from yadk._contexts import InvocationContext, ReadonlyContext
from yadk.artifacts import InMemoryArtifactService
from yadk.sessions import InMemorySessionService
from yadk.templating import clear_template_caches
from yadk.types import Part


class NamedAgent:
    """Templating only needs the agent's name (for error messages)."""

    def __init__(self, name: str) -> None:
        self.name = name


class MakeContext(Protocol):
    def __call__(
        self,
        state: Mapping[str, Any] | None = None,
        *,
        artifacts: Mapping[str, str | Part] | None = None,
        with_artifact_service: bool = True,
        agent_name: str = "agent",
    ) -> Awaitable[ReadonlyContext]: ...


@pytest.fixture(autouse=True)
def _fresh_caches() -> None:
    clear_template_caches()


@pytest.fixture
def make_context() -> MakeContext:
    """``await make_context(state, artifacts={name: text or Part})`` -> ReadonlyContext.

    ``temp:`` keys in ``state`` are written after the session is created, as a running
    invocation would have them (``create_session`` drops them).
    """

    async def make(
        state: Mapping[str, Any] | None = None,
        *,
        artifacts: Mapping[str, str | Part] | None = None,
        with_artifact_service: bool = True,
        agent_name: str = "agent",
    ) -> ReadonlyContext:
        state = dict(state or {})
        sessions = InMemorySessionService()
        stored = {k: v for k, v in state.items() if _is_json(v)}
        session = await sessions.create_session(app_name="app", user_id="u", state=stored)
        # temp: keys and values no store can hold live on the session, as inside an invocation.
        session.state.update(
            {k: v for k, v in state.items() if k not in stored or k[:5] == "temp:"}
        )
        service = InMemoryArtifactService() if with_artifact_service else None
        for name, value in (artifacts or {}).items():
            assert service is not None
            part = Part(text=value) if isinstance(value, str) else value
            await service.save_artifact(
                app_name="app", user_id="u", session_id=session.id, filename=name, artifact=part
            )
        ic = InvocationContext(
            invocation_id="e-test",
            agent=NamedAgent(agent_name),  # type: ignore[arg-type]
            session=session,
            session_service=sessions,
            artifact_service=service,
        )
        return ReadonlyContext(ic)

    return make


def _is_json(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True
