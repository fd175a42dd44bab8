"""Where an app keeps its sessions and artifacts, chosen by one database URL.

``open_stores(url)`` is what every front end (``yadk run``, ``yadk dev``, ``yadk serve``,
``yadk sessions``) calls with its ``--db`` value:

    :memory:                           sessions and artifacts in process memory
    PATH, sqlite:///PATH               sessions in that SQLite file, artifacts in ``artifacts/``
                                       beside it
    postgresql://..., postgres://...   both in that PostgreSQL database (``yadk[postgres]``)
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from yadk.artifacts import (
    BaseArtifactService,
    FileArtifactService,
    InMemoryArtifactService,
    PostgresArtifactService,
)
from yadk.sessions import (
    BaseSessionService,
    InMemorySessionService,
    PostgresSessionService,
    open_session_service,
)
from yadk.sessions._sqlite import SqliteSessionService

__all__ = ["MEMORY", "Stores", "open_stores"]

MEMORY = ":memory:"


@dataclass
class Stores:
    """A session service and an artifact service that live in the same place.

    ``where`` names the durable store (the ``--db`` value) or is ``None`` for memory.
    """

    sessions: BaseSessionService
    artifacts: BaseArtifactService
    where: str | None = None

    def close(self) -> None:
        """Release the stores' files and connections (synchronous services only)."""
        if isinstance(self.sessions, SqliteSessionService):
            self.sessions.close()

    async def aclose(self) -> None:
        """Release the stores' files and connections, from inside an event loop."""
        await self.sessions.aclose()
        if not isinstance(self.artifacts, PostgresArtifactService):  # shares the session pool
            await self.artifacts.aclose()


def open_stores(url: str | os.PathLike[str]) -> Stores:
    """The stores named by ``url`` (see the module docstring); raises ``SessionError`` with a
    message that says what to fix when the store cannot be opened."""
    text = os.fspath(url)
    if text == MEMORY:
        return Stores(InMemorySessionService(), InMemoryArtifactService())
    sessions = open_session_service(text)
    if isinstance(sessions, SqliteSessionService):
        return Stores(sessions, FileArtifactService(sessions.path.parent / "artifacts"), text)
    if isinstance(sessions, PostgresSessionService):
        # One pool for both: artifacts live in the same database and schema.
        return Stores(sessions, PostgresArtifactService(text, database=sessions.db), text)
    raise AssertionError(f"no artifact store for {type(sessions).__name__}")  # pragma: no cover
