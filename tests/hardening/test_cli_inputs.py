"""Files and values named on the command line are untrusted input: a pipe is refused instead of
waited on, a device or a huge file instead of read until memory runs out, deeply nested JSON and
over-long numbers are located errors, a malformed ``--db`` URL is a usage error, and a file
full of unknown eval keys costs a handful of reports, not one suggestion per key."""

from __future__ import annotations

import difflib
import json
import os
import resource
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from yadk._files import LIMITS, MAX_JSON_DEPTH
from yadk.cli import main
from yadk.eval import _located, load_eval_set_file
from yadk.sessions._export import EXPORT_FORMAT

REGULAR = "Name a regular file; pipes, devices and folders are never read."
DEPTH_HINT = "Nest objects and arrays at most 100 deep."


@pytest.fixture
def agent(tmp_path: Path) -> str:
    folder = tmp_path / "a"
    folder.mkdir()
    (folder / "root_agent.yaml").write_text(
        "name: a\nmodel: scripted:t.yaml\ninstruction: hi\n", encoding="utf-8"
    )
    (folder / "t.yaml").write_text("turns:\n  - text: ok\n", encoding="utf-8")
    return str(folder)


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[str]:
    path = tmp_path / "pipe.json"
    os.mkfifo(path)
    yield str(path)
    # Code that opened the pipe for a blocking read is still waiting: give it an end of file.
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:
        pass


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``main(argv)`` in a thread, so that a command that hangs fails the test instead of
    hanging the suite."""
    codes: list[int] = []
    thread = threading.Thread(target=lambda: codes.append(main(list(argv))), daemon=True)
    thread.start()
    thread.join(60)
    assert codes, f"yadk {' '.join(argv)} did not finish"
    out, err = capsys.readouterr()
    return codes[0], out, err


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def column_of_too_deep(text: str, levels_before: int) -> int:
    """The 1-based column of the bracket that opens level 101, ``levels_before`` levels being
    opened before the first ``[``."""
    return text.index("[") + (100 - levels_before) + 1


def test_an_artifact_that_is_a_pipe_is_refused(
    capsys: pytest.CaptureFixture[str], agent: str, fifo: str
) -> None:
    argv = ["run", agent, "hi", "--artifact", f"a={fifo}", "--db", ":memory:"]
    assert cli(capsys, *argv) == (
        2,
        "",
        f"yadk run: error: --artifact a: The artifact file {fifo} is a named pipe (FIFO), not a"
        f" regular file. {REGULAR}\n",
    )


def test_a_replay_file_that_is_a_pipe_is_refused(
    capsys: pytest.CaptureFixture[str], agent: str, fifo: str
) -> None:
    assert cli(capsys, "run", agent, "--replay", fifo, "--db", ":memory:") == (
        2,
        "",
        f"yadk run: error: The replay file {fifo} is a named pipe (FIFO), not a regular file."
        f" {REGULAR}\n",
    )


def test_a_session_export_that_is_a_pipe_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fifo: str
) -> None:
    db = str(tmp_path / "s.db")
    assert cli(capsys, "sessions", "import", fifo, "--db", db) == (
        2,
        "",
        f"yadk sessions: error: The session export {fifo} is a named pipe (FIFO), not a regular"
        f" file. {REGULAR}\n",
    )


def test_an_eval_set_that_is_a_pipe_is_refused(fifo: str) -> None:
    eval_set, found = load_eval_set_file(Path(fifo))
    assert eval_set is None
    assert [d.format() for d in found] == [
        f"{fifo}: error not-a-regular-file: The eval file {fifo} is a named pipe (FIFO),"
        f" not a regular file.\n  hint: {REGULAR}"
    ]


def test_an_artifact_over_the_limit_is_refused_unread(
    capsys: pytest.CaptureFixture[str], agent: str, tmp_path: Path
) -> None:
    big = tmp_path / "big.bin"
    with big.open("wb") as handle:  # sparse: no disk space is used
        handle.truncate(LIMITS["artifact"] + 1)
    argv = ["run", agent, "hi", "--artifact", f"a={big}", "--db", ":memory:"]
    assert cli(capsys, *argv) == (
        2,
        "",
        f"yadk run: error: --artifact a: The artifact file {big} is 33,554,433 bytes; the limit"
        " for an artifact file is 33,554,432 bytes. Split it or shorten it.\n",
    )


def _memory_cap() -> None:
    cap = 1024**3
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


@pytest.mark.subprocess
def test_an_artifact_that_is_a_device_is_refused(agent: str, tmp_path: Path) -> None:
    # A process of its own under a memory cap: reading /dev/zero never ends otherwise.
    env = {k: v for k, v in os.environ.items() if k != "YADK_DEBUG"}
    argv = ["run", agent, "hi", "--artifact", "a=/dev/zero", "--db", ":memory:"]
    result = subprocess.run(
        [sys.executable, "-m", "yadk.cli", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=env,
        preexec_fn=_memory_cap,
        check=False,
    )
    assert (result.returncode, result.stdout, result.stderr) == (
        2,
        "",
        f"yadk run: error: --artifact a: The artifact file /dev/zero is a device, not a regular"
        f" file. {REGULAR}\n",
    )


def test_a_deeply_nested_replay_file_is_a_located_error(
    capsys: pytest.CaptureFixture[str], agent: str, tmp_path: Path
) -> None:
    text = '{"state": {"x": ' + nested(100_000) + '}, "queries": ["hi"]}'
    replay = tmp_path / "replay.json"
    replay.write_text(text, encoding="utf-8")
    column = column_of_too_deep(text, 2)
    assert cli(capsys, "run", agent, "--replay", str(replay), "--db", ":memory:") == (
        1,
        "",
        f"yadk run: error: {replay}:1:{column}: nested more than 100 deep. {DEPTH_HINT}\n",
    )


def test_a_deeply_nested_session_export_is_a_located_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = '{\n  "format": "x",\n  "state": ' + nested(100_000) + "\n}"
    export = tmp_path / "session.json"
    export.write_text(text, encoding="utf-8")
    column = column_of_too_deep(text.splitlines()[2], 1)
    assert cli(capsys, "sessions", "import", str(export), "--db", str(tmp_path / "s.db")) == (
        1,
        "",
        f"yadk sessions: error: {export}:3:{column}: nested more than 100 deep. {DEPTH_HINT}\n",
    )


def test_deeply_nested_state_on_the_command_line_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], agent: str
) -> None:
    state = '{"a": ' + nested(100_000) + "}"
    assert cli(capsys, "run", agent, "hi", "--state", state, "--db", ":memory:") == (
        2,
        "",
        "yadk run: error: --state is nested more than 100 deep; expected an object such as"
        ' --state \'{"customer_name": "Ada"}\'\n',
    )


def test_json_nested_to_the_limit_is_read(
    capsys: pytest.CaptureFixture[str], agent: str, tmp_path: Path
) -> None:
    replay = tmp_path / "replay.json"
    replay.write_text('{"state": {"x": ' + nested(98) + '}, "queries": ["hi"]}', "utf-8")
    assert cli(capsys, "run", agent, "--replay", str(replay), "--db", ":memory:") == (
        0,
        "[user]: hi\n[a]: ok\n",
        "",
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "{agent}", "hi"],
        ["sessions", "list"],
        ["db", "upgrade"],
        ["serve", "{agent}"],
        ["web", "{agent}"],
    ],
    ids=["run", "sessions", "db", "serve", "web"],
)
@pytest.mark.parametrize(
    ("url", "shown", "reason"),
    [
        ("postgres://[::1", "postgres://[::1", "Invalid IPv6 URL"),
        (
            "postgresql://ada:secret@db:port/agents",
            "postgresql://ada:***@db:port/agents",
            "Port could not be cast to integer value as 'port'",
        ),
    ],
    ids=["ipv6", "port"],
)
def test_a_malformed_db_url_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
    agent: str,
    argv: list[str],
    url: str,
    shown: str,
    reason: str,
) -> None:
    argv = [agent if a == "{agent}" else a for a in argv]
    code, out, err = cli(capsys, *argv, "--db", url)
    assert (code, out) == (2, "")
    assert err.endswith(
        f"yadk {argv[0]}: error: argument --db: {shown!r} is not a valid URL ({reason}); expected"
        " e.g. postgresql://USER@HOST:5432/DB, sqlite:///PATH or a file path\n"
    )
    assert "secret" not in err


def _eval_set(case: dict[str, object]) -> str:
    return json.dumps({"eval_set_id": "s", "eval_cases": [case]}, indent=1)


def test_a_number_too_long_for_python_is_a_located_eval_error(tmp_path: Path) -> None:
    path = tmp_path / "long.evalset.json"
    text = _eval_set({"eval_id": "c", "conversation": [], "creation_timestamp": 1})
    text = text.replace('"creation_timestamp": 1', '"creation_timestamp": ' + "7" * 100_000)
    path.write_text(text, encoding="utf-8")
    eval_set, found = load_eval_set_file(path)
    assert eval_set is None
    line = text[: text.index("7777")].count("\n") + 1
    column = len(text.splitlines()[line - 1].split("7777")[0]) + 1
    assert [d.format() for d in found] == [
        f"{path}:{line}:{column}: error json-number-too-long: The eval set has a number of more"
        " than 4,300 digits.\n  hint: Write such a value as a string."
    ]


def test_a_number_too_long_through_yadk_eval(
    capsys: pytest.CaptureFixture[str], agent: str, tmp_path: Path
) -> None:
    path = tmp_path / "long.evalset.json"
    path.write_text('{"eval_set_id": ' + "1" * 5000 + "}", encoding="utf-8")
    code, out, err = cli(capsys, "eval", agent, str(path))
    assert (code, out) == (2, "")
    assert err == (
        f"{path}:1:17: error json-number-too-long: The eval set has a number of more than 4,300"
        " digits.\n  hint: Write such a value as a string.\n"
        "yadk eval: error: 1 problem in the eval input; nothing was run\n"
    )


def test_many_unknown_eval_keys_cost_a_handful_of_suggestions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    matched: list[str] = []
    real = difflib.get_close_matches

    def counting(word: str, *args: object, **kwargs: object) -> list[str]:
        matched.append(word)
        return real(word, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(difflib, "get_close_matches", counting)
    _located._did_you_mean.cache_clear()
    path = tmp_path / "keys.evalset.json"
    unknown = {f"zq{i}x": 1 for i in range(5000)}
    path.write_text(_eval_set({"eval_id": "c", "conversation": [], **unknown}), "utf-8")
    _, found = load_eval_set_file(path)
    assert [d.rule for d in found] == ["unknown-key"] * 21
    assert found[0].message == "Unknown key `zq0x` in an eval case."
    assert found[-1].format() == (
        f"{path}:4:3: warning unknown-key: An eval case has 4,980 more unknown keys.\n"
        "  hint: Remove them; only the first are reported one by one."
    )
    assert len(matched) == 20


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"events": [{"author": 7}]},
            '"events"[0] is not an event: author: Input should be a valid string (1 problem)',
        ),
        ({"events": 5}, '"events" must be a list of events'),
        ({"user_id": []}, '"user_id" must be a non-empty string'),
        (
            {"state": []},
            '"state" must be an object of "session", "user" and "app" objects, as'
            " `yadk sessions export` writes",
        ),
    ],
    ids=["event", "events", "user", "state"],
)
def test_a_malformed_session_export_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, change: dict[str, object], message: str
) -> None:
    document = {"format": EXPORT_FORMAT, "app_name": "a", "user_id": "u", "id": "s", "state": {},
                "events": [], **change}  # fmt: skip
    export = tmp_path / "session.json"
    export.write_text(json.dumps(document), encoding="utf-8")
    assert cli(capsys, "sessions", "import", str(export), "--db", str(tmp_path / "s.db")) == (
        1,
        "",
        f"yadk sessions: error: {export}: {message}\n",
    )


def test_the_input_limits_are_documented() -> None:
    docs = (Path(__file__).parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    section = docs.split("## Input limits", 1)[1].split("\n## ", 1)[0]
    for kind, option in [
        ("artifact", "--artifact NAME=FILE"),
        ("replay", "--replay FILE"),
        ("session_export", "sessions import FILE"),
        ("evalset", "`yadk eval`"),
    ]:
        row = next(line for line in section.splitlines() if option in line)
        assert row.endswith(f"| {LIMITS[kind] // 1024**2} MiB |"), row
    assert LIMITS["evalset"] == _located.MAX_FILE_BYTES
    assert f"nested more than **{MAX_JSON_DEPTH}** deep" in section
    assert f"at most the first\n{_located.MAX_UNKNOWN_KEYS} unknown keys" in section


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            "x" * 300,
            "a session id has at most 255 bytes (it names a folder of the artifact store);"
            " this one has 300",
        ),
        (
            "caf\udce9",
            "'caf\\\\udce9' is not valid UTF-8 (byte 0xe9 at character 4); send UTF-8"
            " text (is the terminal's locale UTF-8?)",
        ),
    ],
    ids=["too long", "not utf-8"],
)
def test_a_session_id_no_store_can_hold_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], agent: str, value: str, message: str
) -> None:
    code, out, err = cli(capsys, "run", agent, "hi", "--session-id", value, "--db", ":memory:")
    assert (code, out) == (2, "")
    assert err.endswith(f"yadk run: error: argument --session-id: {message}\n")


def test_an_eval_set_to_save_into_that_is_a_pipe_is_refused(
    capsys: pytest.CaptureFixture[str], agent: str, fifo: str
) -> None:
    argv = ["run", agent, "hi", "--save-evalcase", fifo, "--db", ":memory:"]
    assert cli(capsys, *argv) == (
        1,
        "[user]: hi\n[a]: ok\n",
        f"yadk run: error: --save-evalcase: {fifo} is not a readable eval set (The eval file"
        f" {fifo} is a named pipe (FIFO), not a regular file.)\n",
    )
