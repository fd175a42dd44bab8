"""Inputs a user can get wrong end in one located line, never a
traceback or an ``internal-error``: real ``python -m yadk.cli`` processes, as a user runs them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from yadk.config import validate_paths

pytestmark = pytest.mark.subprocess


def yadk(*argv: str | bytes, cwd: Path, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if k != "YADK_DEBUG"}
    return subprocess.run(
        [sys.executable, "-m", "yadk.cli", *argv],
        input=stdin,
        capture_output=True,
        check=False,
        timeout=60,
        cwd=cwd,
        env=env,
    )


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    folder = tmp_path / "a"
    folder.mkdir()
    (folder / "root_agent.yaml").write_text(
        "name: a\nmodel: scripted:t.yaml\ninstruction: hi\n", encoding="utf-8"
    )
    (folder / "t.yaml").write_text("turns:\n  - text: ok\n  - text: ok\n", encoding="utf-8")
    return folder


def test_agent_class_mapping_is_a_located_wrong_type(tmp_path: Path) -> None:
    config = tmp_path / "root_agent.yaml"
    config.write_text("name: a\nagent_class: {a: 1}\ninstruction: hi\n", encoding="utf-8")
    for import_code in (False, True):
        found = validate_paths([config], import_code=import_code)
        assert [(d.line, d.column, d.rule) for d in found] == [(2, 14, "wrong-type")]


def test_a_non_utf8_message(agent: Path, tmp_path: Path) -> None:
    result = yadk(b"run", b"a", b"caf\xe9", b"--db", b":memory:", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, b"")
    assert result.stderr == (
        b"yadk run: error: MESSAGE is not valid UTF-8 (byte 0xe9 at character 4); send UTF-8"
        b" text (is the terminal's locale UTF-8?)\n"
    )


def test_a_non_utf8_line_on_stdin_is_skipped(agent: Path, tmp_path: Path) -> None:
    result = yadk("run", "a", "--db", ":memory:", cwd=tmp_path, stdin=b"caf\xe9\nhello\n")
    assert result.returncode == 1
    assert result.stdout == b"[user]: hello\n[a]: ok\n"
    assert b"Traceback" not in result.stderr
    assert b"skipped: this line is not valid UTF-8 (byte 0xe9 at character 4)" in result.stderr


@pytest.mark.parametrize(
    ("config", "rule"),
    [
        ('"\\udfff": 1\nname: a\ninstruction: hi\n', "yaml-invalid-string"),
        ('name: a\ninstruction: hi\nx: !!int "x"\n', "yaml-invalid-value"),
        ("name: a\ninstruction: hi\nx: " + "9" * 5000 + "\n", "yaml-invalid-value"),
    ],
    ids=["lone surrogate", "!!int", "huge int"],
)
@pytest.mark.parametrize("command", ["validate", "run"])
def test_bad_yaml_values_from_the_command_line(
    agent: Path, tmp_path: Path, config: str, rule: str, command: str
) -> None:
    (agent / "root_agent.yaml").write_text(config, encoding="utf-8")
    argv = ["validate", "a"] if command == "validate" else ["run", "a", "hi", "--db", ":memory:"]
    result = yadk(*argv, cwd=tmp_path)
    assert result.returncode == 1
    assert b"Traceback" not in result.stderr
    assert b"internal-error" not in result.stdout + result.stderr
    assert f": error {rule}: ".encode() in result.stdout + result.stderr


@pytest.mark.parametrize(
    "frontmatter", ['name: !!int "x"', 'name: !!float "nope"', "name: " + "9" * 5000]
)
def test_bad_skill_frontmatter_from_the_command_line(tmp_path: Path, frontmatter: str) -> None:
    skill = tmp_path / "demo"
    skill.mkdir()
    (skill / "SKILL.md").write_text(f"---\n{frontmatter}\ndescription: d\n---\nBody\n")
    result = yadk("validate", "demo", cwd=tmp_path)
    assert result.returncode == 1
    assert b"Traceback" not in result.stderr
    assert b"demo/SKILL.md:2:7: error yaml-invalid-value:" in result.stdout
