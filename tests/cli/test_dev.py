"""``yadk dev``: reloads driven by scripted change batches over real files in tmp_path."""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from yadk.cli._common import OFFLINE_HINT
from yadk.cli._dev import dev_loop
from yadk.models import ScriptedModel
from yadk.reload import AgentReloader, ScriptedChanges, WatchFailed

Cli = Callable[..., tuple[int, str, str]]
Step = str | Callable[[], Any]

ROOT = "name: bot\ninstruction: Be brief.\n"
SYSTEM = '\n\nYou are an agent. Your internal name is "bot".'


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


class Typist(io.StringIO):
    """stdin for the dev loop: each ``readline`` first runs the steps before the next line (file
    edits, waits), so a test interleaves edits with messages."""

    def __init__(self, steps: Iterable[Step]) -> None:
        super().__init__()
        self.steps = list(steps)
        self.results: list[Any] = []

    def readline(self, size: int | None = -1) -> str:
        while self.steps:
            step = self.steps.pop(0)
            if isinstance(step, str):
                return step + "\n"
            self.results.append(step())
        return ""


def edit(changes: ScriptedChanges, path: Path, text: str) -> Callable[[], None]:
    """A step that saves ``path`` and has the watcher report it."""

    def save() -> None:
        write(path, text)
        changes.push(path)

    return save


async def dev(
    folder: Path,
    steps: Iterable[Step],
    changes: ScriptedChanges,
    *,
    model: ScriptedModel | None = None,
    **options: Any,
) -> int:
    reloader = AgentReloader(folder, model=model, model_hint=OFFLINE_HINT)
    return await dev_loop(reloader, changes, stdin=Typist(steps), **options)


@pytest.fixture
def bot(tmp_path: Path) -> Path:
    write(tmp_path / "bot" / "root_agent.yaml", ROOT)
    return tmp_path / "bot"


def texts(model: ScriptedModel, index: int) -> list[str]:
    return [
        part.text
        for content in model.requests[index].contents
        for part in content.parts
        if part.text is not None
    ]


