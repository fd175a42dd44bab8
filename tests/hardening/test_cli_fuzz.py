"""Fuzzing the command line: hostile values for every option that names a file, a database, a
state or a session, fed to ``yadk``'s ``main`` in this process (and, for a few, to a real
``python -m yadk.cli``). Every outcome is an exit status of 0, 1 or 2; a failure says what went
wrong in an ``error:`` line; no traceback, no "unexpected" error, no hang.

The suite runs a small derandomized budget (``YADK_FUZZ_EXAMPLES``, default 25);
``python bench/fuzz.py`` runs thousands with fresh inputs under a memory cap.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from yadk.cli import main
from yadk.sessions._export import EXPORT_FORMAT

EXAMPLES = int(os.environ.get("YADK_FUZZ_EXAMPLES", "25"))
RANDOM = os.environ.get("YADK_FUZZ_RANDOM") == "1"
SECONDS_PER_INPUT = 20.0  # a hang is a failure; generous for a loaded machine


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


# Files a command may be pointed at; "{name}" is replaced by the path of a prepared file.
FILES = {
    "deep": '{"state": {"a": ' + _nested(20_000) + '}, "queries": ["hi"]}',
    "deep_open": "[" * 50_000,
    "long_number": '{"eval_set_id": ' + "9" * 100_000 + "}",
    "bad_json": '{"queries": [}',
    "not_utf8": b'{"queries": ["caf\xe9"]}',
    "empty": "",
    "wrong_types": '{"state": [], "queries": {"a": 1}}',
    "replay": '{"state": {"x": 1}, "queries": ["hi"]}',
    "export_bad_events": json.dumps(
        {
            "format": EXPORT_FORMAT,
            "app_name": "a",
            "user_id": "u",
            "id": "s1",
            "state": {"app": {}, "user": {}, "session": {}},
            "events": [{"author": 7, "content": "x"}],
        }
    ),
    "export_events_not_list": json.dumps(
        {
            "format": EXPORT_FORMAT,
            "app_name": "a",
            "user_id": "u",
            "id": "s",
            "state": {},
            "events": 5,
        }
    ),
    "export_wrong_state": json.dumps(
        {
            "format": EXPORT_FORMAT,
            "app_name": 1,
            "user_id": [],
            "id": {},
            "state": [],
            "events": {},
        }
    ),
    "evalset_keys": json.dumps(
        {
            "eval_set_id": "s",
            "eval_cases": [
                {"eval_id": "c", "conversation": [], **{f"k{i}": i for i in range(300)}}
            ],
        }
    ),
    "config": "name: a\nmodel: scripted:t.yaml\ninstruction: '{{ ' * 3\n",
}
PATHS = [
    *(f"{{{name}}}" for name in FILES),
    "{fifo}",
    "{folder}",
    "{missing}",
    "/dev/zero",
    "/dev/null",
    "\udcff.json",
    "{long_name}",
    "",
    "-",
]
# Values too long for hypothesis to print are drawn by name and filled in by ``_filled``.
BIG = {
    "deep_state": '{"a": ' + _nested(20_000) + "}",
    "open_state": "[" * 50_000,
    "long_number_state": '{"n": ' + "9" * 100_000 + "}",
    "long_string_state": '{"a": "' + "x" * 100_000 + '"}',
    "long_text": "x" * 100_000,
    "long_name": "x" * 5000,
}
STATES = [
    "{deep_state}",
    "{open_state}",
    "{long_number_state}",
    "{long_string_state}",
    '{"a": 1e999}',
    '{"\\udfff": 1}',
    "{",
    "",
    "null",
]
DBS = [
    ":memory:",
    "postgres://[::1",
    "postgresql://ada:secret@db:port/x",
    "postgresql://",
    "sqlite:///{missing}/x.db",
    "sqlite://",
    "{folder}",
    "{fifo}",
    "/dev/null",
    "\udcff.db",
    "{db}",
    "{empty}",
]
TEXTS = ["hi", "\udcff", "{long_text}", "", "\x1b[2J", "../../etc/passwd", "-h"]
ARTIFACTS = ["a={path}", "=x", "a=", "{path}", "a/b={path}", "..={path}"]


def _commands() -> st.SearchStrategy[list[str]]:
    path = st.sampled_from(PATHS)
    db = st.sampled_from(DBS)
    state = st.sampled_from(STATES)
    text = st.sampled_from(TEXTS)
    artifact = st.tuples(st.sampled_from(ARTIFACTS), path).map(
        lambda a: a[0].replace("{path}", a[1])
    )

    def options(**choices: st.SearchStrategy[str]) -> st.SearchStrategy[list[str]]:
        pairs = [st.one_of(st.just([]), value.map(lambda v, f=flag: [f, v]))
                 for flag, value in choices.items()]  # fmt: skip
        return st.tuples(*pairs).map(lambda parts: [word for part in parts for word in part])

    run = st.tuples(
        text,
        options(**{"--db": db, "--state": state, "--artifact": artifact, "--session-id": text}),
    ).map(lambda t: ["run", "{agent}", t[0], *t[1]])
    replay = st.tuples(path, db).map(lambda t: ["run", "{agent}", "--replay", t[0], "--db", t[1]])
    inspect = options(**{"--state": state, "--artifact": artifact}).map(
        lambda o: ["inspect", "{agent}", *o]
    )
    sessions = st.one_of(
        st.tuples(path, db).map(lambda t: ["sessions", "import", t[0], "--db", t[1]]),
        st.tuples(text, db).map(lambda t: ["sessions", "show", t[0], "--db", t[1]]),
        db.map(lambda d: ["sessions", "list", "--db", d]),
    )
    evaluate = path.map(lambda p: ["eval", "{agent}", p])
    upgrade = db.map(lambda d: ["db", "upgrade", "--db", d])
    validate = path.map(lambda p: ["validate", p])
    return st.one_of(run, replay, inspect, sessions, evaluate, upgrade, validate)


@pytest.fixture(scope="module")
def places(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    root = tmp_path_factory.mktemp("cli_fuzz")
    # Commands write beside the working folder (.yadk/sessions.db, a relative --db): make it
    # the fuzz's own.
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        yield _prepared(root)


def _prepared(root: Path) -> dict[str, str]:
    agent = root / "a"
    agent.mkdir()
    (agent / "root_agent.yaml").write_text(
        "name: a\nmodel: scripted:t.yaml\ninstruction: hi {x?}\n", encoding="utf-8"
    )
    (agent / "t.yaml").write_text("turns:\n  - text: ok\n", encoding="utf-8")
    found = {"agent": str(agent), "folder": str(root / "folder"), "missing": str(root / "nope")}
    (root / "folder").mkdir()
    for name, content in FILES.items():
        path = root / f"{name}.json"
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        found[name] = str(path)
    fifo = root / "pipe"
    os.mkfifo(fifo)
    found["fifo"] = str(fifo)
    found["db"] = str(root / "sessions.db")
    return found


def _filled(argv: list[str], places: dict[str, str]) -> list[str]:
    filled = []
    for word in argv:
        for name, place in [*places.items(), *BIG.items()]:
            word = word.replace(f"{{{name}}}", place)
        filled.append(word)
    return filled


def _check(argv: list[str], code: object, out: str, err: str) -> None:
    shown = " ".join(a[:60] for a in argv)
    assert code in (0, 1, 2), f"yadk {shown}: exit status {code!r}\n{err}"
    assert "Traceback" not in err, f"yadk {shown}:\n{err}"
    assert "unexpected" not in err, f"yadk {shown}:\n{err}"
    assert "secret" not in err + out, f"yadk {shown} printed a password:\n{err}"
    if code:  # validate and eval report problems on stdout, with a summary line
        assert "error" in err + out, f"yadk {shown}: exit status {code} without an error line"


def _main_within(argv: list[str]) -> tuple[object, str, str]:
    out, err = io.StringIO(), io.StringIO()
    outcome: list[object] = []

    def run() -> None:
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                outcome.append(main(argv))
        except BaseException as exc:  # anything escaping main is a finding
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    started = time.monotonic()
    thread.start()
    thread.join(SECONDS_PER_INPUT)
    shown = " ".join(a[:60] for a in argv)
    assert not thread.is_alive(), (
        f"yadk {shown}: no answer after {time.monotonic() - started:.0f} s"
    )
    result = outcome[0]
    if isinstance(result, BaseException):
        raise AssertionError(f"yadk {shown} raised {result!r}") from result
    return result, out.getvalue(), err.getvalue()


@pytest.mark.slow
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not RANDOM,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(argv=_commands())
def test_the_command_line(places: dict[str, str], argv: list[str]) -> None:
    filled = _filled(argv, places)
    _check(filled, *_main_within(filled))


# Real processes, as a user runs them: the bytes of argv, the process's own stdin and exit.
@pytest.mark.subprocess
@pytest.mark.parametrize(
    "argv",
    [
        ["run", "{agent}", "--replay", "{fifo}", "--db", ":memory:"],
        ["run", "{agent}", "hi", "--artifact", "a=/dev/zero", "--db", ":memory:"],
        ["run", "{agent}", "hi", "--state", "{deep_state}", "--db", ":memory:"],
        ["sessions", "import", "{deep}", "--db", "{db}"],
        ["sessions", "list", "--db", "postgres://[::1"],
        ["eval", "{agent}", "{long_number}"],
    ],
    ids=["replay fifo", "dev zero", "deep state", "deep export", "bad url", "long number"],
)
def test_the_command_line_in_a_process(places: dict[str, str], argv: list[str]) -> None:
    filled = _filled(argv, places)
    env = {k: v for k, v in os.environ.items() if k != "YADK_DEBUG"}
    result = subprocess.run(
        [sys.executable, "-m", "yadk.cli", *filled],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        env=env,
        check=False,
    )
    _check(filled, result.returncode, result.stdout, result.stderr)
    assert result.returncode in (1, 2)
