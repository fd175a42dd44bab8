"""The SQLite session schema: creation, versions (``PRAGMA user_version``), migrations, and
what each SQLite failure means for the person running yadk.

Schema versions:
    1  app_states, user_states, sessions, events (yadk before schema versions; user_version 0)
    2  events.event_id with a unique index per session, so appending a stored event is a no-op
    3  events carry a foreign key to their session (ON DELETE CASCADE): the database itself
       refuses an event of no session. Connections turn ``PRAGMA foreign_keys`` on.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from yadk.errors import (
    SessionStoreBusyError,
    SessionStoreCorruptError,
    SessionStoreError,
    SessionStoreSchemaError,
)

__all__ = [
    "SCHEMA_VERSION",
    "prepare_schema",
    "schema_version",
    "translate_error",
    "upgrade",
    "upgrade_file",
]

SCHEMA_VERSION = 3

_TABLES_V1 = {
    "app_states": ["app_name", "state"],
    "user_states": ["app_name", "user_id", "state"],
    "sessions": ["app_name", "user_id", "id", "state", "create_time", "update_time", "version"],
    "events": ["app_name", "user_id", "session_id", "seq", "timestamp", "data"],
}

_CREATE_V1 = """
CREATE TABLE app_states (
    app_name TEXT PRIMARY KEY,
    state TEXT NOT NULL
);
CREATE TABLE user_states (
    app_name TEXT NOT NULL,
    user_id TEXT NOT NULL,
    state TEXT NOT NULL,
    PRIMARY KEY (app_name, user_id)
);
CREATE TABLE sessions (
    app_name TEXT NOT NULL,
    user_id TEXT NOT NULL,
    id TEXT NOT NULL,
    state TEXT NOT NULL,
    create_time REAL NOT NULL,
    update_time REAL NOT NULL,
    version INTEGER NOT NULL,
    PRIMARY KEY (app_name, user_id, id)
);
CREATE TABLE events (
    app_name TEXT NOT NULL,
    user_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    timestamp REAL NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (app_name, user_id, session_id, seq)
);
"""

# Each entry takes the schema from version N-1 to N.
_MIGRATIONS = {
    2: """
ALTER TABLE events ADD COLUMN event_id TEXT;
UPDATE events SET event_id = json_extract(data, '$.id');
CREATE UNIQUE INDEX events_by_id ON events (app_name, user_id, session_id, event_id);
""",
    # SQLite adds a foreign key only by building the table again. Events of no session (none
    # yadk wrote: a session's delete takes its events) would fail the key: they go.
    3: """
DELETE FROM events WHERE NOT EXISTS (
    SELECT 1 FROM sessions s
    WHERE s.app_name = events.app_name AND s.user_id = events.user_id AND s.id = events.session_id
);
CREATE TABLE events_with_key (
    app_name TEXT NOT NULL,
    user_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    timestamp REAL NOT NULL,
    data TEXT NOT NULL,
    event_id TEXT,
    PRIMARY KEY (app_name, user_id, session_id, seq),
    FOREIGN KEY (app_name, user_id, session_id)
        REFERENCES sessions (app_name, user_id, id) ON DELETE CASCADE
);
INSERT INTO events_with_key (app_name, user_id, session_id, seq, timestamp, data, event_id)
    SELECT app_name, user_id, session_id, seq, timestamp, data, event_id FROM events;
DROP TABLE events;
ALTER TABLE events_with_key RENAME TO events;
CREATE UNIQUE INDEX events_by_id ON events (app_name, user_id, session_id, event_id);
""",
}


def schema_version(conn: sqlite3.Connection, path: Path) -> int:
    """The file's schema version: 0 for an empty database; refuses tables yadk did not write."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version:
        return version
    tables = {
        name: [c[1] for c in conn.execute(f"PRAGMA table_info('{name}')")]
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
        )
    }
    if not tables:
        return 0
    if {name: tables.get(name) for name in _TABLES_V1} == _TABLES_V1:
        return 1
    raise SessionStoreSchemaError(
        f"{path} is a SQLite database that yadk did not write (it holds tables"
        f" {', '.join(sorted(tables))}). Give --db a new file name, or a copy of a yadk session"
        " database."
    )


