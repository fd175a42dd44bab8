"""Events carry a foreign key to their session (SQLite schema 3, PostgreSQL schema 6): a file
or schema written before it is refused until ``yadk db upgrade``, which adds the key, keeps every
event of a session, and drops events of no session."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg
import pytest
from psycopg import errors

from yadk.errors import SessionStoreSchemaError
from yadk.sessions import PostgresSessionService, SqliteSessionService
from yadk.sessions._open import upgrade_schema
from yadk.sessions._pg import _MIGRATIONS, PgDatabase
from yadk.sessions._sqlite_schema import _CREATE_V1
from yadk.sessions._sqlite_schema import _MIGRATIONS as _SQLITE_MIGRATIONS

from .test_postgres import _base, _schema

_EVENT = '{"id":"%s","author":"user","timestamp":1.0}'


def _sqlite_v2(path: Path) -> None:
    """A session file as yadk wrote it at schema 2: one session with two events, and an event
    whose session is gone."""
    with sqlite3.connect(path) as conn:
        conn.executescript(_CREATE_V1 + _SQLITE_MIGRATIONS[2])
        conn.execute("INSERT INTO sessions VALUES ('app', 'u', 's', '{\"k\": 1}', 1.0, 2.0, 2)")
        for seq, (session, event) in enumerate([("s", "e1"), ("s", "e2"), ("gone", "e3")], 1):
            conn.execute(
                "INSERT INTO events VALUES ('app', 'u', ?, ?, 1.0, ?, ?)",
                (session, seq, _EVENT % event, event),
            )
        conn.execute("PRAGMA user_version = 2")
    conn.close()


async def test_a_sqlite_file_of_schema_2_is_upgraded_to_the_key(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    _sqlite_v2(db)
    with pytest.raises(SessionStoreSchemaError, match="uses session schema version 2"):
        SqliteSessionService(db)
    assert upgrade_schema(db) == (2, 3)
    assert upgrade_schema(db) == (3, 3)
    service = SqliteSessionService(db)
    try:
        session = await service.get_session(app_name="app", user_id="u", session_id="s")
        assert session is not None and [e.id for e in session.events] == ["e1", "e2"]
        assert session.state == {"k": 1}
    finally:
        await service.aclose()
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA foreign_keys=ON")
        assert conn.execute("SELECT count(*) FROM events").fetchone() == (2,)  # the orphan went
        with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY constraint failed"):
            conn.execute(
                "INSERT INTO events VALUES ('app', 'u', 'none', 1, 1.0, ?, 'e9')", (_EVENT % "e9",)
            )
        conn.execute("DELETE FROM sessions WHERE id = 's'")  # the key's cascade takes its events
        assert conn.execute("SELECT count(*) FROM events").fetchone() == (0,)
    conn.close()


async def test_a_new_sqlite_file_has_the_key(tmp_path: Path) -> None:
    service = SqliteSessionService(tmp_path / "s.db")
    await service.create_session(app_name="app", user_id="u", session_id="s")
    await service.aclose()
    with sqlite3.connect(tmp_path / "s.db") as conn:
        keys = conn.execute("PRAGMA foreign_key_list(events)").fetchall()
    conn.close()
    assert {(k[2], k[3], k[4], k[6]) for k in keys} == {
        ("sessions", "app_name", "app_name", "CASCADE"),
        ("sessions", "user_id", "user_id", "CASCADE"),
        ("sessions", "session_id", "id", "CASCADE"),
    }


def _key_count(conn: psycopg.Connection, schema: str) -> int:
    row = conn.execute(
        "SELECT count(*) FROM pg_constraint WHERE contype = 'f'"
        " AND conrelid = (%s || '.events')::regclass",
        (schema,),
    ).fetchone()
    assert row is not None
    return int(row[0])


@pytest.mark.postgres
async def test_a_postgres_schema_of_version_5_is_upgraded_to_the_key(postgres_url: str) -> None:
    schema = _schema(postgres_url)
    with psycopg.connect(_base(postgres_url), autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
        for step in range(1, 6):
            for statement in filter(str.strip, _MIGRATIONS[step].format(s=schema).split(";")):
                conn.execute(statement)
        conn.execute(f"CREATE TABLE {schema}.yadk_schema (version integer NOT NULL)")
        conn.execute(f"INSERT INTO {schema}.yadk_schema VALUES (5)")
        conn.execute(
            f"INSERT INTO {schema}.sessions VALUES ('app', 'u', 's', '{{\"k\": 1}}', 1.0, 2.0, 2)"
        )
        for seq, (session, event) in enumerate([("s", "e1"), ("s", "e2"), ("gone", "e3")], 1):
            conn.execute(
                f"INSERT INTO {schema}.events VALUES ('app', 'u', %s, %s, %s, 1.0, %s)",
                (session, seq, event, _EVENT % event),
            )
        assert _key_count(conn, schema) == 0
    with pytest.raises(SessionStoreSchemaError, match="uses session schema version 5"):
        service = PostgresSessionService(postgres_url)
        try:
            await service.get_session(app_name="app", user_id="u", session_id="s")
        finally:
            await service.aclose()
    assert await PgDatabase(postgres_url).upgrade() == (5, 6)  # what `yadk db upgrade` runs
    service = PostgresSessionService(postgres_url)
    try:
        session = await service.get_session(app_name="app", user_id="u", session_id="s")
        assert session is not None and [e.id for e in session.events] == ["e1", "e2"]
    finally:
        await service.aclose()
    with psycopg.connect(_base(postgres_url), autocommit=True) as conn:
        assert _key_count(conn, schema) == 1
        assert conn.execute(f"SELECT count(*) FROM {schema}.events").fetchone() == (2,)
        with pytest.raises(errors.ForeignKeyViolation):
            conn.execute(
                f"INSERT INTO {schema}.events VALUES ('app', 'u', 'none', 1, 'e9', 1.0, '{{}}')"
            )
        conn.execute(f"DELETE FROM {schema}.sessions WHERE id = 's'")
        assert conn.execute(f"SELECT count(*) FROM {schema}.events").fetchone() == (0,)
