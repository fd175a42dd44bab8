"""The apps a server serves: found under PATH, loaded (and, with reload, reloaded) once each.

An app is an agent folder (``root_agent.yaml``, or a Python ``agent.py`` / ``__init__.py``
defining ``root_agent``), named after the folder as in ``adk api_server``.
An app that does not load is still listed: requests to it get 503 with its diagnostics, while the
other apps serve. With reload, a watcher per app applies edits by validate-then-swap: a broken
edit keeps the last good agent serving and is reported, a fixed one brings a broken app up.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from yadk.agents import BaseAgent
from yadk.artifacts import BaseArtifactService
from yadk.config import resolve_config_path
from yadk.errors import AgentLoadError, ConfigError
from yadk.memory import BaseMemoryService
from yadk.models import BaseLlm
from yadk.reload import (
    AgentReloader,
    ChangeSource,
    Reload,
    WatchFailed,
    WatchfilesChanges,
    runner_for,
    shown_names,
)
from yadk.runner import Runner
from yadk.sessions import BaseSessionService, SessionLocks

__all__ = ["App", "Apps", "find_app_folders"]

logger = logging.getLogger("yadk.serve")

ROOT_CONFIGS = ("root_agent.yaml", "root_agent.yml")


def _is_agent_folder(path: Path) -> bool:
    if any((path / name).is_file() for name in ROOT_CONFIGS):
        return True
    try:
        resolve_config_path(path)  # a Python agent folder, as google-adk lays them out
    except ConfigError:
        return False
    return True


def find_app_folders(path: Path) -> list[Path]:
    """The agent folders PATH holds: PATH itself when it is one (or a config file's folder),
    else its sub-folders that are, sorted by name. Raises ``ConfigError`` when there is none."""
    if path.is_file():
        return [resolve_config_path(path).parent]
    if _is_agent_folder(path):
        return [path]
    if path.is_dir():
        found = sorted(
            child
            for child in path.iterdir()
            if child.is_dir() and not child.name.startswith((".", "_")) and _is_agent_folder(child)
        )
        if found:
            return found
    raise ConfigError(
        [],
        f"{path}: no agent to serve; expected an agent folder (holding root_agent.yaml, or an"
        " agent.py defining root_agent) or a folder of agent folders",
    )


@dataclass
class App:
    """One served app: its runner when it loaded, else why it did not."""

    name: str
    folder: Path
    runner: Runner | None = None
    reloader: AgentReloader | None = None
    failure: AgentLoadError | None = None
    changes: ChangeSource | None = None
    last_reload: dict[str, Any] | None = field(default=None)

    def status(self) -> dict[str, Any]:
        """A JSON-ready summary: loaded or not, and why not."""
        data: dict[str, Any] = {"name": self.name, "ok": self.failure is None}
        if self.failure is not None:
            data["error"] = self.failure.message
            data["diagnostics"] = [d.to_dict() for d in self.failure.diagnostics]
        return data


class Apps:
    """Every app under a path, sharing one session service, one artifact service and one set
    of turn locks: each app's runner takes its turns under ``locks``, and a route on an app
    that did not load (no runner) locks its sessions with the same object."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        session_service: BaseSessionService,
        artifact_service: BaseArtifactService,
        memory_service: BaseMemoryService | None = None,
        reload: bool = False,
        watcher: Callable[[], ChangeSource] = WatchfilesChanges,
        poll_interval: float = 0.25,
        model: BaseLlm | None = None,
        on_agent: Callable[[BaseAgent], None] | None = None,
        locks: SessionLocks,
    ) -> None:
        self.path = Path(os.path.abspath(path))
        self.locks = locks
        # ``model`` replaces every agent's model; ``on_agent`` sees each agent loaded, at start
        # or by a reload, before it serves a turn (the web UI records its model calls).
        self.model = model
        self.on_agent = on_agent
        self.session_service = session_service
        self.artifact_service = artifact_service
        self.memory_service = memory_service
        self.reload = reload
        self._watcher = watcher
        self._poll_interval = poll_interval
        self._subscribers: set[asyncio.Queue[dict[str, Any]]] = set()
        self._task: asyncio.Task[None] | None = None
        self.by_name: dict[str, App] = {}
        for folder in find_app_folders(self.path):
            app = App(folder.name, folder)
            self._load(app)
            self.by_name[app.name] = app

    @property
    def names(self) -> list[str]:
        return sorted(self.by_name)

    def _load(self, app: App) -> None:
        try:
            app.reloader = AgentReloader(app.folder, model=self.model)
        except AgentLoadError as exc:
            app.failure = exc
            logger.error("app %s did not load: %s", app.name, exc.message)
            for line in exc.details:
                logger.error("%s", line)
            return
        app.failure = None
        if self.on_agent is not None:
            self.on_agent(app.reloader.agent)
        app.runner = runner_for(
            app.reloader.target,
            app_name=app.name,
            session_service=self.session_service,
            artifact_service=self.artifact_service,
            memory_service=self.memory_service,
            session_locks=self.locks,
        )

    # --- reload -------------------------------------------------------------------------------

    async def start(self) -> None:
        """Start watching every app's files (with reload)."""
        if not self.reload or self._task is not None:
            return
        for app in self.by_name.values():
            app.changes = self._watcher()
            await asyncio.to_thread(self._watch, app)
        self._task = asyncio.create_task(self._poll_forever(), name="yadk-reload")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None
        for app in self.by_name.values():
            if app.changes is not None:
                await asyncio.to_thread(app.changes.close)
                app.changes = None

    def _watch(self, app: App) -> None:
        if app.changes is None:
            return
        if app.reloader is not None:
            app.changes.watch(app.reloader.root, app.reloader.files)
        else:  # never loaded: anything in its folder may be the fix
            app.changes.watch(app.folder, {app.folder})

    async def _poll_forever(self) -> None:
        while True:
            await asyncio.sleep(self._poll_interval)
            for app in list(self.by_name.values()):
                await self.apply_changes(app)

    async def apply_changes(self, app: App) -> dict[str, Any] | None:
        """Reload ``app`` if its watcher reports changes; returns the published result."""
        if app.changes is None:
            return None
        try:
            changed = app.changes.poll()
        except WatchFailed as exc:
            app.changes = None
            result: dict[str, Any] = {
                "app": app.name,
                "ok": False,
                "files": [],
                "ms": 0.0,
                "error": f"file watching stopped ({exc}); restart the server to reload again",
                "diagnostics": [],
                "details": [],
            }
            self.publish(result)
            return result
        if not changed:
            return None
        # Loading reads files and imports modules: off the event loop.
        result = await asyncio.to_thread(self._reload, app, changed)
        await asyncio.to_thread(self._watch, app)
        self.publish(result)
        return result

    def _reload(self, app: App, changed: set[Path]) -> dict[str, Any]:
        if app.reloader is None:
            return self._first_load(app, changed)
        outcome = app.reloader.reload(changed)
        if outcome.ok and app.runner is not None:
            if self.on_agent is not None:
                self.on_agent(app.reloader.agent)
            app.runner.retarget(app.reloader.target)
        return self._report(app, outcome)

    def _first_load(self, app: App, changed: set[Path]) -> dict[str, Any]:
        started = time.perf_counter()
        self._load(app)
        ms = (time.perf_counter() - started) * 1000
        names = shown_names(changed, app.folder)
        failure = app.failure
        if failure is None:
            outcome = Reload(True, names, ms)
        else:
            outcome = Reload(
                False, names, ms, failure.message, failure.details, failure.diagnostics
            )
        return self._report(app, outcome)

    def _report(self, app: App, outcome: Reload) -> dict[str, Any]:
        for line in outcome.lines:
            (logger.info if outcome.ok else logger.warning)("%s: %s", app.name, line)
        result = {"app": app.name, **outcome.to_dict()}
        app.last_reload = result
        return result

    # --- /dev/events subscribers ----------------------------------------------------------------

    def subscribe(self) -> asyncio.Queue[dict[str, Any]]:
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize=100)
        self._subscribers.add(queue)
        return queue

    def unsubscribe(self, queue: asyncio.Queue[dict[str, Any]]) -> None:
        self._subscribers.discard(queue)

    def publish(self, result: dict[str, Any]) -> None:
        for queue in self._subscribers:
            if queue.full():  # a reader that stopped reading loses the oldest results
                queue.get_nowait()
            queue.put_nowait(result)
