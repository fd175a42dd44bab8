"""``yadk new``, ``schema``, ``validate`` and ``inspect`` through main(), on real files."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from yadk.config import agent_config_json_schema

Cli = Callable[..., tuple[int, str, str]]
SCHEMA_TEXT = json.dumps(agent_config_json_schema(), indent=2, ensure_ascii=False) + "\n"


def test_schema_prints_the_dialect_schema(cli: Cli) -> None:
    assert cli("schema") == (0, SCHEMA_TEXT, "")


def test_the_demos_schema_file_is_current(configs: Path) -> None:
    # Refresh with: yadk schema > configs/agent.schema.json
    assert (configs / "agent.schema.json").read_text(encoding="utf-8") == SCHEMA_TEXT


NEW_OUTPUT = """\
Created my_agent/ with:
  root_agent.yaml
  agent.schema.json
  prompts/instruction.md
  tools.py
  scripted.yaml
  replay.json
  skills/small-talk/SKILL.md
  examples.yaml
  .gitignore
  .env.example
Try it:
  yadk run my_agent "hello"
  yadk run my_agent --replay my_agent/replay.json
  yadk inspect my_agent --message hello
"""

NEW_REPLAY = """\
[user]: hello
[my_agent] called load_skill(skill_name="small-talk")
[my_agent] load_skill -> {"skill_name": "small-talk", "instructions": "Greet the user warmly in \
one sentence. If you do not know their name yet, ask for it.\\nDo not ask more than one...
[my_agent]: Hello! I'm my_agent. What's your name?
[user]: my name is Alex
[my_agent] called remember_name(name="Alex")
[my_agent] remember_name -> {"status": "remembered", "name": "Alex"}
[my_agent]: Nice to meet you, Alex! I'll remember your name.
[user]: what can you do?
[my_agent]: I'm a scripted model and only know a few lines. Run me with --model for a real one.
"""


def test_new_scaffolds_an_agent_that_runs_offline_and_validates(cli: Cli) -> None:
    assert cli("new", "my_agent") == (0, NEW_OUTPUT, "")
    assert Path("my_agent/agent.schema.json").read_text(encoding="utf-8") == SCHEMA_TEXT
    assert cli("run", "my_agent", "--replay", "my_agent/replay.json", "--db", ":memory:") == (
        0,
        NEW_REPLAY,
        "",
    )
    assert cli("validate", "my_agent", "--strict", "--import") == (
        0,
        "no problems found in 1 agent\n",
        "",
    )


def test_create_is_an_alias_of_new(cli: Cli) -> None:
    assert cli("create", "my_agent") == (0, NEW_OUTPUT, "")
    assert Path("my_agent/agent.schema.json").read_text(encoding="utf-8") == SCHEMA_TEXT


def test_new_refuses_to_overwrite(cli: Cli) -> None:
    Path("taken").mkdir()
    assert cli("new", "taken") == (
        1,
        "",
        "yadk new: error: 'taken' already exists; choose another name or remove it first\n",
    )
    assert list(Path("taken").iterdir()) == []


BROKEN = "name: bot\nmodel: gemini-2.5-flash\ninstruction: Hi {destinaton}\ninstructions: x\n"
STATE = "state: [destination]\n"


@pytest.fixture
def broken() -> str:
    Path("bot.yaml").write_text(BROKEN + STATE, encoding="utf-8")
    return "bot.yaml"


TEXT_REPORT = (
    "bot.yaml:3:17: warning placeholder-unknown-key: `{destinaton}` reads state key"
    " `destinaton`, which no agent writes (output_key) and `state:` does not declare.\n"
    "  hint: Did you mean `{destination}`?\n"
    "bot.yaml:4:1: error unknown-key: Unknown key `instructions` in an LlmAgent config.\n"
    "  hint: Did you mean `instruction`?\n"
    "1 error, 1 warning in 1 agent\n"
)


def test_validate_text(cli: Cli, broken: str) -> None:
    assert cli("validate", broken) == (1, TEXT_REPORT, "")


def test_validate_github(cli: Cli, broken: str) -> None:
    assert cli("validate", broken, "--format", "github") == (
        1,
        (
            "::warning file=bot.yaml,line=3,col=17::placeholder-unknown-key: `{destinaton}` reads"
            " state key `destinaton`, which no agent writes (output_key) and `state:` does not"
            " declare.%0ADid you mean `{destination}`?\n"
            "::error file=bot.yaml,line=4,col=1::unknown-key: Unknown key `instructions` in an"
            " LlmAgent config.%0ADid you mean `instruction`?\n"
            "1 error, 1 warning in 1 agent\n"
        ),
        "",
    )


def test_validate_json_keeps_stdout_parseable(cli: Cli, broken: str) -> None:
    code, out, err = cli("validate", broken, "--format", "json")
    assert (code, err) == (1, "1 error, 1 warning in 1 agent\n")
    assert [(d["line"], d["severity"], d["rule"]) for d in json.loads(out)] == [
        (3, "warning", "placeholder-unknown-key"),
        (4, "error", "unknown-key"),
    ]
    assert json.loads(out)[0]["path"] == str(Path("bot.yaml").resolve())


@pytest.mark.parametrize(("strict", "code"), [([], 0), (["--strict"], 1)])
def test_warnings_fail_only_when_strict(cli: Cli, strict: list[str], code: int) -> None:
    Path("bot.yaml").write_text(BROKEN.replace("instructions: x\n", "") + STATE, "utf-8")
    assert cli("validate", "bot.yaml", *strict)[0] == code


def test_inspect_missing_state_names_the_key_and_the_option(cli: Cli, configs: Path) -> None:
    assert cli("inspect", str(configs / "trip_planner"), "--agent", "planner") == (
        1,
        "",
        (
            f"yadk inspect: error: {configs / 'trip_planner' / 'prompts' / 'planner.md'}:1:6:"
            " Context variable not found: `days` in agent 'planner'. Give it a"
            ' value with --state \'{"days": "..."}\' (or write `{days?}` in the instruction to make'
            " it optional).\n"
        ),
    )


def test_inspect_artifact_file(cli: Cli) -> None:
    Path("notes.txt").write_text("be brief", encoding="utf-8")
    Path("bot.yaml").write_text(
        "name: bot\nmodel: gemini-2.5-flash\ninstruction: 'Notes: {artifact.notes}'\n", "utf-8"
    )
    code, out, err = cli("inspect", "bot.yaml", "--artifact", "notes=notes.txt", "--json")
    assert (code, err) == (0, "")
    assert json.loads(out)["system_instruction"] == (
        'Notes: be brief\n\nYou are an agent. Your internal name is "bot".'
    )


def test_card_lists_static_examples(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "bot.yaml").write_text(
        "name: bot\nmodel: gemini-2.5-flash\ndescription: Answers.\ninstruction: Hi\n"
        "examples:\n"
        "  - input: {role: user, parts: [{text: 'Is 7 prime?'}]}\n"
        "    output: [{role: model, parts: [{text: 'Yes.'}]}]\n",
    )
    code, out, err = cli("card", "bot.yaml", "--url", "https://example.test/a2a/")
    assert (code, err) == (0, "")
    card = json.loads(out)
    assert card["name"] == "bot"
    assert card["url"] == "https://example.test/a2a"
    assert card["skills"][0]["examples"] == ["Is 7 prime?"]


def test_card_of_a_broken_config_lists_diagnostics(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "bot.yaml").write_text("name: bot\ninstructions: Hi\n")
    code, out, err = cli("card", "bot.yaml")
    assert (code, out) == (1, "")
    assert "error unknown-key: Unknown key `instructions`" in err
