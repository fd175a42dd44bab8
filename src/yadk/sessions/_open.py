"""Choose a session service from a database URL."""

from __future__ import annotations

import os

from yadk.sessions._base import BaseSessionService
from yadk.sessions._memory import InMemorySessionService
from yadk.sessions._sqlite import SqliteSessionService

__all__ = ["open_session_service"]


def open_session_service(url: str | os.PathLike[str]) -> BaseSessionService:
    """``:memory:`` -> in memory; a path or ``sqlite:///PATH`` -> that SQLite file."""
    text = os.fspath(url)
    if text == ":memory:":
        return InMemorySessionService()
    return SqliteSessionService(text)
