"""SqliteSessionService beyond the contract: durability, schema versions, and what each
database failure tells the user."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from yadk.errors import (
    SessionError,
    SessionStoreBusyError,
    SessionStoreCorruptError,
    SessionStoreError,
    SessionStoreSchemaError,
)
from yadk.events import Event, EventActions
from yadk.sessions import SqliteSessionService
from yadk.sessions._sqlite_schema import _CREATE_V1, SCHEMA_VERSION


def _event(delta: dict | None = None) -> Event:
    return Event(author="agent", actions=EventActions(state_delta=dict(delta or {})))


async def test_sessions_survive_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "nested" / "s.db"
    first = SqliteSessionService(db)
    s = await first.create_session(app_name="app", user_id="u", state={"app:t": 1})
    await first.append_event(s, _event({"k": "v", "user:l": "fr"}))
    await first.aclose()
    second = SqliteSessionService(f"sqlite:///{db}")
    again = await second.get_session(app_name="app", user_id="u", session_id=s.id)
    assert again is not None
    assert again.state == {"k": "v", "app:t": 1, "user:l": "fr"}
    assert [e.actions.state_delta for e in again.events] == [{"k": "v", "user:l": "fr"}]
    await second.append_event(again, _event({"k": "w"}))
    await second.aclose()


def test_rejects_other_urls() -> None:
    with pytest.raises(SessionError, match="sqlite:///PATH URL"):
        SqliteSessionService("mysql://localhost/db")


_HOLD_LOCK = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.readline()
conn.execute("COMMIT")
"""


