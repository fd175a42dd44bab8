"""yadk db upgrade: migrates an old session file once, then reports it current."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from yadk.errors import SessionStoreSchemaError
from yadk.sessions import SqliteSessionService
from yadk.sessions._sqlite_schema import _CREATE_V1, SCHEMA_VERSION

Cli = Callable[..., tuple[int, str, str]]


def test_upgrade_an_old_file_then_it_is_current(cli: Cli, tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    with sqlite3.connect(db) as conn:
        conn.executescript(_CREATE_V1)
    with pytest.raises(SessionStoreSchemaError, match="yadk db upgrade"):
        SqliteSessionService(db)
    assert cli("db", "upgrade", "--db", str(db)) == (
        0,
        f"{db}: schema version 1 -> {SCHEMA_VERSION}\n",
        "",
    )
    assert cli("db", "upgrade", "--db", f"sqlite:///{db}") == (
        0,
        f"sqlite:///{db}: schema version {SCHEMA_VERSION}, already current\n",
        "",
    )
    SqliteSessionService(db).close()


def test_upgrade_refuses_newer_and_missing_files(cli: Cli, tmp_path: Path) -> None:
    db = tmp_path / "new.db"
    SqliteSessionService(db).close()
    with sqlite3.connect(db) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    code, out, err = cli("db", "upgrade", "--db", str(db))
    assert (code, out) == (1, "")
    assert err == (
        f"yadk db: error: --db {db}: {db} was written by a newer yadk (schema version"
        f" {SCHEMA_VERSION + 1}; this yadk knows up to {SCHEMA_VERSION}). Upgrade yadk (pip"
        " install -U yadk) to use it.\n"
    )
    code, out, err = cli("db", "upgrade", "--db", str(tmp_path / "none.db"))
    assert (code, out) == (1, "")
    assert "There is no session database at" in err
    assert not (tmp_path / "none.db").exists()


def test_upgrade_a_version_1_postgres_schema_adds_memories(cli: Cli, postgres_url: str) -> None:
    import asyncio

    import psycopg

    from yadk.memory import PostgresMemoryService
    from yadk.sessions import PostgresSessionService
    from yadk.sessions._pg import SCHEMA_VERSION as PG_VERSION

    async def create() -> None:
        sessions = PostgresSessionService(postgres_url)
        await sessions.create_session(app_name="app", user_id="u", session_id="kept")
        await sessions.aclose()

    asyncio.run(create())
    schema = postgres_url.rsplit("schema=", 1)[1]
    with psycopg.connect(postgres_url.split("?", 1)[0], autocommit=True) as admin:
        admin.execute(f"DROP TABLE {schema}.memories")
        admin.execute(f"UPDATE {schema}.yadk_schema SET version = 1")
    assert cli("db", "upgrade", "--db", postgres_url) == (
        0,
        f"{postgres_url}: schema version 1 -> {PG_VERSION}\n",
        "",
    )
    assert cli("db", "upgrade", "--db", postgres_url)[1] == (
        f"{postgres_url}: schema version {PG_VERSION}, already current\n"
    )

    async def search() -> int:
        memory = PostgresMemoryService(postgres_url)
        found = await memory.search_memory(app_name="app", user_id="u", query="x")
        await memory.close()
        return len(found.memories)

    assert asyncio.run(search()) == 0