def prepare_schema(conn: sqlite3.Connection, path: Path, *, migrate: bool) -> None:
    """Create the schema in an empty file, check it in an existing one; migrate if asked."""
    version = schema_version(conn, path)
    if version > SCHEMA_VERSION:
        raise SessionStoreSchemaError(
            f"{path} was written by a newer yadk (schema version {version}; this yadk knows up"
            f" to {SCHEMA_VERSION}). Upgrade yadk (pip install -U yadk) to use it."
        )
    if version == SCHEMA_VERSION:
        return
    if version and not migrate:
        raise SessionStoreSchemaError(
            f"{path} uses session schema version {version}; this yadk needs version"
            f" {SCHEMA_VERSION}. Back the file up, then run `yadk db upgrade --db {path}`."
        )
    upgrade(conn, version)


def upgrade(conn: sqlite3.Connection, version: int) -> int:
    """Apply the migrations after ``version`` in one transaction; returns the new version."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        scripts = [_CREATE_V1] if version == 0 else []
        scripts += [_MIGRATIONS[v] for v in range(max(version, 1) + 1, SCHEMA_VERSION + 1)]
        for script in scripts:
            for statement in filter(str.strip, script.split(";")):
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return SCHEMA_VERSION


def translate_error(exc: sqlite3.Error, path: Path, busy_timeout: float) -> SessionStoreError:
    """A ``SessionStoreError`` that says what went wrong with ``path`` and what to do."""
    text = str(exc)
    low = text.lower()
    if "locked" in low or "busy" in low:
        return SessionStoreBusyError(
            f"The session database {path} stayed locked by another connection for more than"
            f" {busy_timeout:g} s. Another process (a second `yadk run`/`yadk serve` on the"
            " same --db?) holds a write transaction: wait for it to finish, stop it, or give"
            " each process its own --db."
        )
    if "full" in low:
        return SessionStoreError(
            f"The session database {path} cannot grow: the disk (or the database's size limit)"
            " is full. Free some space, or move --db to another disk."
        )
    if "readonly" in low or "read-only" in low:
        return SessionStoreError(
            f"The session database {path} is read-only: make the file, its folder and its"
            " -wal/-shm files writable (and not immutable), or give --db another file."
        )
    if "not a database" in low or "malformed" in low or "corrupt" in low:
        return SessionStoreCorruptError(
            f"{path} is not a usable SQLite database ({text}). Give --db a new file name, or"
            " restore the file from a backup."
        )
    if "unable to open" in low:
        return SessionStoreError(
            f"Cannot open the session database {path}: check that its folder exists and is"
            " writable, or give --db another file."
        )
    if "no such table" in low or "no such column" in low or "has no column" in low:
        return SessionStoreSchemaError(
            f"The session database {path} does not hold yadk's tables ({text}). Give --db a new"
            " file name."
        )
    return SessionStoreError(f"The session database {path} failed: {text}.")


def upgrade_file(path: Path) -> tuple[int, int]:
    """Migrate an existing session file to this yadk's schema: (version before, version after)."""
    if not path.is_file():
        raise SessionStoreError(
            f"There is no session database at {path}; yadk creates it on first use, with the"
            " current schema."
        )
    conn = sqlite3.connect(path, isolation_level=None, timeout=5.0)
    try:
        before = schema_version(conn, path)
        if before > SCHEMA_VERSION:
            prepare_schema(conn, path, migrate=True)  # raises: written by a newer yadk
        after = upgrade(conn, before) if before < SCHEMA_VERSION else before
    except sqlite3.Error as exc:
        raise translate_error(exc, path, 5.0) from None
    finally:
        conn.close()
    return before, after
