"""Requests no store can keep get a clear 4xx at the boundary, the same on every store (a lone
surrogate is not Unicode; PostgreSQL refuses NUL), and a store that cannot be written (disk
full, read-only) is a 503 that says why, or stops ``yadk serve`` before it starts."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.serve.conftest import AGENTS, message

from yadk.serve._guard import unstorable
from yadk.sessions import SqliteSessionService

S = "/apps/echo/users/u1/sessions"
NUL_IN_URL = "The URL holds a NUL character (%00), which no session store keeps: remove it."


def _lone(escape: str, at: int) -> str:
    return (
        f"The body holds {escape} at byte {at}, a lone surrogate (half of a UTF-16 pair), which"
        " is not Unicode text: send the whole pair, or the character itself in UTF-8."
    )


def _nul(at: int) -> str:
    return (
        f"The body holds \\u0000 (a NUL character) at byte {at}, which no session store keeps:"
        " remove it."
    )


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (b'{"a": "plain"}', None),
        (b'{"a": "\\ud83d\\ude00"}', None),  # a whole pair: one character
        (b'{"a": "\\\\u0000 and \\\\ud800"}', None),  # backslashes, then text
        (b'{"a": "\\n\\t\\"\\u00e9"}', None),
        (b'{"a": "\\u0000"}', _nul(7)),
        (b'{"\\u0000": 1}', _nul(2)),
        (b'{"a": "\\\\\\u0000"}', _nul(9)),  # an escaped backslash, then NUL
        (b'{"a": "\\ud800"}', _lone("\\ud800", 7)),
        (b'{"a": "\\uDFFF"}', _lone("\\udfff", 7)),
        (b'{"a": "\\ud800x\\udc00"}', _lone("\\ud800", 7)),
        (b'{"a": "\\ud800\\n"}', _lone("\\ud800", 7)),
        (b'{"a": "\\ud800\\ud800\\udc00"}', _lone("\\ud800", 7)),
        (b'{"\\udcff": 1}', _lone("\\udcff", 2)),
    ],
)
def test_unstorable(body: bytes, problem: str | None) -> None:
    assert unstorable(body) == problem


@pytest.fixture
def sqlite_client(make_client: Callable[..., Any], tmp_path: Path) -> Any:
    return make_client(session_service=SqliteSessionService(tmp_path / "s.db"))


def _cases() -> list[tuple[str, str, str, int, str]]:
    surrogate = '{"appName": "echo", "userId": "u1", "sessionId": "s1", "newMessage":'
    return [
        (
            "POST",
            "/run",
            surrogate + ' {"role": "user", "parts": [{"text": "hi \\udcff"}]}}',
            400,
            _lone("\\udcff", len(surrogate) + 41),
        ),
        ("PATCH", f"{S}/s1", '{"stateDelta": {"k\\ud800": 1}}', 400, _lone("\\ud800", 18)),
        ("POST", S, '{"sessionId": "s2", "state": {"\\udc80": 1}}', 400, _lone("\\udc80", 31)),
        ("PATCH", f"{S}/s1", '{"stateDelta": {"k": "a\\u0000b"}}', 400, _nul(23)),
        ("POST", S, '{"sessionId": "a\\u0000b"}', 400, _nul(16)),
        ("POST", f"{S}/a%00b", "{}", 400, NUL_IN_URL),
        ("GET", "/apps/echo/users/u%001/sessions", "", 400, NUL_IN_URL),
        ("GET", f"{S}/s1/artifacts/a.txt?version=%00", "", 400, NUL_IN_URL),
    ]


@pytest.mark.parametrize(("method", "path", "body", "status", "detail"), _cases())
async def test_text_no_store_keeps_is_a_400_naming_it(
    sqlite_client: Any, method: str, path: str, body: str, status: int, detail: str
) -> None:
    async with sqlite_client as client:
        await client.post(S, json={"sessionId": "s1"})
        response = await client.request(
            method, path, content=body.encode(), headers={"content-type": "application/json"}
        )
        assert (response.status_code, response.json()) == (status, {"detail": detail})
        # A whole pair is a character like any other.
        fine = await client.post("/run", json=message("hi \U0001f600"))
        assert fine.json()[0]["content"]["parts"] == [{"text": "echo: hi \U0001f600"}]


@pytest.mark.postgres
async def test_nul_in_an_id_or_a_state_value_on_postgresql(
    make_client: Callable[..., Any], postgres_url: str
) -> None:
    from yadk.sessions import PostgresSessionService

    service = PostgresSessionService(postgres_url)
    async with make_client(session_service=service) as client:
        created = await client.post(f"{S}/a%00b", json={})
        assert (created.status_code, created.json()) == (400, {"detail": NUL_IN_URL})
        await client.post(S, json={"sessionId": "s1"})
        patched = await client.patch(
            f"{S}/s1",
            content=b'{"stateDelta": {"k": "a\\u0000b"}}',
            headers={"content-type": "application/json"},
        )
        assert (patched.status_code, patched.json()) == (400, {"detail": _nul(23)})
        assert (await client.get(f"{S}/s1")).json()["state"] == {}
    await service.aclose()


async def test_a_full_disk_is_a_503_that_says_so(
    make_client: Callable[..., Any], tmp_path: Path
) -> None:
    service = SqliteSessionService(tmp_path / "s.db")
    async with make_client(session_service=service) as client:
        await client.post(S, json={"sessionId": "s1"})
        # SQLite reports a capped database exactly like a full disk (SQLITE_FULL).
        await service._run(lambda conn: conn.execute("PRAGMA max_page_count = 8"))
        response = await client.post("/run", json=message("x" * 40000))
        assert (response.status_code, response.json()) == (
            503,
            {
                "detail": "The session store cannot be used: The session database"
                f" {tmp_path / 's.db'} cannot grow: the disk (or the database's size limit)"
                " is full. Free some space, or move --db to another disk."
            },
        )
        assert (await client.get("/health")).status_code == 200


def _immutable(path: Path) -> bool:
    if shutil.which("chattr") is None:
        return False
    return subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode == 0


READ_ONLY = (
    "The session database {db} is read-only: make the file, its folder and its -wal/-shm"
    " files writable (and not immutable), or give --db another file."
)


@pytest.mark.subprocess  # chattr makes the file immutable
async def test_every_write_on_a_read_only_database_is_a_503(
    make_client: Callable[..., Any], tmp_path: Path
) -> None:
    db = tmp_path / "s.db"
    made = SqliteSessionService(db)
    await made.create_session(app_name="echo", user_id="u1", session_id="s1")
    await made.aclose()
    if not _immutable(db):
        pytest.skip("this file system or user cannot mark files immutable")
    try:
        service = SqliteSessionService(db)
        async with make_client(session_service=service) as client:
            detail = "The session store cannot be used: " + READ_ONLY.format(db=db)
            for method, path, body in [
                ("POST", S, {"sessionId": "s3"}),
                ("POST", f"{S}/s2", {}),
                ("POST", "/run", message("hi")),
                ("POST", "/run_sse", message("hi")),
                ("PATCH", f"{S}/s1", {"stateDelta": {"a": 1}}),
                ("DELETE", f"{S}/s1", None),
            ]:
                response = await client.request(method, path, json=body)
                assert (response.status_code, response.json()) == (503, {"detail": detail}), (
                    method,
                    path,
                )
    finally:
        subprocess.run(["chattr", "-i", str(db)], check=True)


@pytest.mark.subprocess
def test_yadk_serve_refuses_to_start_on_a_read_only_database(tmp_path: Path) -> None:
    shutil.copytree(AGENTS, tmp_path / "agents", ignore=shutil.ignore_patterns("__pycache__"))
    db = tmp_path / "s.db"
    SqliteSessionService(db).close_now()
    if not _immutable(db):
        pytest.skip("this file system or user cannot mark files immutable")
    try:
        done = subprocess.run(
            [sys.executable, "-m", "yadk.cli", "serve", "agents", "--db", "s.db", "--port", "0"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        subprocess.run(["chattr", "-i", str(db)], check=True)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == "yadk serve: error: --db s.db: " + READ_ONLY.format(db="s.db") + "\n"
    assert json.dumps(done.stderr).count("Traceback") == 0
