"""The ``yadk run`` / ``yadk dev`` prompt in a real pseudo-terminal: Ctrl-C, line editing,
history, slash commands and the redraw after a reload notice."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.subprocess

Start = Callable[..., Any]  # the ``terminal`` fixture: starts a conftest.Terminal

ROOT = (
    "name: bot\nmodel: scripted:turns.yaml\ninstruction: Be brief.\ntools:\n  - name: tools.slow\n"
)
TURNS = """\
turns:
  - when: "(?i)slow"
    function_calls: [{name: slow, args: {}}]
  - when: "(?i)slow"
    text: "Done slowly."
  - text: "Hello!"
  - text: "Hello again!"
  - text: "Third."
"""
TOOLS = '''\
import asyncio


async def slow() -> str:
    """Takes a long time, and longer still to stop when cancelled if asked to."""
    print("slow tool started", flush=True)
    try:
        await asyncio.sleep(120)
    except asyncio.CancelledError:
        import os

        if os.environ.get("SLOW_TO_STOP"):
            print("winding down", flush=True)
            await asyncio.sleep(120)
        raise
    return "finished"
'''


@pytest.fixture
def bot(tmp_path: Path) -> Path:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "root_agent.yaml").write_text(ROOT)
    (folder / "turns.yaml").write_text(TURNS)
    (folder / "tools.py").write_text(TOOLS)
    return folder


PROMPT = "[user]: "
BANNER = "Running agent bot; type /help for commands, exit or Ctrl-D to quit.\n"


def test_ctrl_c_at_the_prompt_exits_cleanly(terminal: Start, bot: Path) -> None:
    term = terminal("run", "bot", "--db", ":memory:")
    term.expect(PROMPT)
    term.interrupt_at_prompt()
    assert term.wait() == 0
    assert term.screen == BANNER + PROMPT + "\n"


def test_ctrl_c_at_the_prompt_exits_with_store_and_watcher_threads_running(
    terminal: Start, bot: Path
) -> None:
    """With the store's, the watcher's and the executor's threads running, Ctrl-C at the
    prompt still quits at once."""
    for command in ("run", "dev"):
        term = terminal(command, "bot")  # the default store: a SQLite file and its thread
        term.expect(PROMPT)
        for _ in range(3):  # a few turns, so the executor has threads too
            term.type("hi\r")
            term.expect(PROMPT)
        term.interrupt_at_prompt()
        assert term.wait(timeout=20) == 0, term.screen


def test_ctrl_c_during_a_turn_cancels_it_and_the_session_keeps_what_it_appended(
    terminal: Start, bot: Path
) -> None:
    term = terminal("run", "bot", "--db", ":memory:")
    term.expect(PROMPT)
    term.type("do it slowly\r")
    term.expect("slow tool started\n")
    term.type("\x03")
    term.expect("(Ctrl-C at the prompt quits)\n" + PROMPT)
    term.type("/events\r")
    term.expect("#2 [bot] called slow()\n" + PROMPT)
    term.type("hi\r")
    term.expect("[bot]: Hello!\n" + PROMPT)
    term.type("exit\r")
    assert term.wait() == 0
    assert term.screen == (
        BANNER
        + PROMPT
        + "do it slowly\n"
        + "[bot] called slow()\n"
        + "slow tool started\n"
        + "^C\n"
        + "yadk run: turn cancelled; the session keeps what it had appended"
        " (Ctrl-C at the prompt quits)\n"
        + PROMPT
        + "/events\n"
        + "#1 [user]: do it slowly\n"
        + "#2 [bot] called slow()\n"
        + PROMPT
        + "hi\n"
        + "[bot]: Hello!\n"
        + PROMPT
        + "exit\n"
    )


def test_a_second_ctrl_c_while_the_turn_winds_down_exits(terminal: Start, bot: Path) -> None:
    term = terminal("run", "bot", "--db", ":memory:", env={"SLOW_TO_STOP": "1"})
    term.expect(PROMPT)
    term.type("slow\r")
    term.expect("slow tool started\n")
    term.type("\x03")
    term.expect("winding down\n")
    term.type("\x03")
    assert term.wait() == 130
    assert "Traceback" not in term.screen
    assert "turn cancelled" not in term.screen


def test_arrow_keys_edit_the_line_and_history_is_kept_per_agent(
    terminal: Start, bot: Path, tmp_path: Path
) -> None:
    term = terminal("run", "bot", "--db", ":memory:")
    term.expect(PROMPT)
    term.type("hi wrld\x1b[D\x1b[D\x1b[Do\r")  # three times left, then the missing 'o'
    term.expect("[bot]: Hello!\n" + PROMPT)
    term.type("/events 1\r")
    term.expect("#2 [bot]: Hello!\n" + PROMPT)
    term.type("/events 2\r")
    term.expect("#1 [user]: hi world\n#2 [bot]: Hello!\n" + PROMPT)
    term.type("\x04")  # Ctrl-D
    assert term.wait() == 0
    assert "\x1b[D" not in term.screen
    assert (tmp_path / ".yadk" / "history" / "bot").read_text().splitlines() == [
        "hi world",
        "/events 1",
        "/events 2",
    ]

    again = terminal("run", "bot", "--db", ":memory:")
    again.expect(PROMPT)
    again.type("\x1b[A\x1b[A\x1b[A\r")  # up three times: the first line of the last run
    again.expect("[bot]: Hello!\n" + PROMPT)
    again.type("exit\r")
    assert again.wait() == 0


def test_slash_commands_are_answered_by_yadk_not_the_model(terminal: Start, bot: Path) -> None:
    term = terminal(
        "run", "bot", "--db", ":memory:", "--state", '{"topic": "tea", "user:name": "Ada"}'
    )
    term.expect(PROMPT)
    for line in ["/state", "/nope", "/request", "/help", "hi", "/reset", "/events"]:
        term.type(line + "\r")
        term.expect(line + "\n")
        term.expect(PROMPT)
    term.type("exit\r")
    assert term.wait() == 0
    screen = term.screen
    assert 'session\n  topic = "tea"\nuser:\n  user:name = "Ada"\napp: (empty)\n' in screen
    assert (
        "unknown command /nope; the commands are /state /events /request /usage /reset /help"
        " (/help explains them)\n" in screen
    )
    assert "Be brief." in screen  # /request shows the system instruction
    assert "/events [N]     the last N events of the session (default 10)\n" in screen
    assert "[bot]: Hello!\n" in screen
    assert screen.count("\nnew session ") == 1
    assert screen.endswith("/events\nno events yet\n" + PROMPT + "exit\n")


def test_dev_redraws_the_half_typed_line_after_a_reload_notice(terminal: Start, bot: Path) -> None:
    term = terminal("dev", "bot")
    term.expect(PROMPT)
    term.type("half")
    term.expect("half")
    root = bot / "root_agent.yaml"
    for attempt in range(10):  # the watcher thread may start after the first save on a busy box
        root.write_text(ROOT.replace("Be brief.", f"Be kind ({attempt})."))
        try:
            term.expect("reloaded: 1 file changed (root_agent.yaml)\n", timeout=6)
            break
        except AssertionError:
            continue
    term.expect(PROMPT + "half")
    term.type(" typed\r")
    term.expect("[bot]: Hello!\n" + PROMPT)
    term.type("/events 2\r")
    term.expect("#1 [user]: half typed\n#2 [bot]: Hello!\n" + PROMPT)
    term.type("\x04")
    assert term.wait() == 0
    assert "\r\x1b[Kreloaded: 1 file changed (root_agent.yaml)\r\n[user]: half" in (
        term.raw.decode()
    )
