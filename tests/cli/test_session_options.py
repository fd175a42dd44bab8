"""What run and dev share: --artifact, slash commands on piped input, one default store and
a storage error that names the state key and its writer."""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

Cli = Callable[..., tuple[int, str, str]]

ROOT = """\
name: bot
model: scripted:turns.yaml
instruction: "Notes: {artifact.notes.txt}"
"""
TURNS = "turns:\n  - text: Noted.\n"


@pytest.fixture
def bot(tmp_path: Path) -> Path:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "root_agent.yaml").write_text(ROOT)
    (folder / "turns.yaml").write_text(TURNS)
    (tmp_path / "notes.txt").write_text("buy milk")
    return folder


@pytest.mark.parametrize("command", ["run", "dev"])
def test_artifact_files_are_in_the_session_from_the_start(
    cli: Cli, bot: Path, command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("/request\n"))
    code, out, err = cli(command, "bot", "--db", ":memory:", "--artifact", "notes.txt=notes.txt")
    assert code == 0, err
    assert "== system instruction ==\nNotes: buy milk\n" in out


def test_an_unreadable_artifact_is_a_usage_error(cli: Cli, bot: Path) -> None:
    code, out, err = cli("run", "bot", "hi", "--artifact", "notes.txt")
    assert (code, out) == (2, "")
    assert err == (
        "yadk run: error: --artifact 'notes.txt': expected NAME=FILE,"
        " e.g. --artifact notes.txt=./notes.txt\n"
    )


def test_piped_slash_commands_are_not_sent_to_the_model(
    cli: Cli, bot: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("/state\n/typo\n//x\n/events\nexit\n/never\n"))
    code, out, err = cli(
        "run", "bot", "--db", ":memory:", "--state", '{"app:tier": "gold"}',
        "--artifact", "notes.txt=notes.txt",
    )  # fmt: skip
    assert (code, err) == (0, "")
    assert out == (
        "session (empty)\n"
        "user: (empty)\n"
        "app:\n"
        '  app:tier = "gold"\n'
        "unknown command /typo; the commands are /state /events /request /usage /reset /help"
        " (/help explains them)\n"
        "[user]: /x\n"
        "[bot]: Noted.\n"
        "#1 [user]: /x\n"
        "#2 [bot]: Noted.\n"
    )


STORES_SET = """\
name: tagger
model: scripted:turns.yaml
instruction: Tag things.
tools:
  - name: tagger_tools.tag
"""
TAG_TURNS = """\
turns:
  - function_calls: [{name: tag, args: {label: red}}]
  - text: Tagged.
"""
TAG_TOOL = """\
def tag(label: str, tool_context) -> dict:
    tool_context.state["tags"] = {label}
    return {"ok": True}
"""


@pytest.mark.parametrize("command", ["run", "dev"])
def test_a_set_in_state_fails_in_both_commands_naming_the_key_and_the_tool(
    cli: Cli, tmp_path: Path, command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "tagger"
    folder.mkdir()
    (folder / "root_agent.yaml").write_text(STORES_SET)
    (folder / "turns.yaml").write_text(TAG_TURNS)
    (folder / "tagger_tools.py").write_text(TAG_TOOL)
    monkeypatch.setattr(sys, "stdin", io.StringIO("tag it\n"))
    code, _, err = cli(command, "tagger")  # no --db: the default store, .yadk/sessions.db
    assert code == 1
    assert re.search(
        r"\[tagger\] error INTERNAL_ERROR: State key 'tags' in event \S+ \(written by tool"
        r" `tag` of agent `tagger`\) holds a value of type set, which cannot be stored",
        err,
    )
    assert (tmp_path / ".yadk" / "sessions.db").exists()


NOTES = "notes.txt=notes.txt"
_HOLD = """
import asyncio, sys
from yadk.stores import open_stores

async def main():
    stores = open_stores(sys.argv[1])
    locks = stores.sessions.turn_locks()
    assert await locks.try_lock(("bot", "user", "s1"))
    print("locked", flush=True)
    await asyncio.sleep(float(sys.argv[2]))
    await locks.unlock(("bot", "user", "s1"))
    await stores.aclose()

asyncio.run(main())
"""


@contextlib.contextmanager
def _turn_held(db: Path | str, seconds: float) -> Iterator[None]:
    """Another process in a turn on session s1 for ``seconds`` (as a yadk serve turn would be)."""
    with subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(db), str(seconds)], stdout=subprocess.PIPE, text=True
    ) as holder:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        try:
            yield
        finally:
            holder.kill()


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
@pytest.mark.subprocess
def test_a_message_waits_for_another_process_turn_on_the_session(
    cli: Cli, bot: Path, tmp_path: Path, store: str, request: pytest.FixtureRequest
) -> None:
    db = (
        str(tmp_path / "sessions.db")
        if store == "sqlite"
        else request.getfixturevalue("postgres_url")
    )
    with _turn_held(db, 1.0):
        code, out, err = cli(
            "run", "bot", "hi", "--db", db, "--session-id", "s1", "--artifact", NOTES
        )
    assert code == 0, err
    assert "Noted." in out
    assert "yadk run: session s1 has a turn running in another process; waiting for it" in err


