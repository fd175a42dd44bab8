"""Commands as the docs say: options after the command word, defaults `adk` users expect, and
wording that counts."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable
from pathlib import Path

from yadk.cli import build_parser
from yadk.events import Event, EventActions
from yadk.sessions import SqliteSessionService
from yadk.types import ModelContent

Cli = Callable[..., tuple[int, str, str]]
REPO = Path(__file__).resolve().parents[2]


def test_verbose_is_accepted_after_the_command_word() -> None:
    parser = build_parser()
    assert parser.parse_args(["run", "agent", "hi", "--verbose"]).verbose is True
    assert parser.parse_args(["run", "agent", "-v"]).verbose is True
    assert parser.parse_args(["-v", "serve", "agents"]).verbose is True
    assert parser.parse_args(["run", "agent"]).verbose is False


def test_verbose_after_the_command_word_prints_a_failing_tools_traceback(
    cli: Cli, tmp_path: Path
) -> None:
    agent = tmp_path / "boom"
    agent.mkdir()
    (agent / "tools.py").write_text("def explode() -> dict:\n    raise RuntimeError('kaput')\n")
    (agent / "scripted.yaml").write_text(
        "turns:\n  - function_calls: [{name: explode, args: {}}]\n  - text: sorry\n"
    )
    (agent / "root_agent.yaml").write_text(
        "name: boom\ninstruction: Help.\nmodel: scripted:scripted.yaml\ntools:\n  - name: .tools.explode\n"
    )
    code, _, quiet = cli("run", str(agent), "hi", "--db", ":memory:")
    code_v, _, loud = cli("run", str(agent), "hi", "--db", ":memory:", "--verbose")
    assert "kaput" in quiet and "Traceback" not in quiet
    assert "Traceback" in loud and code == code_v


def test_web_without_a_path_serves_the_current_folder() -> None:
    assert build_parser().parse_args(["web"]).path == "."


def test_eval_without_eval_sets_runs_the_agent_folders_own(cli: Cli, tmp_path: Path) -> None:
    agent = tmp_path / "support_desk"
    shutil.copytree(REPO / "configs" / "support_desk", agent)
    code, out, err = cli("eval", str(agent))
    assert code == 0, err
    assert out.endswith("3 cases: 3 passed, 0 failed\n")


def test_eval_without_eval_sets_in_a_folder_that_has_none(cli: Cli, tmp_path: Path) -> None:
    agent = tmp_path / "bare"
    agent.mkdir()
    (agent / "root_agent.yaml").write_text("name: bare\nmodel: scripted:s.yaml\n")
    code, out, err = cli("eval", str(agent))
    assert (code, out) == (2, "")
    assert err == (
        f"yadk eval: error: no eval sets in {str(agent)!r} (no *.evalset.json or *.test.json"
        " files); give EVALSET files or folders after AGENT\n"
    )


def test_db_help_names_postgresql_urls(cli: Cli) -> None:
    code, out, _ = cli("db", "--help")
    assert code == 0 and "postgresql://USER@HOST:PORT/DB" in out


async def _seed(db: Path, keys: int) -> None:
    service = SqliteSessionService(db)
    s = await service.create_session(app_name="desk", user_id="ada", session_id=f"s{keys}")
    delta = {f"k{i}": i for i in range(keys)}
    event = Event(
        author="desk", content=ModelContent("ok"), actions=EventActions(state_delta=delta)
    )
    await service.append_event(s, event)
    await service.aclose()


def test_sessions_list_counts_one_state_key_in_the_singular(cli: Cli, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    asyncio.run(_seed(db, 1))
    code, out, _ = cli("sessions", "list", "--db", str(db))
    assert code == 0 and out.endswith("\t1 state key\n")


def test_new_writes_a_gitignore_and_an_env_example(cli: Cli) -> None:
    assert cli("new", "my_agent")[0] == 0
    assert Path("my_agent/.gitignore").read_text().splitlines()[1:3] == [".yadk/", ".env"]
    assert "# GOOGLE_API_KEY=..." in Path("my_agent/.env.example").read_text()


def test_new_type_code_writes_an_agent_py_that_runs_offline(cli: Cli) -> None:
    code, out, _ = cli("new", "coded", "--type", "code")
    assert code == 0 and out.startswith("Created coded/ with:\n  agent.py\n  __init__.py\n")
    assert not Path("coded/root_agent.yaml").exists()
    assert Path("coded/__init__.py").read_text() == "from . import agent\n"
    code, out, err = cli("run", "coded", "my name is Alex", "--db", ":memory:")
    assert code == 0, err
    assert out.splitlines()[-1] == "[coded]: Nice to meet you, Alex! I'll remember your name."


def test_new_model_sets_the_model_and_keeps_the_script_for_offline_runs(cli: Cli) -> None:
    code, out, _ = cli("new", "real", "--model", "gemini-2.5-flash")
    assert code == 0
    assert '  yadk run real "hello" --model scripted:real/scripted.yaml\n' in out
    assert "\nmodel: gemini-2.5-flash\n" in Path("real/root_agent.yaml").read_text()
    code, out, err = cli("run", "real", "hi", "--model", "scripted:real/scripted.yaml")
    assert code == 0, err
    assert out.splitlines()[-1] == "[real]: Hello! I'm real. What's your name?"
    assert cli("new", "coded", "--type", "code", "--model", "openai:gpt-4o-mini")[0] == 0
    assert '    model="openai:gpt-4o-mini",\n' in Path("coded/agent.py").read_text()
    assert "ScriptedModel" not in Path("coded/agent.py").read_text()


def test_serve_on_a_busy_port_is_one_line_and_exit_2(cli: Cli) -> None:
    import socket

    shutil.copytree(REPO / "configs" / "support_desk", "support_desk")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out, err = cli("serve", "support_desk", "--port", str(port))
    assert (code, out) == (2, "")
    assert err == (
        f"yadk serve: error: cannot listen on 127.0.0.1:{port}: Address already in use;"
        " choose another --port (0 picks a free one) or stop the program using it\n"
    )


def test_db_options_that_name_no_store_are_usage_errors(cli: Cli) -> None:
    code, _, err = cli("run", "agent", "hi", "--db", "mysql://u:secret@db/x")
    assert code == 2 and "secret" not in err
    assert err.endswith(
        "yadk run: error: argument --db: 'mysql://u:***@db/x': yadk stores sessions in SQLite"
        " or PostgreSQL, not 'mysql'; give a file path, sqlite:///PATH,"
        " postgresql://USER@HOST:5432/DB or :memory:\n"
    )
    code, _, err = cli("sessions", "list", "--db", "sqlite:///")
    assert code == 2
    assert err.endswith(
        "yadk sessions: error: argument --db: 'sqlite:///' names no file; give sqlite:///PATH"
        " (e.g. sqlite:///.yadk/sessions.db)\n"
    )


def test_the_scaffolds_scripted_model_answers_any_number_of_messages(cli: Cli) -> None:
    assert cli("new", "my_agent")[0] == 0
    Path("many.json").write_text('{"queries": ["one", "two", "three", "four"]}')
    code, out, err = cli("run", "my_agent", "--replay", "many.json", "--db", ":memory:")
    assert code == 0, err
    catch_all = "[my_agent]: I'm a scripted model and only know a few lines. Run me with --model"
    assert sum(line.startswith(catch_all) for line in out.splitlines()) == 4


def _old_default_store() -> Path:
    from tests.sessions.test_foreign_key import _sqlite_v2

    store = Path(".yadk/sessions.db")
    store.parent.mkdir()
    _sqlite_v2(store)
    return store


def test_the_default_store_of_an_older_yadk_upgrades_itself_once(cli: Cli) -> None:
    store = _old_default_store()
    code, out, err = cli("sessions", "list", "--app", "app")
    assert code == 0 and out.startswith("app\tu\ts\t")
    assert err == (
        "yadk: upgraded the session store .yadk/sessions.db from schema 2 to 3 (written by an"
        " older yadk); the old file is kept as .yadk/sessions.db.v2.bak\n"
    )
    assert Path(".yadk/sessions.db.v2.bak").is_file()
    _, _, again = cli("sessions", "list", "--app", "app")
    assert "upgraded" not in again
    assert store.is_file()


def test_a_store_named_with_db_still_asks_for_yadk_db_upgrade(cli: Cli) -> None:
    store = _old_default_store()
    code, _, err = cli("sessions", "list", "--app", "app", "--db", str(store))
    assert code == 1 and "yadk db upgrade --db .yadk/sessions.db" in err
    assert not Path(".yadk/sessions.db.v2.bak").exists()
