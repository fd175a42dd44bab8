"""A new user's first commands, in real processes with their exact output: scaffold, validate,
run (with --verbose after the command word), list sessions, a wrong --db, serve on a busy port,
eval without naming an eval set, and web without a path."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.subprocess
REPO = Path(__file__).resolve().parents[2]


def yadk(*argv: str, cwd: Path) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "yadk.cli", *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    return done.returncode, done.stdout, done.stderr


def test_scaffold_validate_run_and_list_sessions(tmp_path: Path) -> None:
    code, out, err = yadk("new", "my_agent", cwd=tmp_path)
    assert (code, err) == (0, "")
    assert out.startswith("Created my_agent/ with:\n  root_agent.yaml\n")
    assert "  .gitignore\n  .env.example\nTry it:\n" in out
    assert yadk("validate", "my_agent", cwd=tmp_path) == (0, "no problems found in 1 agent\n", "")

    code, out, err = yadk("run", "my_agent", "hello", "--session-id", "t1", cwd=tmp_path)
    assert code == 0, err
    assert out.splitlines()[0] == "[user]: hello"
    assert out.splitlines()[-1] == "[my_agent]: Hello! I'm my_agent. What's your name?"
    assert err == (
        "yadk run: session t1 is saved in .yadk/sessions.db; continue it with --session-id t1\n"
    )
    catch_all = (
        "[my_agent]: I'm a scripted model and only know a few lines. Run me with --model for a"
        " real one.\n"
    )
    for message in ("what can you do?", "and now?", "still there?"):
        run = yadk("run", "my_agent", message, "--session-id", "t1", "--verbose", cwd=tmp_path)
        assert run[:2] == (0, f"[user]: {message}\n" + catch_all)

    code, out, err = yadk("sessions", "list", cwd=tmp_path)
    assert (code, err) == (0, "")
    assert re.fullmatch(r"my_agent\tuser\tt1\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\t1 state key\n", out)


def test_a_db_that_names_no_store_is_a_usage_error(tmp_path: Path) -> None:
    code, out, err = yadk("run", "agent", "hi", "--db", "mysql://u:pw@h/x", cwd=tmp_path)
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == (
        "yadk run: error: argument --db: 'mysql://u:***@h/x': yadk stores sessions in SQLite or"
        " PostgreSQL, not 'mysql'; give a file path, sqlite:///PATH,"
        " postgresql://USER@HOST:5432/DB or :memory:"
    )


def test_serve_verbose_on_a_busy_port_is_one_line_and_exit_2(tmp_path: Path) -> None:
    assert yadk("new", "my_agent", cwd=tmp_path)[0] == 0
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = yadk("serve", "my_agent", "--port", str(port), "--verbose", cwd=tmp_path)
    assert result == (
        2,
        "",
        f"yadk serve: error: cannot listen on 127.0.0.1:{port}: Address already in use;"
        " choose another --port (0 picks a free one) or stop the program using it\n",
    )


def test_eval_without_an_eval_set_runs_the_folders_own(tmp_path: Path) -> None:
    shutil.copytree(REPO / "configs" / "support_desk", tmp_path / "support_desk")
    code, out, err = yadk("eval", "support_desk", cwd=tmp_path)
    assert (code, err) == (0, "")
    assert out.endswith("3 cases: 3 passed, 0 failed\n")


def test_web_without_a_path_serves_the_current_folder(tmp_path: Path) -> None:
    assert yadk("new", "my_agent", cwd=tmp_path)[0] == 0
    web = subprocess.Popen(
        [sys.executable, "-m", "yadk.cli", "web", "--no-browser", "--port", "0"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert web.stdout is not None
        first = web.stdout.readline()
        found = re.fullmatch(r"yadk web: serving \. at (http://127\.0\.0\.1:\d+/)\n", first)
        assert found, first
        apps = httpx.get(found.group(1) + "list-apps", timeout=30)
        assert (apps.status_code, apps.json()) == (200, ["my_agent"])
    finally:
        web.terminate()
        web.communicate(timeout=30)