async def test_an_instruction_edit_reaches_the_next_call_in_the_same_conversation(
    bot: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = ScriptedModel([{"text": "One."}, {"text": "Two."}])
    changes = ScriptedChanges()
    kind = edit(changes, bot / "root_agent.yaml", "name: bot\ninstruction: Be kind.\n")
    assert await dev(bot, ["hi", kind, "again"], changes, model=model) == 0
    out, err = capsys.readouterr()
    assert out == "[user]: hi\n[bot]: One.\n[user]: again\n[bot]: Two.\n"
    assert err == (
        "yadk dev: watching 1 file of agent bot\nreloaded: 1 file changed (root_agent.yaml)\n"
    )
    assert [r.system_instruction for r in model.requests] == [
        "Be brief." + SYSTEM,
        "Be kind." + SYSTEM,
    ]
    assert texts(model, 1) == ["hi", "One.", "again"]
    assert changes.watched == {bot / "root_agent.yaml"}


async def test_a_broken_edit_keeps_the_last_good_agent_until_the_file_is_fixed(
    bot: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = ScriptedModel([{"text": "One."}, {"text": "Two."}, {"text": "Three."}])
    changes = ScriptedChanges()
    root = bot / "root_agent.yaml"
    broken = edit(changes, root, "name: bot\ninstruction: [\n")
    fixed = edit(changes, root, "name: bot\ninstruction: Be kind.\n")
    steps = ["hi", broken, "again", fixed, "third"]
    assert await dev(bot, steps, changes, model=model) == 0
    out, err = capsys.readouterr()
    assert out == (
        "[user]: hi\n[bot]: One.\n[user]: again\n[bot]: Two.\n[user]: third\n[bot]: Three.\n"
    )
    assert err == (
        "yadk dev: watching 1 file of agent bot\n"
        "reload failed: 1 file changed (root_agent.yaml)\n"
        "bot/root_agent.yaml:3:1: error yaml-syntax: Invalid YAML: expected the node content,"
        " but found '<stream end>' (while parsing a flow node).\n"
        "kept the previous agent; fix the file and save again\n"
        "reloaded: 1 file changed (root_agent.yaml)\n"
    )
    assert [r.system_instruction for r in model.requests] == [
        "Be brief." + SYSTEM,
        "Be brief." + SYSTEM,
        "Be kind." + SYSTEM,
    ]


TOOL_ROOT = "name: bot\ninstruction: Answer.\ntools:\n  - name: .tools.answer\n"
TOOL = 'def answer() -> dict:\n    """The answer."""\n    return {{"v": {}}}\n'
CALL_ANSWER = [{"function_calls": [{"name": "answer"}]}, {"text": "Done."}]


async def test_a_tool_edit_takes_effect_and_a_broken_module_keeps_the_old_tool(
    bot: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(bot / "root_agent.yaml", TOOL_ROOT)
    tools = write(bot / "tools.py", TOOL.format(1))
    model = ScriptedModel(CALL_ANSWER * 3)
    changes = ScriptedChanges()
    # The same size, saved within the same second: only a fresh import sees the new code.
    two = edit(changes, tools, TOOL.format(2))
    broken = edit(changes, tools, "def answer(:\n")
    assert await dev(bot, ["a", two, "b", broken, "c"], changes, model=model) == 0
    out, err = capsys.readouterr()
    assert [line for line in out.splitlines() if "->" in line] == [
        '[bot] answer -> {"v": 1}',
        '[bot] answer -> {"v": 2}',
        '[bot] answer -> {"v": 2}',
    ]
    assert err == (
        "yadk dev: watching 2 files of agent bot\n"
        "reloaded: 1 file changed (tools.py)\n"
        "reload failed: 1 file changed (tools.py)\n"
        "bot/tools.py:1:12: error import-failed: Importing `bot.tools` failed:"
        " SyntaxError: invalid syntax.\n"
        "  note: referenced from bot/root_agent.yaml:4:11\n"
        "  hint: Fix the error in that module; `python -c 'import bot.tools'` shows the full"
        " traceback.\n"
        "kept the previous agent; fix the file and save again\n"
    )
    assert changes.watched == {bot / "root_agent.yaml", tools}


SKILLS_ROOT = "name: bot\ninstruction: Use skills.\nskills:\n  - skills\n"


def skill(name: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: The {name} skill.\n---\n{body}\n"


def load_skill(name: str) -> dict[str, Any]:
    return {"function_calls": [{"name": "load_skill", "args": {"skill_name": name}}]}


async def test_skill_edits_and_new_skills_take_effect(
    bot: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(bot / "root_agent.yaml", SKILLS_ROOT)
    greet = write(bot / "skills" / "greet" / "SKILL.md", skill("greet", "Say hello."))
    model = ScriptedModel(
        [load_skill("greet"), {"text": "Hello."}, load_skill("greet"), {"text": "Hi."}]
    )
    changes = ScriptedChanges()
    farewell = bot / "skills" / "farewell" / "SKILL.md"

    def edit_and_add() -> None:
        write(greet, skill("greet", "Say goodbye."))
        write(farewell, skill("farewell", "Wave."))
        changes.push(greet, farewell.parent, farewell)

    assert await dev(bot, ["a", edit_and_add, "b"], changes, model=model) == 0
    out, err = capsys.readouterr()
    loaded = [line for line in out.splitlines() if "load_skill ->" in line]
    assert ['"instructions": "Say hello."' in line for line in loaded] == [True, False]
    assert ['"instructions": "Say goodbye."' in line for line in loaded] == [False, True]
    assert err == (
        "yadk dev: watching 1 file and 2 folders of agent bot\n"
        "reloaded: 3 files changed (skills/farewell, skills/farewell/SKILL.md,"
        " skills/greet/SKILL.md)\n"
    )
    listed = [("<name>\nfarewell\n</name>" in r.system_instruction) for r in model.requests]
    assert listed == [False, False, True, True]
    assert bot / "skills" / "farewell" in changes.watched


async def test_no_change_means_no_reload(bot: Path) -> None:
    model = ScriptedModel([{"text": "One."}, {"text": "Two."}, {"text": "Three."}])
    changes = ScriptedChanges()
    reloader = AgentReloader(bot, model=model)
    status = await dev_loop(reloader, changes, stdin=Typist(["a", "b", "c"]))
    assert (status, reloader.loads) == (0, 1)
    assert changes.polls >= 3


async def test_changes_while_waiting_for_input_reload_at_once(
    bot: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = ScriptedModel([{"text": "One."}, {"text": "Two."}])
    changes = ScriptedChanges()
    kind = edit(changes, bot / "root_agent.yaml", "name: bot\ninstruction: Be kind.\n")
    # The next line only comes once the loop has taken the batch, i.e. while it waited idle.
    typist = Typist(["hi", kind, lambda: changes.delivered.wait(5), "again"])
    status = await dev_loop(
        AgentReloader(bot, model=model), changes, stdin=typist, idle_interval=0.001
    )
    _, err = capsys.readouterr()
    assert (status, typist.results) == (0, [None, True])
    assert err.endswith("reloaded: 1 file changed (root_agent.yaml)\n")
    assert model.requests[1].system_instruction == "Be kind." + SYSTEM


class Terminal(Typist):
    def isatty(self) -> bool:
        return True


async def test_at_a_terminal_the_prompt_is_shown_again_after_an_idle_reload(
    bot: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = ScriptedModel([{"text": "One."}, {"text": "Two."}])
    changes = ScriptedChanges()
    kind = edit(changes, bot / "root_agent.yaml", "name: bot\ninstruction: Be kind.\n")
    typist = Terminal(["hi", kind, lambda: changes.delivered.wait(5), "again"])
    status = await dev_loop(
        AgentReloader(bot, model=model), changes, stdin=typist, idle_interval=0.001
    )
    out, err = capsys.readouterr()
    assert (status, typist.results) == (0, [None, True])
    assert out == "[user]: [bot]: One.\n[user]: \n[user]: [bot]: Two.\n[user]: "
    assert err == (
        "yadk dev: watching 1 file of agent bot\n"
        "Type exit or press Ctrl-D to quit.\n"
        "reloaded: 1 file changed (root_agent.yaml)\n"
        "\n"
    )


class BrokenWatcher(ScriptedChanges):
    def poll(self) -> set[Path]:
        super().poll()
        raise WatchFailed("OSError: inotify watch limit reached")


async def test_a_watcher_that_stops_is_reported_once_and_the_session_goes_on(
    bot: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = ScriptedModel([{"text": "One."}, {"text": "Two."}])
    changes = BrokenWatcher()
    assert await dev(bot, ["hi", "again"], changes, model=model) == 0
    out, err = capsys.readouterr()
    assert out == "[user]: hi\n[bot]: One.\n[user]: again\n[bot]: Two.\n"
    assert err == (
        "yadk dev: watching 1 file of agent bot\n"
        "yadk dev: file watching stopped (OSError: inotify watch limit reached);"
        " restart to reload again\n"
    )
    assert changes.polls == 1


SCRIPT = "turns:\n  - text: First.\n  - text: Second.\n  - text: Third.\n"


async def test_a_scripted_model_continues_its_script_until_the_script_changes(
    bot: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write(
        bot / "root_agent.yaml", "name: bot\nmodel: scripted:turns.yaml\ninstruction: Be brief.\n"
    )
    script = write(bot / "turns.yaml", SCRIPT)
    changes = ScriptedChanges()
    kind = edit(changes, root, "name: bot\nmodel: scripted:turns.yaml\ninstruction: Be kind.\n")
    fresh = edit(changes, script, "turns:\n  - text: Fresh.\n")
    unknown = edit(changes, root, "name: bot\nmodel: nothing-like-it\ninstruction: Hi.\n")
    steps = ["a", kind, "b", fresh, "c", unknown, "d"]
    assert await dev(bot, steps, changes) == 1
    out, err = capsys.readouterr()
    assert [line for line in out.splitlines() if line.startswith("[bot]")] == [
        "[bot]: First.",
        "[bot]: Second.",
        "[bot]: Fresh.",
    ]
    assert err == (
        "yadk dev: watching 2 files of agent bot\n"
        "reloaded: 1 file changed (root_agent.yaml)\n"
        "reloaded: 1 file changed (turns.yaml)\n"
        "reload failed: 1 file changed (root_agent.yaml)\n"
        "bot/root_agent.yaml:2:8: error no-model-backend: No model backend serves"
        " `nothing-like-it`.\n"
        "  hint: Bare names: gemini-* (Gemini), claude-* (Anthropic), gpt-* and o3-mini-like"
        " (OpenAI), LiteLLM's PROVIDER/NAME (openai/gpt-4o-mini); or write PROVIDER:NAME with"
        " a provider of anthropic, gemini, openai, scripted (`openai:` also reaches any"
        " OpenAI-compatible server); model plugins add providers through the 'yadk.models'"
        " entry-point group.\n"
        "kept the previous agent; fix the file and save again\n"
        "[bot] error MODEL_ERROR: scripted:turns.yaml: script exhausted: 1 of 1 turns used and"
        " none of the rest matches agent 'bot' and the user message 'd'. Add a turn to the"
        " script (or check its 'when:'/'agent:' filters).\n"
    )


async def test_a_failed_reload_also_watches_the_files_it_blames(
    bot: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    changes = ScriptedChanges()
    prompt = bot / "prompts" / "main.md"
    uses_prompt = edit(
        changes, bot / "root_agent.yaml", "name: bot\ninstruction: {file: prompts/main.md}\n"
    )
    write_prompt = edit(changes, prompt, "From a file.")
    model = ScriptedModel([{"text": "One."}, {"text": "Two."}, {"text": "Three."}])
    steps = ["a", uses_prompt, "b", write_prompt, "c"]
    assert await dev(bot, steps, changes, model=model) == 0
    _, err = capsys.readouterr()
    assert "reload failed: 1 file changed (root_agent.yaml)\n" in err
    assert err.endswith("reloaded: 1 file changed (prompts/main.md)\n")
    assert model.requests[2].system_instruction == "From a file." + SYSTEM
    assert changes.watched == {bot / "root_agent.yaml", prompt}


def test_the_command_runs_a_conversation_with_the_real_watcher(
    cli: Cli, bot: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(bot / "turns.yaml", SCRIPT)
    monkeypatch.setattr(sys, "stdin", io.StringIO("hi\n\nthere\nexit\nnever sent\n"))
    code, out, err = cli("dev", "bot", "--model", "scripted:bot/turns.yaml", "--json")
    # The same default store as yadk run: the session is kept in .yadk/sessions.db.
    assert code == 0
    assert re.fullmatch(
        r"yadk dev: watching 1 file of agent bot\n"
        r"yadk dev: session (\S+) is saved in \.yadk/sessions\.db;"
        r" continue it with --session-id \1\n",
        err,
    )
    events = [json.loads(line) for line in out.splitlines()]
    assert [(e["author"], e["content"]["parts"][0]["text"]) for e in events] == [
        ("user", "hi"),
        ("bot", "First."),
        ("user", "there"),
        ("bot", "Second."),
    ]


def test_the_command_keeps_a_durable_session_with_db(
    cli: Cli, bot: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(bot / "turns.yaml", SCRIPT)
    monkeypatch.setattr(sys, "stdin", io.StringIO("hi\n"))
    args = ["dev", "bot", "--model", "scripted:bot/turns.yaml", "--db", "dev.db"]
    code, out, err = cli(*args, "--session-id", "s1", "--state", '{"k": 1}')
    assert (code, out) == (0, "[user]: hi\n[bot]: First.\n")
    assert err.endswith(
        "yadk dev: session s1 is saved in dev.db; continue it with --session-id s1\n"
    )
    monkeypatch.setattr(sys, "stdin", io.StringIO("again\n"))
    code, out, err = cli(*args, "--session-id", "s1")
    assert (code, out) == (0, "[user]: again\n[bot]: First.\n")
    assert "yadk dev: continuing session s1 (2 earlier events)\n" in err


def test_a_config_that_does_not_load_at_start_is_an_error(cli: Cli, bot: Path) -> None:
    write(bot / "root_agent.yaml", "name: bot\ninstruction: [\n")
    assert cli("dev", "bot") == (
        1,
        "",
        "bot/root_agent.yaml:3:1: error yaml-syntax: Invalid YAML: expected the node content,"
        " but found '<stream end>' (while parsing a flow node).\n"
        "yadk dev: error: bot was not loaded: 1 problem (run 'yadk validate bot' to check it)\n",
    )


async def test_a_reload_shows_the_warnings_of_the_new_agent(
    bot: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A terminal session loads with run_checks (as `yadk dev` does): the reloaded agent's
    # warnings follow the reload notice, located as validate prints them.
    model = ScriptedModel([{"text": "One."}, {"text": "Two."}])
    changes = ScriptedChanges()
    typo = edit(
        changes,
        bot / "root_agent.yaml",
        "name: bot\noutput_key: answer\ninstruction: Use {answr?} and {anwser}.\n",
    )
    reloader = AgentReloader(bot, model=model, model_hint=OFFLINE_HINT, run_checks=True)
    # The second turn fails on the missing key, located at the same line.
    assert await dev_loop(reloader, changes, stdin=Typist(["hi", typo, "again"])) == 1
    _, err = capsys.readouterr()
    assert err == (
        "yadk dev: watching 1 file of agent bot\n"
        "reloaded: 1 file changed (root_agent.yaml)\n"
        "bot/root_agent.yaml:3:31: warning placeholder-unknown-key: `{anwser}` reads state key"
        " `anwser`, which nothing writes: no agent's output_key, no tool or callback.\n"
        "  hint: Did you mean `{answer}`?\n"
        "[bot] error TEMPLATE_ERROR: bot/root_agent.yaml:3:31: Context variable not found:"
        " `anwser` in agent 'bot'.\n"
        "  hint: Did you mean `{answer}`?\n"
    )


async def test_an_edited_app_yaml_applies_to_the_next_turn_of_the_same_session(
    bot: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plugin = "plugins:\n  - name: GlobalInstructionPlugin\n    args: {global_instruction: %s}\n"
    app = write(bot / "app.yaml", plugin % "Be polite.")
    model = ScriptedModel([{"text": "One."}, {"text": "Two."}])
    changes = ScriptedChanges()
    terse = edit(changes, app, plugin % "Be terse.")
    assert await dev(bot, ["hi", terse, "again"], changes, model=model) == 0
    _, err = capsys.readouterr()
    assert "reloaded: 1 file changed (app.yaml)" in err
    assert model.requests[0].system_instruction.startswith("Be polite.\n\nBe brief.")
    assert model.requests[1].system_instruction.startswith("Be terse.\n\nBe brief.")
    assert texts(model, 1)[:2] == ["hi", "One."]  # the same session goes on
    assert changes.watched is not None and app in changes.watched
