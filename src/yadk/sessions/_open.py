"""Choose a session service from a database URL."""

from __future__ import annotations

import os

from yadk.sessions._base import BaseSessionService
from yadk.sessions._memory import InMemorySessionService
from yadk.sessions._sqlite import SqliteSessionService, sqlite_path
from yadk.sessions._sqlite_schema import upgrade_file

__all__ = ["open_session_service", "upgrade_schema"]


def open_session_service(url: str | os.PathLike[str]) -> BaseSessionService:
    """``:memory:`` -> in memory; a path or ``sqlite:///PATH`` -> that SQLite file."""
    text = os.fspath(url)
    if text == ":memory:":
        return InMemorySessionService()
    return SqliteSessionService(text)


def upgrade_schema(url: str | os.PathLike[str]) -> tuple[int, int]:
    """Apply the schema migrations the database at ``url`` needs (what ``yadk db upgrade``
    does); returns the schema version before and after."""
    return upgrade_file(sqlite_path(url))