@pytest.mark.parametrize("command", ["run", "dev"])
@pytest.mark.subprocess
def test_a_session_busy_past_the_wait_is_an_error_and_nothing_is_sent(
    cli: Cli, bot: Path, tmp_path: Path, command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "sessions.db"
    monkeypatch.setattr(sys, "stdin", io.StringIO("hi\n"))
    with _turn_held(db, 30.0):
        code, out, err = cli(
            command, "bot", "--db", str(db), "--session-id", "s1", "--busy-wait", "0.5",
            "--artifact", NOTES,
        )  # fmt: skip
    assert code == 1
    assert "Noted." not in out
    assert (
        "error: session s1 stayed busy in another process (yadk serve, or another yadk run)"
        " for 0.5 s; the message was not sent." in err
    )
    code, out, err = cli("sessions", "show", "s1", "--db", str(db), "--app", "bot")
    assert code == 0, err
    assert "hi" not in out


async def _seed_usage(db: Path) -> None:
    from yadk.events import Event
    from yadk.sessions import SqliteSessionService
    from yadk.types import ModelContent, UserContent

    service = SqliteSessionService(db)
    session = await service.create_session(app_name="bot", user_id="user", session_id="s1")
    reported = {"prompt_token_count": 1200, "candidates_token_count": 34}
    record = {"input_tokens": 50, "output_tokens": 7, "estimated": True, "cost": None}
    for invocation, event in [
        ("e-1", Event(author="user", content=UserContent("hi"))),
        ("e-1", Event(author="bot", content=ModelContent("a"), usage_metadata=reported)),
        ("e-2", Event(author="bot", content=ModelContent("b"), custom_metadata={"yadk_usage": record})),
    ]:  # fmt: skip
        event.invocation_id = invocation
        await service.append_event(session, event)
    await service.aclose()


USAGE_LINES = (
    "session: 1,291 tokens (1,250 in, 41 out) (estimated in part)\n"
    "  #1 e-1: 1 model call, 1,234 tokens (1,200 in, 34 out)\n"
    "  #2 e-2: 1 model call, 57 tokens (50 in, 7 out) (estimated)\n"
)


def test_usage_lists_each_invocation_and_the_session_total(
    cli: Cli, bot: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    db = tmp_path / "s.db"
    asyncio.run(_seed_usage(db))
    monkeypatch.setattr(sys, "stdin", io.StringIO("/usage\n"))
    code, out, err = cli("run", "bot", "--db", str(db), "--session-id", "s1")
    assert code == 0, err
    assert out == USAGE_LINES

    code, out, err = cli("sessions", "show", "s1", "--db", str(db))
    assert code == 0, err
    assert out.endswith("\nusage:\n" + "".join(f"  {line}\n" for line in USAGE_LINES.splitlines()))


def test_usage_says_when_no_backend_reported_any(
    cli: Cli, bot: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("hi\n/usage\n"))
    code, out, err = cli("run", "bot", "--db", ":memory:", "--artifact", "notes.txt=notes.txt")
    assert (code, err) == (0, "")
    assert out == (
        "[user]: hi\n[bot]: Noted.\n"
        "no token usage in this session yet (none reported by the model backends; with a"
        " budget set, unreported usage is estimated)\n"
    )
