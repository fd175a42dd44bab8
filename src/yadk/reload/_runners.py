"""The runner for what an agent folder defines: its ``App`` (app.yaml, or a Python agent's
``app = App(...)``) when it has one, else its root agent. ``yadk run``, ``dev``, ``serve``,
``web`` and ``eval`` all build their runners here."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

from yadk.agents import BaseAgent
from yadk.runner import Runner

if TYPE_CHECKING:
    from yadk.apps import App
    from yadk.artifacts import BaseArtifactService
    from yadk.config import LoadedAgent
    from yadk.memory import BaseMemoryService
    from yadk.sessions import BaseSessionService, SessionLocks

__all__ = ["RunTarget", "run_target", "runner_for", "target_agent", "target_name"]

# What a folder runs: an App, or a bare root agent.
RunTarget: TypeAlias = "App | BaseAgent"


def run_target(loaded: LoadedAgent) -> RunTarget:
    """The app a loaded folder defines, else its root agent."""
    return loaded.app if loaded.app is not None else loaded.agent


def target_agent(target: RunTarget) -> BaseAgent:
    """The root agent of ``target``."""
    if isinstance(target, BaseAgent):
        return target
    return target.root_agent


def target_name(target: RunTarget) -> str:
    """The app name sessions are stored under: the app's name, else the root agent's."""
    name: str = target.name
    return name


def runner_for(
    target: RunTarget,
    *,
    app_name: str | None = None,
    session_service: BaseSessionService,
    artifact_service: BaseArtifactService | None,
    memory_service: BaseMemoryService | None = None,
    session_locks: SessionLocks | None = None,
) -> Runner:
    """A runner for ``target``, its sessions stored under ``app_name`` (default: the app's or
    the root agent's name), taking its turn locks from ``session_locks`` when given."""
    services: dict[str, Any] = {
        "session_service": session_service,
        "artifact_service": artifact_service,
        "memory_service": memory_service,
        "session_locks": session_locks,
    }
    if isinstance(target, BaseAgent):
        return Runner(agent=target, app_name=app_name or target.name, **services)
    return Runner(app=target, app_name=app_name, **services)
