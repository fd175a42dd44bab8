"""Loading an agent tree from its files for a long-running process (dev loop, server): every
failure, config or model or user code, becomes one ``AgentLoadError`` that says why."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from yadk.agents import LlmAgent
from yadk.config import load_agent_with_sources
from yadk.errors import AgentDefinitionError, AgentLoadError, ConfigError, ModelError, YadkError

if TYPE_CHECKING:
    from yadk.agents import BaseAgent
    from yadk.config import LoadedAgent
    from yadk.models import BaseLlm

__all__ = [
    "check_models",
    "llm_agents",
    "load",
    "load_failure",
    "missing_credentials",
    "set_model",
]


def llm_agents(root: BaseAgent) -> list[LlmAgent]:
    return [agent for agent in _agents(root) if isinstance(agent, LlmAgent)]


def _agents(root: BaseAgent) -> list[BaseAgent]:
    """Every agent of the tree, those that are nodes of a workflow graph included."""
    found: list[BaseAgent] = []
    for agent in root.walk():
        found.append(agent)
        for inner in agent.graph_agents() if hasattr(agent, "graph_agents") else []:
            found.extend(_agents(inner))
    return found


def set_model(root: BaseAgent, model: str | BaseLlm) -> None:
    """Make every LlmAgent in the tree use ``model`` (agents without their own model would
    inherit it anyway; setting it everywhere also covers trees whose root is a workflow agent)."""
    for agent in llm_agents(root):
        agent.model = model


def check_models(root: BaseAgent, *, hint: str = "") -> None:
    """Resolve every LlmAgent's model up front, so a missing model or backend is reported at
    load rather than as an error event mid-conversation. ``hint`` follows a model that does not
    resolve (unless it is a scripted one)."""
    for agent in llm_agents(root):
        try:
            _ = agent.canonical_model
        except AgentDefinitionError as exc:
            raise AgentLoadError(exc.message) from None
        except ModelError as exc:
            offline = isinstance(agent.model, str) and agent.model.startswith("scripted:")
            extra = f"\n  hint: {hint}" if hint and not offline else ""
            raise AgentLoadError(f"agent {agent.name!r}: {exc.message}{extra}") from None


_IMPORT_RULES = frozenset({"import-failed", "tool-declaration"})


def load_failure(path: Path, error: YadkError) -> AgentLoadError:
    """The ``AgentLoadError`` for a config that did not load: every diagnostic of a
    ``ConfigError`` as details, and one line pointing at ``yadk validate``."""
    if isinstance(error, AgentLoadError):
        return error
    if not isinstance(error, ConfigError):
        return AgentLoadError(f"{path} was not loaded: {error.message}")
    count = len(error.diagnostics) or 1
    # Problems only importing the code shows: validate finds them with --import.
    flag = "--import " if any(d.rule in _IMPORT_RULES for d in error.diagnostics) else ""
    return AgentLoadError(
        f"{path} was not loaded: {count} problem{'s' if count != 1 else ''}"
        f" (run 'yadk validate {flag}{path}' to check it)",
        diagnostics=error.diagnostics,
        details=[d.format() for d in error.diagnostics] or [error.message],
    )


def load(
    path: Path,
    *,
    model: BaseLlm | None = None,
    model_hint: str = "",
    reload_modules: bool = False,
    run_checks: bool = False,
    given_keys: Iterable[str] = (),
) -> LoadedAgent:
    """The agent at ``path`` with its sources; ``model`` replaces every agent's model. Raises
    ``AgentLoadError`` for anything that stops it from running.

    ``run_checks`` (a terminal session about to talk to the agent) makes an agent without a
    model a located error (``missing-model``) unless ``model`` replaces them all; the loaded
    ``diagnostics`` then hold the other warnings, to show before the conversation starts.
    ``given_keys`` are state keys the caller sets (``--state``), which placeholders may read.
    """
    try:
        loaded = load_agent_with_sources(
            path,
            reload_modules=reload_modules,
            run_checks=run_checks,
            given_keys=given_keys,
            models_replaced=model is not None,
        )
        if model is not None:
            set_model(loaded.agent, model)
        # The environment checks are the engine's to make (check_credentials); a replaced
        # model leaves no agent without one.
        dropped = {"api-key-missing"} | ({"missing-model"} if model is not None else set())
        loaded.diagnostics = [d for d in loaded.diagnostics if d.rule not in dropped]
        missing = [d for d in loaded.diagnostics if d.rule == "missing-model"]
        if missing:
            errors = [dataclasses.replace(d, severity="error") for d in missing]
            count = len(missing)
            raise AgentLoadError(
                f"{path} cannot run: {count} agent{'s' if count != 1 else ''} without a model",
                diagnostics=errors,
                details=[d.format() for d in errors],
            )
        check_models(loaded.agent, hint=model_hint)
    except YadkError as exc:
        raise load_failure(path, exc) from None
    return loaded


def missing_credentials(root: BaseAgent) -> list[str]:
    """What stops each model of the tree from being called (an API key that is not set), one
    line per model, naming the agents that use it; empty when every model can be called."""
    problems: dict[str, list[str]] = {}
    for agent in llm_agents(root):
        problem = agent.canonical_model.missing_credentials()
        if problem is not None:
            problems.setdefault(problem, []).append(agent.name)
    return [
        f"agent{'s' if len(names) > 1 else ''} {', '.join(map(repr, names))}: {problem}"
        for problem, names in problems.items()
    ]
