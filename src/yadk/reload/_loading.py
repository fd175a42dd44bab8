"""Loading an agent tree from its files for a long-running process (dev loop, server): every
failure, config or model or user code, becomes one ``AgentLoadError`` that says why."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from yadk.errors import AgentLoadError, ConfigError, YadkError

if TYPE_CHECKING:
    from yadk.agents import BaseAgent, LlmAgent
    from yadk.config import LoadedAgent
    from yadk.models import BaseLlm

__all__ = ["check_models", "llm_agents", "load", "load_failure", "set_model"]


def llm_agents(root: BaseAgent) -> list[LlmAgent]:
    from yadk.agents import LlmAgent

    return [agent for agent in root.walk() if isinstance(agent, LlmAgent)]


def set_model(root: BaseAgent, model: str | BaseLlm) -> None:
    """Make every LlmAgent in the tree use ``model`` (agents without their own model would
    inherit it anyway; setting it everywhere also covers trees whose root is a workflow agent)."""
    for agent in llm_agents(root):
        agent.model = model


def check_models(root: BaseAgent, *, hint: str = "") -> None:
    """Resolve every LlmAgent's model up front, so a missing model or backend is reported at
    load rather than as an error event mid-conversation. ``hint`` follows a model that does not
    resolve (unless it is a scripted one)."""
    from yadk.errors import AgentDefinitionError, ModelError

    for agent in llm_agents(root):
        try:
            _ = agent.canonical_model
        except AgentDefinitionError as exc:
            raise AgentLoadError(exc.message) from None
        except ModelError as exc:
            offline = isinstance(agent.model, str) and agent.model.startswith("scripted:")
            extra = f"\n  hint: {hint}" if hint and not offline else ""
            raise AgentLoadError(f"agent {agent.name!r}: {exc.message}{extra}") from None


def load_failure(path: Path, error: YadkError) -> AgentLoadError:
    """The ``AgentLoadError`` for a config that did not load: every diagnostic of a
    ``ConfigError`` as details, and one line pointing at ``yadk validate``."""
    if isinstance(error, AgentLoadError):
        return error
    if not isinstance(error, ConfigError):
        return AgentLoadError(f"{path} was not loaded: {error.message}")
    count = len(error.diagnostics) or 1
    return AgentLoadError(
        f"{path} was not loaded: {count} problem{'s' if count != 1 else ''}"
        f" (run 'yadk validate {path}' to check it)",
        diagnostics=error.diagnostics,
        details=[d.format() for d in error.diagnostics] or [error.message],
    )


def load(
    path: Path,
    *,
    model: BaseLlm | None = None,
    model_hint: str = "",
    reload_modules: bool = False,
) -> LoadedAgent:
    """The agent at ``path`` with its sources; ``model`` replaces every agent's model. Raises
    ``AgentLoadError`` for anything that stops it from running."""
    from yadk.config import load_agent_with_sources

    try:
        loaded = load_agent_with_sources(path, reload_modules=reload_modules)
        if model is not None:
            set_model(loaded.agent, model)
        check_models(loaded.agent, hint=model_hint)
    except YadkError as exc:
        raise load_failure(path, exc) from None
    except Exception as exc:  # user code run while loading (a factory, a class) may raise
        raise AgentLoadError(f"{path} was not loaded: {type(exc).__name__}: {exc}") from None
    return loaded
