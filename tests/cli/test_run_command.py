"""``yadk run`` on YAML configs: config errors, models, modes and sessions, through main()."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from yadk.artifacts import FileArtifactService, InMemoryArtifactService
from yadk.cli._run import open_stores
from yadk.sessions import InMemorySessionService, SqliteSessionService

Cli = Callable[..., tuple[int, str, str]]

SCRIPT = """\
turns:
  - text: Hello from the script.
  - text: Second answer.
"""


def write(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.fixture
def agent(tmp_path: Path) -> str:
    write(tmp_path / "bot" / "turns.yaml", SCRIPT)
    return write(
        tmp_path / "bot" / "root_agent.yaml",
        "name: bot\nmodel: scripted:turns.yaml\ninstruction: Be brief.\n",
    )


def test_config_errors_are_listed_without_a_traceback(cli: Cli, tmp_path: Path) -> None:
    write(tmp_path / "bad.yaml", "name: bad\nmodel: gemini-2.5-flash\ninstructions: hi\n")
    assert cli("run", "bad.yaml", "hi") == (
        1,
        "",
        (
            "bad.yaml:3:1: error unknown-key: Unknown key `instructions` in an LlmAgent config.\n"
            "  hint: Did you mean `instruction`?\n"
            "yadk run: error: bad.yaml was not loaded: 1 problem"
            " (run 'yadk validate bad.yaml' to check it)\n"
        ),
    )


def test_folder_without_root_agent(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    code, out, err = cli("run", "empty", "hi")
    assert (code, out) == (1, "")
    assert err.endswith(
        "  hint: Pass the config file itself, or add root_agent.yaml to the folder.\n"
        "yadk run: error: empty was not loaded: 1 problem (run 'yadk validate empty' to check it)\n"
    )


@pytest.mark.parametrize(
    ("model", "message"),
    [
        (
            "",
            (
                "bot.yaml:1:7: error missing-model: Agent `bot` has no model: it sets no `model:`,"
                " and no LlmAgent above it does.\n"
                "  hint: Add `model: NAME` (e.g. `model: gemini-2.5-flash`) to it or to an agent"
                " above it, or pass `--model NAME` to yadk run / dev.\n"
                "yadk run: error: bot.yaml cannot run: 1 agent without a model\n"
            ),
        ),
        (
            "model: nowhere:x\n",
            (
                "bot.yaml:2:8: error no-model-backend: No model backend serves `nowhere:x`.\n"
                "  hint: Bare names: gemini-* (Gemini), claude-* (Anthropic), gpt-* and"
                " o3-mini-like (OpenAI), LiteLLM's PROVIDER/NAME (openai/gpt-4o-mini); or write"
                " PROVIDER:NAME with a provider of anthropic, gemini, openai, scripted (`openai:`"
                " also reaches any OpenAI-compatible server); model plugins add providers through"
                " the 'yadk.models' entry-point group.\n"
                "yadk run: error: bot.yaml was not loaded: 1 problem (run 'yadk validate bot.yaml'"
                " to check it)\n"
            ),
        ),
        (
            "model: gemni-2.5-flash\n",
            (
                "bot.yaml:2:8: error no-model-backend: No model backend serves `gemni-2.5-flash`.\n"
                "  hint: Did you mean `gemini-2.5-flash`? Bare names: gemini-* (Gemini), claude-*"
                " (Anthropic), gpt-* and o3-mini-like (OpenAI), LiteLLM's PROVIDER/NAME"
                " (openai/gpt-4o-mini); or write PROVIDER:NAME with a provider of anthropic, gemini, openai,"
                " scripted (`openai:` also reaches any OpenAI-compatible server); model plugins add"
                " providers through the 'yadk.models' entry-point group.\n"
                "yadk run: error: bot.yaml was not loaded: 1 problem (run 'yadk validate bot.yaml'"
                " to check it)\n"
            ),
        ),
    ],
)
def test_a_missing_model_is_reported_before_the_first_message(
    cli: Cli, tmp_path: Path, model: str, message: str
) -> None:
    write(tmp_path / "bot.yaml", f"name: bot\n{model}instruction: hi\n")
    assert cli("run", "bot.yaml", "hi") == (1, "", message)


def test_model_option_replaces_every_model(cli: Cli, tmp_path: Path) -> None:
    write(tmp_path / "turns.yaml", SCRIPT)
    write(tmp_path / "bot.yaml", "name: bot\nmodel: gemini-2.5-flash\ninstruction: hi\n")
    assert cli("run", "bot.yaml", "hi", "--model", "scripted:turns.yaml", "--db", ":memory:") == (
        0,
        "[user]: hi\n[bot]: Hello from the script.\n",
        "",
    )


def test_unknown_model_option(cli: Cli, agent: str) -> None:
    code, out, err = cli("run", agent, "hi", "--model", "scripted:missing.yaml")
    assert (code, out) == (1, "")
    assert err == (
        "yadk run: error: --model scripted:missing.yaml: Cannot read scripted model file"
        " missing.yaml: No such file or directory\n"
    )


def test_json_lines(cli: Cli, agent: str) -> None:
    code, out, err = cli("run", agent, "hi", "--json", "--db", ":memory:")
    events = [json.loads(line) for line in out.splitlines()]
    assert (code, err) == (0, "")
    assert [(e["author"], e["content"]["parts"][0]["text"]) for e in events] == [
        ("user", "hi"),
        ("bot", "Hello from the script."),
    ]


def test_interactive_from_piped_stdin(
    cli: Cli, agent: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("hi\nagain\nexit\nnever\n"))
    assert cli("run", agent, "--db", ":memory:") == (
        0,
        "[user]: hi\n[bot]: Hello from the script.\n[user]: again\n[bot]: Second answer.\n",
        "",
    )


def test_state_option_reaches_the_instruction(cli: Cli, tmp_path: Path) -> None:
    write(tmp_path / "turns.yaml", SCRIPT)
    write(
        tmp_path / "bot.yaml",
        "name: bot\nmodel: scripted:turns.yaml\ninstruction: Help {customer}.\n",
    )
    unknown = (
        "`{customer}` reads state key `customer`, which nothing writes: no agent's output_key,"
        " no tool or callback."
    )
    hint = (
        "Declare it under `state:` if something else sets it (a tool, a callback, the caller),"
        " or fix the name."
    )
    # The load-time warning, then the run-time error at the same place with the same hint.
    assert cli("run", "bot.yaml", "hi", "--db", ":memory:")[2] == (
        f"bot.yaml:3:19: warning placeholder-unknown-key: {unknown}\n  hint: {hint}\n"
        "[bot] error TEMPLATE_ERROR: bot.yaml:3:19: Context variable not found: `customer` in"
        f" agent 'bot'.\n  hint: {hint}\n"
    )
    assert cli("run", "bot.yaml", "hi", "--db", ":memory:", "--state", '{"customer": "Ada"}') == (
        0,
        "[user]: hi\n[bot]: Hello from the script.\n",
        "",
    )


def test_sessions_are_saved_by_default_and_continued_by_id(cli: Cli, agent: str) -> None:
    db = str(Path(".yadk") / "sessions.db")
    assert cli("run", agent, "hi", "--session-id", "s1") == (
        0,
        "[user]: hi\n[bot]: Hello from the script.\n",
        f"yadk run: session s1 is saved in {db}; continue it with --session-id s1\n",
    )
    assert Path(db).is_file()
    # A new process gets a fresh script, so the first turn answers again; the history is kept.
    code, out, err = cli("run", agent, "again", "--session-id", "s1", "--json")
    assert (code, err) == (
        0,
        (
            "yadk run: continuing session s1 (2 earlier events)\n"
            f"yadk run: session s1 is saved in {db}; continue it with --session-id s1\n"
        ),
    )
    assert [json.loads(line)["author"] for line in out.splitlines()] == ["user", "bot"]


def test_replay_state_and_state_option_merge(cli: Cli, tmp_path: Path) -> None:
    write(tmp_path / "turns.yaml", SCRIPT)
    write(
        tmp_path / "bot.yaml",
        "name: bot\nmodel: scripted:turns.yaml\ninstruction: Help {a} {b}.\n",
    )
    replay = write(tmp_path / "r.json", '{"state": {"a": 1, "b": 2}, "queries": ["x", "y"]}')
    code, out, err = cli("run", "bot.yaml", "--replay", replay, "--state", '{"b": 3}', "--json")
    assert code == 0
    session_id = err.split("session ", 1)[1].split(" ", 1)[0]
    assert [json.loads(line)["content"]["parts"][0]["text"] for line in out.splitlines()] == [
        "x",
        "Hello from the script.",
        "y",
        "Second answer.",
    ]
    sessions = SqliteSessionService(Path(".yadk") / "sessions.db")
    session = asyncio.run(
        sessions.get_session(app_name="bot", user_id="user", session_id=session_id)
    )
    sessions.close_now()
    assert session is not None
    assert session.state == {"a": 1, "b": 3}


@pytest.mark.parametrize(
    ("db", "where", "artifacts_root"),
    [
        (None, ".yadk/sessions.db", ".yadk/artifacts"),
        ("data/s.db", "data/s.db", "data/artifacts"),
        ("sqlite:///data/s.db", "sqlite:///data/s.db", "data/artifacts"),
        (":memory:", None, None),
    ],
)
def test_stores_keep_artifacts_beside_the_session_file(
    db: str | None, where: str | None, artifacts_root: str | None
) -> None:
    stores = open_stores(db)
    stores.close()
    assert stores.where == where
    if artifacts_root is None:
        assert isinstance(stores.sessions, InMemorySessionService)
        assert isinstance(stores.artifacts, InMemoryArtifactService)
    else:
        assert isinstance(stores.artifacts, FileArtifactService)
        assert stores.artifacts.root == Path(artifacts_root)


def test_unusable_session_file(cli: Cli, agent: str) -> None:
    Path("not_a_db").write_text("plain text, not SQLite", encoding="utf-8")
    code, out, err = cli("run", agent, "hi", "--db", "not_a_db")
    assert (code, out) == (1, "")
    assert err == (
        "yadk run: error: --db not_a_db: not_a_db is not a usable SQLite database (file is not"
        " a database). Give --db a new file name, or restore the file from a backup.\n"
    )


def test_code_execution_offline(cli: Cli, tmp_path: Path) -> None:
    # The docs/tools.md example: the scripted model plays Gemini's code execution.
    write(
        tmp_path / "calc" / "root_agent.yaml",
        "name: calc\nmodel: gemini-2.5-flash\ninstruction: Compute with code.\n"
        "code_executor: BuiltInCodeExecutor\n",
    )
    write(
        tmp_path / "calc" / "turns.yaml",
        "turns:\n  - parts:\n"
        '      - executable_code: {code: "print(2 ** 10)", language: PYTHON}\n'
        '      - code_execution_result: {outcome: OUTCOME_OK, output: "1024\\n"}\n'
        '  - text: "2 ** 10 is 1024."\n',
    )
    assert cli(
        "run", "calc", "what is 2 ** 10?", "--model", "scripted:calc/turns.yaml", "--db", ":memory:"
    ) == (
        0,
        "[user]: what is 2 ** 10?\n[calc] ran code: print(2 ** 10)\n[calc] code ok -> 1024\n"
        "[calc]: 2 ** 10 is 1024.\n",
        "",
    )
