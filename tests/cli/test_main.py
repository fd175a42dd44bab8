"""main(): dispatch, exit codes and the messages of usage errors, before any agent loads."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

import yadk
from yadk.cli import _COMMANDS, _command_word, build_parser, main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "--version") == (0, f"yadk {yadk.__version__}\n", "")


def test_no_command_prints_help_and_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys)
    assert (code, out) == (2, "")
    assert err.startswith(
        "usage: yadk [-h] [--version] [--trust MODULE] [--allow-code-execution KIND]\n"
        "            [--no-adk-compat] [-v]\n"
        "            COMMAND ...\n"
    )


def test_unknown_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "deploy")
    assert (code, out) == (2, "")
    # The list of choices grows as commands are added; its start and the alias are fixed.
    assert (
        "\nyadk: error: argument COMMAND: invalid choice: 'deploy' (choose from 'run', 'dev',"
        in err
    )
    assert "'new', 'create'," in err


@pytest.fixture
def agent_file(tmp_path: Path) -> str:
    path = tmp_path / "agent.yaml"
    path.write_text("name: a\n", encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["run", "{agent}", "hi", "--replay", "r.json"],
            "yadk run: error: Cannot provide both MESSAGE and --replay.\n",
        ),
        (
            ["run", "missing_folder", "hi"],
            (
                "yadk run: error: AGENT 'missing_folder' does not exist; expected a YAML config file"
                " or a folder holding root_agent.yaml\n"
            ),
        ),
        (
            ["run", "{agent}", "--state", "{'a': 1}"],
            (
                "yadk run: error: --state is not valid JSON (Expecting property name enclosed in"
                " double quotes at column 2); expected an object such as"
                ' --state \'{"customer_name": "Ada"}\'\n'
            ),
        ),
        (
            ["inspect", "{agent}", "--state", "[1]"],
            (
                "yadk inspect: error: --state must be a JSON object such as"
                ' \'{"customer_name": "Ada"}\', not list\n'
            ),
        ),
        (
            ["run", "{agent}", "--replay", "no_such_replay.json"],
            "yadk run: error: --replay file 'no_such_replay.json' does not exist\n",
        ),
        (
            ["inspect", "{agent}", "--artifact", "notes.txt"],
            (
                "yadk inspect: error: --artifact 'notes.txt': expected NAME=FILE, e.g."
                " --artifact notes.txt=./notes.txt\n"
            ),
        ),
        (
            ["inspect", "{agent}", "--artifact", "n=no_such_file.txt"],
            (
                "yadk inspect: error: --artifact n: The artifact file no_such_file.txt does not"
                " exist.\n"
            ),
        ),
        (
            ["validate", "configs_that_do_not_exist"],
            (
                "yadk validate: error: 'configs_that_do_not_exist' does not exist; expected config"
                " files, agent folders or skill folders\n"
            ),
        ),
        (
            ["new", "9lives"],
            (
                "yadk new: error: cannot name an agent '9lives': the folder's last part must be a"
                " Python identifier (letters, digits and '_', not starting with a digit),"
                " e.g. my_agent\n"
            ),
        ),
    ],
)
def test_usage_errors_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], agent_file: str, argv: list[str], message: str
) -> None:
    argv = [a.replace("{agent}", agent_file) for a in argv]
    assert run(capsys, *argv) == (2, "", message)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[1, 2]", 'expected {"state": {...}, "queries": ["...", ...]}'),
        ('{"queries": ["a"], "turns": []}', "unknown key 'turns'; expected"),
        ('{"queries": "hello"}', "'queries' must be a list of strings; expected"),
        ('{"state": [], "queries": []}', "'state' must be an object; expected"),
        ('{"queries": [}', "1:14: not valid JSON: Expecting value"),
    ],
)
def test_bad_replay_file_is_a_file_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, agent_file: str, content: str, message: str
) -> None:
    replay = tmp_path / "replay.json"
    replay.write_text(content, encoding="utf-8")
    code, out, err = run(capsys, "run", agent_file, "--replay", str(replay))
    assert (code, out) == (1, "")
    assert err.startswith(f"yadk run: error: {replay}")
    assert message in err


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    found = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(found[0].choices)


@pytest.mark.parametrize(
    ("argv", "word"),
    [
        (["inspect", "agent"], "inspect"),
        (["validate"], "validate"),
        (["create", "x"], "new"),
        (["--trust", "pkg", "run", "a"], "run"),
        (["--trust=pkg", "-v", "--no-adk-compat", "serve"], "serve"),
        (["--trust", "inspect", "validate", "a"], "validate"),  # the option's value is no command
        ([], None),
        (["--help"], None),
        (["-h", "inspect"], None),
        (["--version"], None),
        (["--tru", "x", "inspect"], None),  # abbreviated: only argparse knows what it takes
        (["-vh", "inspect"], None),
        (["--trust"], None),
        (["deploy"], None),
    ],
)
def test_command_word_builds_one_parser_only_when_certain(
    argv: list[str], word: str | None
) -> None:
    assert _command_word(argv) == word


@pytest.mark.parametrize(
    "name",
    [
        "run",
        "dev",
        "inspect",
        "validate",
        "schema",
        "new",
        "card",
        "serve",
        "eval",
        "sessions",
        "db",
        "web",
    ],
)
def test_a_command_parses_the_same_with_its_parser_alone(name: str) -> None:
    """The one-command parser is the full parser's, option for option: same help, same usage."""
    full = _subparsers(build_parser())
    alone = _subparsers(build_parser(only=name))
    assert set(alone) == {name, *({"create"} if name == "new" else set())}
    assert alone[name].format_help() == full[name].format_help()
    assert set(_COMMANDS) == {n for n, p in full.items() if n != "create"}


def test_a_usage_error_after_a_command_reads_as_with_every_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "inspect", "a", "--no-such-option")
    assert (code, out) == (2, "")
    assert (
        err == "usage: yadk [-h] [--version] [--trust MODULE] [--allow-code-execution KIND]\n"
        "            [--no-adk-compat] [-v]\n"
        "            COMMAND ...\n"
        "yadk: error: unrecognized arguments: --no-such-option\n"
    )
