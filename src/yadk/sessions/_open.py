"""Choose a session service from a database URL."""

from __future__ import annotations

import asyncio
import os

from yadk.sessions._base import BaseSessionService
from yadk.sessions._memory import InMemorySessionService
from yadk.sessions._pg import PgDatabase, is_postgres_url
from yadk.sessions._postgres import PostgresSessionService
from yadk.sessions._sqlite import SqliteSessionService, sqlite_path
from yadk.sessions._sqlite_schema import upgrade_file

__all__ = ["open_session_service", "upgrade_schema"]


def open_session_service(url: str | os.PathLike[str]) -> BaseSessionService:
    """``:memory:`` -> in memory; a path or ``sqlite:///PATH`` -> that SQLite file;
    ``postgresql://...`` -> PostgreSQL (``yadk[postgres]``)."""
    text = os.fspath(url)
    if text == ":memory:":
        return InMemorySessionService()
    if is_postgres_url(text):
        return PostgresSessionService(text)
    return SqliteSessionService(text)


def upgrade_schema(url: str | os.PathLike[str]) -> tuple[int, int]:
    """Apply the schema migrations the database at ``url`` needs (what ``yadk db upgrade``
    does); returns the schema version before and after."""
    text = os.fspath(url)
    if is_postgres_url(text):
        return asyncio.run(PgDatabase(text).upgrade())
    return upgrade_file(sqlite_path(text))
