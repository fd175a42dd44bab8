"""Choose a session service from a database URL."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from pathlib import Path

from yadk.sessions._base import BaseSessionService
from yadk.sessions._memory import InMemorySessionService
from yadk.sessions._pg import PgDatabase, is_postgres_url
from yadk.sessions._postgres import PostgresSessionService
from yadk.sessions._sqlite import SqliteSessionService, sqlite_path
from yadk.sessions._sqlite_schema import SCHEMA_VERSION, schema_version, upgrade_file

__all__ = ["open_session_service", "upgrade_local_store", "upgrade_schema"]


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


def upgrade_local_store(path: str | os.PathLike[str]) -> str | None:
    """Upgrade the default local store (``.yadk/sessions.db``) written by an older yadk, after
    copying it aside: the store a user never named should not make them run a command they
    never needed. Returns what was done, to say so, or None (no file, or already current). A
    store named with ``--db`` (or on PostgreSQL) is never upgraded behind its owner's back."""
    file = Path(path)
    if not file.is_file():
        return None
    source = sqlite3.connect(file, isolation_level=None, timeout=5.0)
    try:
        version = schema_version(source, file)
        if not 0 < version < SCHEMA_VERSION:
            return None  # empty, current, or newer (the store refuses that one itself)
        kept = file.with_name(f"{file.name}.v{version}.bak")
        copy = sqlite3.connect(kept)
        try:
            source.backup(copy)  # a consistent copy, write-ahead log included
        finally:
            copy.close()
    except sqlite3.Error:
        return None  # opening the store reports what is wrong with it
    finally:
        source.close()
    before, after = upgrade_file(file)
    return (
        f"upgraded the session store {file} from schema {before} to {after} (written by an"
        f" older yadk); the old file is kept as {kept}"
    )
