"""What every route reaches for: the apps, the stores, the session locks, and the checks that
turn a path's app name into a runnable app (or a 404/503)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from yadk.artifacts import BaseArtifactService
from yadk.runner import Runner
from yadk.serve._apps import App, Apps
from yadk.serve._problems import Problem
from yadk.sessions import BaseSessionService, SessionBusy, SessionLocks

__all__ = ["Served"]


@dataclass
class Served:
    apps: Apps

    @property
    def locks(self) -> SessionLocks:
        """The turn locks every app's runner holds its turns under (``Apps.locks``)."""
        return self.apps.locks

    @property
    def sessions(self) -> BaseSessionService:
        return self.apps.session_service

    @property
    def artifacts(self) -> BaseArtifactService:
        return self.apps.artifact_service

    def app(self, name: str) -> App:
        """The listed app called ``name`` (names are only ever looked up, never used as paths)."""
        app = self.apps.by_name.get(name)
        if app is None:
            listed = ", ".join(self.apps.names)
            raise Problem(404, f"App not found: {name!r}. Served apps: {listed}")
        return app

    def runner(self, name: str) -> Runner:
        """The runner of a listed app that loaded; 503 with the diagnostics when it did not."""
        app = self.app(name)
        if app.runner is None:
            failure = app.failure
            message = failure.message if failure is not None else "not loaded"
            raise Problem(
                503,
                f"App {name!r} is not available: {message}",
                diagnostics=[d.to_dict() for d in failure.diagnostics] if failure else [],
                details=failure.details if failure else [],
            )
        return app.runner

    @asynccontextmanager
    async def locked(self, key: tuple[str, str, str]) -> AsyncIterator[None]:
        """Hold the session's lock; 409 when it stays busy for the whole wait."""
        try:
            await self.locks.acquire(key)
        except SessionBusy:
            raise Problem(409, busy_detail(key[2], self.locks.wait)) from None
        try:
            yield
        finally:
            await self.locks.released(key)


def busy_detail(session_id: str, wait: float) -> str:
    return (
        f"Session {session_id!r} is busy: another invocation was still running on it after"
        f" {wait:g} s. Wait for it to finish (or use another session), then send again."
    )
