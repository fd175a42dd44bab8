"""AgentReloader: an agent rebuilt from its files when they change (validate, then swap).

A reload that fails leaves the current agent in place and says why, so a half-typed edit never
takes a working conversation or server down.
"""

from __future__ import annotations

import importlib.util
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yadk.errors import AgentLoadError, Located
from yadk.models import ScriptedModel
from yadk.reload._loading import llm_agents, load
from yadk.tools import close_toolsets

if TYPE_CHECKING:
    from yadk.agents import BaseAgent
    from yadk.config import Diagnostic, LoadedAgent
    from yadk.models import BaseLlm

__all__ = ["AgentReloader", "Reload", "changed_files_text"]

KEPT = "kept the previous agent; fix the file and save again"
_SHOWN = 5


@dataclass
class Reload:
    """The outcome of one reload.

    ``files`` are the changed files (relative to the agent folder when inside it), ``ms`` how
    long the reload took. A failed reload has ``error`` (one line), ``details`` (lines such as
    formatted diagnostics) and the ``diagnostics`` themselves when a config was invalid.
    """

    ok: bool
    files: list[str]
    ms: float
    error: str = ""
    details: list[str] = field(default_factory=list)
    diagnostics: list[Located] = field(default_factory=list)
    # The warnings of the agent a successful reload loaded (with the reloader's run_checks).
    warnings: list[Diagnostic] = field(default_factory=list)

    @property
    def lines(self) -> list[str]:
        """What a terminal shows: one line (and the new agent's warnings), or the failure with
        why and what happens now."""
        summary = files_text(self.files)
        if self.ok:
            return [f"reloaded: {summary}", *(d.format() for d in self.warnings)]
        return [f"reload failed: {summary}", *(self.details or [self.error]), KEPT]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping (the ``/dev/events`` stream of ``yadk serve --reload``)."""
        data: dict[str, Any] = {"ok": self.ok, "files": self.files, "ms": round(self.ms, 1)}
        if not self.ok:
            data["error"] = self.error
            data["diagnostics"] = [d.to_dict() for d in self.diagnostics]
            data["details"] = self.details
        return data


class AgentReloader:
    """Loads the agent at ``path`` and reloads it on demand; raises ``AgentLoadError`` when the
    first load fails.

    ``model`` replaces every agent's model, on every load. Without it, a scripted model whose
    turns did not change is carried over to the new agent, so the script continues where it was
    instead of starting again. ``model_hint`` follows a model name that does not resolve.
    ``run_checks`` and ``given_keys`` are ``load``'s (a terminal session: warnings kept,
    missing models refused; the keys ``--state`` sets).
    """

    def __init__(
        self,
        path: Path,
        *,
        model: BaseLlm | None = None,
        model_hint: str = "",
        run_checks: bool = False,
        given_keys: Iterable[str] = (),
    ) -> None:
        self.path = path
        self.given_keys = tuple(given_keys)
        self.model = model
        self.model_hint = model_hint
        self.run_checks = run_checks
        self.loads = 0
        self._problem_files: set[Path] = set()
        # Agents replaced by a reload whose toolsets (MCP servers, ...) are still to be closed.
        self.retired: list[BaseAgent] = []
        self.loaded = self._load(reload_modules=False)

    @property
    def agent(self) -> BaseAgent:
        return self.loaded.agent

    @property
    def target(self) -> Any:
        """What to run: the folder's App (app.yaml, ``app = App(...)``), else its agent."""
        return self.loaded.app if self.loaded.app is not None else self.loaded.agent

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
        started = time.perf_counter()
        changed = set(changed)
        forget_bytecode(changed)
        names = shown_names(changed, self.root)
        try:
            loaded = self._load(reload_modules=True)
        except AgentLoadError as exc:
            self._problem_files = {
                Path(d.path) for d in exc.diagnostics if d.path and Path(d.path).exists()
            }
            ms = (time.perf_counter() - started) * 1000
            return Reload(False, names, ms, exc.message, exc.details, exc.diagnostics)
        self._carry_scripted_models(self.loaded.agent, loaded.agent)
        self.retired.append(self.loaded.agent)
        self.loaded = loaded
        self._problem_files = set()
        ms = (time.perf_counter() - started) * 1000
        return Reload(True, names, ms, warnings=list(loaded.diagnostics))

    async def close_retired(self) -> None:
        """Close what agents replaced by reloads hold open (MCP servers and other toolsets).
        Call it when no invocation still runs on them."""
        retired, self.retired = self.retired, []
        for agent in retired:
            await close_toolsets(agent)

    async def aclose(self) -> None:
        """``close_retired``, and close the current agent's toolsets too (at shutdown)."""
        await self.close_retired()
        await close_toolsets(self.agent)

    def _load(self, *, reload_modules: bool) -> LoadedAgent:
        self.loads += 1
        return load(
            self.path,
            model=self.model,
            model_hint=self.model_hint,
            reload_modules=reload_modules,
            run_checks=self.run_checks,
            given_keys=self.given_keys,
        )

    def _carry_scripted_models(self, old: BaseAgent, new: BaseAgent) -> None:
        if self.model is not None:
            return
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


def changed_files_text(changed: Iterable[Path], root: Path) -> str:
    """``2 files changed (a.yaml, prompts/x.md)``: paths relative to the agent folder when inside
    it, at most five named."""
    return files_text(shown_names(changed, root))


def files_text(names: list[str]) -> str:
    count = len(names)
    listed = ", ".join(names[:_SHOWN])
    if count > _SHOWN:
        listed += f", and {count - _SHOWN} more"
    return f"{count} file{'s' if count != 1 else ''} changed ({listed})"


def shown_names(changed: Iterable[Path], root: Path) -> list[str]:
    return sorted(_shown(path, root) for path in changed)


def _shown(path: Path, root: Path) -> str:
    for base in (root, Path.cwd()):
        if base in path.parents:
            return path.relative_to(base).as_posix()
    return str(path)


def forget_bytecode(changed: Iterable[Path]) -> None:
    """Drop the cached byte-code of changed modules.

    Python trusts a cached .pyc whose recorded source mtime (whole seconds) and size match; an
    edit within the same second that keeps the size would otherwise import the old code.
    """
    for path in changed:
        if path.suffix == ".py":
            try:
                os.unlink(importlib.util.cache_from_source(str(path)))
            except (OSError, NotImplementedError, ValueError):
                pass
