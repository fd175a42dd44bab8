"""yadk db upgrade: migrates an old session file once, then reports it current."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
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
    SqliteSessionService(db).close_now()


def test_upgrade_refuses_newer_and_missing_files(cli: Cli, tmp_path: Path) -> None:
    db = tmp_path / "new.db"
    SqliteSessionService(db).close_now()
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


@pytest.mark.subprocess
async def test_postgres_old_schema_is_refused_until_upgraded_and_newer_always(
    cli: Cli, postgres_url: str, tmp_path: Path
) -> None:
    import asyncio

    import psycopg

    from yadk.artifacts import PostgresArtifactService
    from yadk.events import Event, EventActions
    from yadk.sessions import PostgresSessionService
    from yadk.sessions._pg import _MIGRATIONS
    from yadk.sessions._pg import SCHEMA_VERSION as PG_VERSION

    schema = postgres_url.rsplit("schema=", 1)[1]
    admin_url = postgres_url.split("?", 1)[0]
    # A schema as yadk's first PostgreSQL version left it, with a session in it.
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f"CREATE SCHEMA {schema}")
        for statement in _MIGRATIONS[1].format(s=schema).split(";"):
            admin.execute(statement)
        admin.execute(f"CREATE TABLE {schema}.yadk_schema (version integer NOT NULL)")
        admin.execute(f"INSERT INTO {schema}.yadk_schema VALUES (1)")
        admin.execute(
            f"INSERT INTO {schema}.sessions VALUES ('app', 'u', 'old', '{{\"k\": 1}}', 1, 1, 0)"
        )
    needs_upgrade = (
        f"The PostgreSQL schema '{schema}' at {postgres_url} uses session schema version 1;"
        f" this yadk needs {PG_VERSION}. Back it up, then run `yadk db upgrade --db"
        f" {postgres_url}`."
    )
    sessions = PostgresSessionService(postgres_url)
    with pytest.raises(SessionStoreSchemaError) as refused:
        await sessions.get_session(app_name="app", user_id="u", session_id="old")
    assert refused.value.message == needs_upgrade
    artifacts = PostgresArtifactService(postgres_url)
    with pytest.raises(SessionStoreSchemaError, match="yadk db upgrade"):
        await artifacts.list_artifact_keys(app_name="app", user_id="u", session_id="old")
    await artifacts.aclose()
    # yadk serve stops before serving, with the same message.
    (tmp_path / "root_agent.yaml").write_text(
        "name: hello\nmodel: scripted:t.yaml\ninstruction: Hi.\n"
    )
    (tmp_path / "t.yaml").write_text("turns: [{text: hi}]\n")
    # (In a process of its own: serve configures the process's logging.)
    served = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "yadk.cli", "serve", str(tmp_path), "--db", postgres_url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (served.returncode, served.stderr) == (
        1,
        f"yadk serve: error: --db {postgres_url}: {needs_upgrade}\n",
    )

    upgrade = ("db", "upgrade", "--db", postgres_url)
    assert await asyncio.to_thread(cli, *upgrade) == (
        0,
        f"{postgres_url}: schema version 1 -> {PG_VERSION}\n",
        "",
    )
    assert await asyncio.to_thread(cli, *upgrade) == (
        0,
        f"{postgres_url}: schema version {PG_VERSION}, already current\n",
        "",
    )
    with psycopg.connect(admin_url) as admin:
        indexes = admin.execute(
            "SELECT indexname FROM pg_indexes WHERE schemaname = %s", (schema,)
        ).fetchall()
        assert {"sessions_by_update", "memories_by_seq"} <= {name for (name,) in indexes}
        # Version 6: events reference their session by a foreign key (dropped in 5, back in 6).
        keys = admin.execute(
            "SELECT conname FROM pg_constraint WHERE contype = 'f' AND conrelid = to_regclass(%s)",
            (f"{schema}.events",),
        ).fetchall()
        assert keys == [("events_app_name_user_id_session_id_fkey",)]
    upgraded = PostgresSessionService(postgres_url)
    old = await upgraded.get_session(app_name="app", user_id="u", session_id="old")
    assert old is not None and old.state == {"k": 1}
    await upgraded.append_event(old, Event(author="a", actions=EventActions(state_delta={"k": 2})))
    again = await upgraded.get_session(app_name="app", user_id="u", session_id="old")
    assert again is not None and again.state == {"k": 2} and len(again.events) == 1
    await upgraded.aclose()

    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f"UPDATE {schema}.yadk_schema SET version = %s", (PG_VERSION + 1,))
    newer = (
        f"The PostgreSQL schema '{schema}' at {postgres_url} was written by a newer yadk"
        f" (schema version {PG_VERSION + 1}; this yadk knows up to {PG_VERSION}). Upgrade yadk"
        " (pip install -U yadk) to use it."
    )
    assert await asyncio.to_thread(cli, *upgrade) == (
        1,
        "",
        f"yadk db: error: --db {postgres_url}: {newer}\n",
    )
    later = PostgresSessionService(postgres_url)
    with pytest.raises(SessionStoreSchemaError) as refused:
        await later.list_sessions(app_name="app")
    assert refused.value.message == newer
    await later.aclose()
    await sessions.aclose()
