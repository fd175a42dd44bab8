"""Where an app keeps its sessions and artifacts, chosen by one database URL.

``open_stores(url)`` is what every front end (``yadk run``, ``yadk dev``, ``yadk serve``,
``yadk sessions``) calls with its ``--db`` value:

    :memory:                           sessions, artifacts and memory in process memory
    PATH, sqlite:///PATH               sessions in that SQLite file, artifacts in ``artifacts/``
                                       and memory in ``NAME.memory.db`` beside it
    postgresql://..., postgres://...   all three in that PostgreSQL database (``yadk[postgres]``)
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from yadk.artifacts import (
    BaseArtifactService,
    FileArtifactService,
    InMemoryArtifactService,
    PostgresArtifactService,
)
from yadk.memory import (
    BaseMemoryService,
    InMemoryMemoryService,
    PostgresMemoryService,
    SqliteMemoryService,
)
from yadk.sessions import (
    BaseSessionService,
    InMemorySessionService,
    PostgresSessionService,
    SqliteSessionService,
    open_session_service,
)

__all__ = ["MEMORY", "Stores", "open_stores"]

MEMORY = ":memory:"

# The store of the front ends run without ``--db`` (``yadk run``, ``yadk serve``, ``yadk web``),
# for yadk's own packages: one file shared by every command in a folder.
DEFAULT_DB = str(Path(".yadk") / "sessions.db")


@dataclass
class Stores:
    """A session service, an artifact service and a memory service that live in the same place.

    ``where`` names the durable store (the ``--db`` value) or is ``None`` for memory.
    """

    sessions: BaseSessionService
    artifacts: BaseArtifactService
    where: str | None = None
    memory: BaseMemoryService = field(default_factory=InMemoryMemoryService)

    def close(self) -> None:
        """Release the stores' files and connections (synchronous services only)."""
        if isinstance(self.sessions, SqliteSessionService):
            self.sessions.close_now()
        if isinstance(self.memory, SqliteMemoryService):
            self.memory.close_now()

    async def aclose(self) -> None:
        """Release the stores' files and connections, from inside an event loop."""
        await self.sessions.aclose()
        if not isinstance(self.artifacts, PostgresArtifactService):  # shares the session pool
            await self.artifacts.aclose()
        await self.memory.close()  # a PostgreSQL memory leaves the shared pool to the sessions


def open_stores(url: str | os.PathLike[str]) -> Stores:
    """The stores named by ``url`` (see the module docstring); raises ``SessionError`` with a
    message that says what to fix when the store cannot be opened."""
    text = os.fspath(url)
    if text == MEMORY:
        return Stores(InMemorySessionService(), InMemoryArtifactService())
    sessions = open_session_service(text)
    if isinstance(sessions, SqliteSessionService):
        return Stores(
            sessions,
            FileArtifactService(sessions.path.parent / "artifacts"),
            text,
            SqliteMemoryService(sessions.path.with_suffix(".memory.db")),
        )
    if isinstance(sessions, PostgresSessionService):
        # One pool for all three: artifacts and memory live in the same database and schema.
        return Stores(
            sessions,
            PostgresArtifactService(text, database=sessions.db),
            text,
            PostgresMemoryService(database=sessions.db),
        )
    raise AssertionError(f"no artifact store for {type(sessions).__name__}")  # pragma: no cover
