"""AgentReloader: the agent ``yadk dev`` runs, rebuilt from its files when they change.

A reload that fails leaves the current agent in place and says why, so a half-typed edit never
takes a working conversation down.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from yadk.cli._common import CommandError, check_models, llm_agents, not_loaded, set_model

if TYPE_CHECKING:
    from yadk.agents import BaseAgent
    from yadk.config import LoadedAgent
    from yadk.models import BaseLlm

__all__ = ["AgentReloader", "Reload", "changed_files_text"]

KEPT = "kept the previous agent; fix the file and save again"
_SHOWN = 5


@dataclass
class Reload:
    """The outcome of one reload: ``ok``, and the lines to print on stderr."""

    ok: bool
    lines: list[str] = field(default_factory=list)


class AgentReloader:
    """Loads the agent at ``path`` and reloads it on demand.

    ``model`` (``--model``) replaces every agent's model, on every load. Without it, a scripted
    model whose turns did not change is carried over to the new agent, so the script continues
    where it was instead of starting again.
    """

    def __init__(self, path: Path, *, model: BaseLlm | None = None) -> None:
        self.path = path
        self.model = model
        self.loads = 0
        self._problem_files: set[Path] = set()
        try:
            self.loaded = self._load(reload_modules=False)
        except _Failed as exc:
            raise exc.error from None

    @property
    def agent(self) -> BaseAgent:
        return self.loaded.agent

    @property
    def root(self) -> Path:
        """The agent folder: the config file's folder."""
        return self.loaded.path.parent

    @property
    def files(self) -> set[Path]:
        """What to watch: the current agent's files, plus the files a failed reload blamed."""
        return self.loaded.files | self._problem_files

    def reload(self, changed: Iterable[Path]) -> Reload:
        """Rebuild the agent after ``changed`` files changed; on failure keep the current one."""
        changed = set(changed)
        _forget_bytecode(changed)
        summary = changed_files_text(changed, self.root)
        try:
            loaded = self._load(reload_modules=True)
        except _Failed as exc:
            self._problem_files = {p for p in exc.paths if p.exists()}
            why = exc.error.details or [exc.error.message]
            return Reload(False, [f"reload failed: {summary}", *why, KEPT])
        self._carry_scripted_models(self.loaded.agent, loaded.agent)
        self.loaded = loaded
        self._problem_files = set()
        return Reload(True, [f"reloaded: {summary}"])

    def _load(self, *, reload_modules: bool) -> LoadedAgent:
        from yadk.config import load_agent_with_sources
        from yadk.errors import ConfigError, YadkError

        self.loads += 1
        try:
            loaded = load_agent_with_sources(self.path, reload_modules=reload_modules)
            if self.model is not None:
                set_model(loaded.agent, self.model)
            check_models(loaded.agent)
        except ConfigError as exc:
            paths = {Path(d.path) for d in exc.diagnostics if d.path}
            raise _Failed(not_loaded(self.path, exc), paths) from None
        except YadkError as exc:
            raise _Failed(not_loaded(self.path, exc), set()) from None
        except CommandError as exc:
            raise _Failed(exc, set()) from None
        except Exception as exc:  # user code run while loading (a factory, a class) may raise
            error = CommandError(f"{self.path} was not loaded: {type(exc).__name__}: {exc}")
            raise _Failed(error, set()) from None
        return loaded

    def _carry_scripted_models(self, old: BaseAgent, new: BaseAgent) -> None:
        if self.model is not None:
            return
        from yadk.models import ScriptedModel

        previous = {agent.name: agent.model for agent in llm_agents(old)}
        # Keyed by the new model's identity: agents that share one script keep sharing it.
        carried: dict[int, BaseLlm] = {}
        for agent in llm_agents(new):
            before = previous.get(agent.name)
            model = agent.model
            if (
                isinstance(model, ScriptedModel)
                and isinstance(before, ScriptedModel)
                and before.model == model.model
                and before.turns == model.turns
            ):
                carried.setdefault(id(model), before)
        for agent in llm_agents(new):
            if isinstance(agent.model, ScriptedModel) and id(agent.model) in carried:
                agent.model = carried[id(agent.model)]


class _Failed(Exception):
    """A load failed: ``error`` says why, ``paths`` are the files its diagnostics name."""

    def __init__(self, error: CommandError, paths: set[Path]) -> None:
        super().__init__(error.message)
        self.error = error
        self.paths = paths


def changed_files_text(changed: Iterable[Path], root: Path) -> str:
    """``2 files changed (a.yaml, prompts/x.md)``: paths relative to the agent folder when inside
    it, at most five named."""
    names = sorted(_shown(path, root) for path in changed)
    count = len(names)
    listed = ", ".join(names[:_SHOWN])
    if count > _SHOWN:
        listed += f", and {count - _SHOWN} more"
    return f"{count} file{'s' if count != 1 else ''} changed ({listed})"


def _shown(path: Path, root: Path) -> str:
    for base in (root, Path.cwd()):
        if base in path.parents:
            return path.relative_to(base).as_posix()
    return str(path)


def _forget_bytecode(changed: set[Path]) -> None:
    # Python trusts a cached .pyc whose recorded source mtime (whole seconds) and size match; an
    # edit within the same second that keeps the size would otherwise import the old code.
    for path in changed:
        if path.suffix == ".py":
            try:
                os.unlink(importlib.util.cache_from_source(str(path)))
            except (OSError, NotImplementedError, ValueError):
                pass