async def _hold_write_lock(db: Path) -> asyncio.subprocess.Process:
    """Another process that takes the database's write lock and keeps it until it reads a line."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        _HOLD_LOCK,
        str(db),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert proc.stdout is not None
    assert await asyncio.wait_for(proc.stdout.readline(), 30) == b"locked\n"
    return proc


@pytest.mark.subprocess
async def test_a_lock_held_by_another_process_does_not_stall_the_loop(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    service = SqliteSessionService(db, busy_timeout=30)
    s = await service.create_session(app_name="app", user_id="u")
    proc = await _hold_write_lock(db)
    append = asyncio.ensure_future(service.append_event(s, _event({"k": 1})))
    # An append that waited for the lock on the loop would have run (and, 30 s later, failed)
    # within these turns; off the loop it is still waiting while this coroutine goes on.
    for _ in range(50):
        await asyncio.sleep(0)
    assert not append.done()
    assert proc.stdin is not None
    proc.stdin.write(b"done\n")  # the other process commits and lets go
    await append
    await proc.wait()
    await service.aclose()
    assert s.state == {"k": 1}


@pytest.mark.subprocess
async def test_a_lock_held_past_busy_timeout_is_a_clear_error(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    service = SqliteSessionService(db, busy_timeout=0.2)
    s = await service.create_session(app_name="app", user_id="u")
    proc = await _hold_write_lock(db)
    with pytest.raises(SessionStoreBusyError) as caught:
        await service.append_event(s, _event({"k": 1}))
    proc.kill()
    await proc.wait()
    assert caught.value.message == (
        f"The session database {db} stayed locked by another connection for more than 0.2 s."
        " Another process (a second `yadk run`/`yadk serve` on the same --db?) holds a write"
        " transaction: wait for it to finish, stop it, or give each process its own --db."
    )
    await service.append_event(s, _event({"k": 2}))  # usable again once the lock is gone
    await service.aclose()


async def test_disk_full(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    service = SqliteSessionService(db)
    s = await service.create_session(app_name="app", user_id="u")
    # SQLite reports a capped database exactly like a full disk (SQLITE_FULL).
    await service._run(lambda conn: conn.execute("PRAGMA max_page_count = 8"))
    with pytest.raises(SessionStoreError, match=r"cannot grow: the disk .* is full\. Free"):
        for _ in range(100):
            await service.append_event(s, _event({"big": "x" * 4000}))
    await service.aclose()


@pytest.mark.skipif(shutil.which("chattr") is None, reason="needs chattr")
@pytest.mark.subprocess
async def test_immutable_file(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    SqliteSessionService(db).close_now()
    if subprocess.run(["chattr", "+i", str(db)], capture_output=True).returncode:
        pytest.skip("this file system or user cannot mark files immutable")
    try:
        service = SqliteSessionService(db)
        with pytest.raises(SessionStoreError, match="is read-only: make the file"):
            await service.create_session(app_name="app", user_id="u")
        await service.aclose()
    except SessionStoreError as exc:  # refused already when opening: same message
        assert "is read-only: make the file" in exc.message
    finally:
        subprocess.run(["chattr", "-i", str(db)], check=True)


def test_parent_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    with pytest.raises(SessionStoreError) as caught:
        SqliteSessionService(tmp_path / "notes.txt" / "sub" / "s.db")
    assert caught.value.message == (
        f"Cannot create the session database {tmp_path}/notes.txt/sub/s.db:"
        f" {tmp_path}/notes.txt is a file, not a folder. Give --db a path inside a folder."
    )


async def test_corrupt_event_row_is_named(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    service = SqliteSessionService(db)
    s = await service.create_session(app_name="app", user_id="u", session_id="s1")
    await service.append_event(s, _event({"a": 1}))
    await service.append_event(s, _event({"a": 2}))
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE events SET data = '{\"author\": 5' WHERE seq = 2")
    with pytest.raises(SessionStoreCorruptError) as caught:
        await service.get_session(app_name="app", user_id="u", session_id="s1")
    assert caught.value.message.startswith(
        f"Cannot read back event 2 of 2 read from session 's1' in {db}: "
    )
    assert "restore it from a backup, or delete the session" in caught.value.message
    await service.aclose()


def test_foreign_schema_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "adk.db"
    with sqlite3.connect(db) as conn:  # the tables google-adk's DatabaseSessionService writes
        conn.execute("CREATE TABLE sessions (app_name, user_id, id, state, create_time)")
        conn.execute("CREATE TABLE events (id, app_name, user_id, session_id, invocation_id)")
    with pytest.raises(SessionStoreSchemaError) as caught:
        SqliteSessionService(db)
    assert caught.value.message == (
        f"{db} is a SQLite database that yadk did not write (it holds tables events,"
        " sessions). Give --db a new file name, or a copy of a yadk session database."
    )


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    SqliteSessionService(db).close_now()
    with sqlite3.connect(db) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(SessionStoreSchemaError, match="written by a newer yadk"):
        SqliteSessionService(db, migrate=True)


async def test_older_schema_is_refused_until_migrated(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    with sqlite3.connect(db) as conn:  # a file written by yadk before schema versions
        conn.executescript(_CREATE_V1)
        conn.execute("INSERT INTO sessions VALUES ('app', 'u', 's1', '{}', 1.0, 1.0, 1)")
        conn.execute(
            "INSERT INTO events VALUES ('app', 'u', 's1', 1, 1.0, ?)",
            (_event({"k": 1}).model_copy(update={"id": "e1"}).model_dump_json(),),
        )
    with pytest.raises(SessionStoreSchemaError) as caught:
        SqliteSessionService(db)
    assert caught.value.message == (
        f"{db} uses session schema version 1; this yadk needs version {SCHEMA_VERSION}. Back"
        f" the file up, then run `yadk db upgrade --db {db}`."
    )
    service = SqliteSessionService(db, migrate=True)
    s = await service.get_session(app_name="app", user_id="u", session_id="s1")
    assert s is not None and [e.id for e in s.events] == ["e1"]
    stale = await service.get_session(app_name="app", user_id="u", session_id="s1")
    assert stale is not None
    await service.append_event(s, s.events[0])  # the migrated row is known by its id
    await service.append_event(stale, _event({"k": 2}))
    await service.aclose()


@pytest.mark.subprocess
async def test_turn_locks_exclude_another_process_until_it_lets_go(tmp_path: Path) -> None:
    import subprocess
    import sys

    service = SqliteSessionService(tmp_path / "sessions.db")
    locks = service.turn_locks()
    assert locks is not None
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import asyncio, sys\n"
            "from yadk.sessions import SqliteSessionService\n"
            f"s = SqliteSessionService({str(tmp_path / 'sessions.db')!r})\n"
            "print(asyncio.run(s.turn_locks().try_lock(('app', 'u', 's'))), flush=True)\n"
            "sys.stdin.readline()\n",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "True\n"
        assert await locks.try_lock(("app", "u", "s")) is False
        assert await locks.try_lock(("app", "u", "other")) is True
        await locks.unlock(("app", "u", "other"))
    finally:
        holder.communicate("\n", timeout=30)  # it exits: the kernel drops its locks
    assert await locks.try_lock(("app", "u", "s")) is True
    assert await locks.try_lock(("app", "u", "s")) is True  # counted within the process
    await locks.unlock(("app", "u", "s"))
    await locks.unlock(("app", "u", "s"))
    await service.aclose()
