"""An exception no command expected: one line naming the command and the exception, and the
traceback only with ``--verbose`` or ``YADK_DEBUG=1``."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

import yadk.cli._schema as schema_command
from yadk.errors import ModelError

if TYPE_CHECKING:
    from tests.cli.conftest import Cli


def _explode(args: argparse.Namespace) -> int:
    raise RuntimeError("disk on fire\nsecond line")


@pytest.fixture
def exploding_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("YADK_DEBUG", raising=False)
    monkeypatch.setattr(schema_command, "execute", _explode)


@pytest.mark.usefixtures("exploding_schema")
def test_one_line_and_a_hint_by_default(cli: Cli) -> None:
    assert cli("schema") == (
        1,
        "",
        "yadk schema: error: unexpected RuntimeError: disk on fire second line\n"
        "  hint: run 'yadk --verbose schema ...' or set YADK_DEBUG=1 to see the full traceback\n",
    )


@pytest.mark.usefixtures("exploding_schema")
@pytest.mark.parametrize("how", ["--verbose", "-v", "YADK_DEBUG=1"])
def test_the_traceback_on_request(cli: Cli, how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if how.startswith("YADK_DEBUG"):
        monkeypatch.setenv("YADK_DEBUG", "1")
        argv: tuple[str, ...] = ("schema",)
    else:
        argv = (how, "schema")
    code, out, err = cli(*argv)
    assert (code, out) == (1, "")
    assert err.startswith("Traceback (most recent call last):\n")
    assert 'raise RuntimeError("disk on fire\\nsecond line")' in err
    assert err.endswith("yadk schema: error: unexpected RuntimeError: disk on fire second line\n")


@pytest.mark.parametrize("value", ["", "0"])
def test_yadk_debug_off_values(
    cli: Cli, value: str, monkeypatch: pytest.MonkeyPatch, exploding_schema: None
) -> None:
    monkeypatch.setenv("YADK_DEBUG", value)
    code, _, err = cli("schema")
    assert code == 1
    assert "Traceback" not in err


def test_a_yadk_error_is_its_message(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(args: argparse.Namespace) -> int:
        raise ModelError("script exhausted after 2 turns")

    monkeypatch.delenv("YADK_DEBUG", raising=False)
    monkeypatch.setattr(schema_command, "execute", fail)
    assert cli("schema") == (1, "", "yadk schema: error: script exhausted after 2 turns\n")


@pytest.mark.subprocess
def test_a_real_process_prints_no_traceback() -> None:
    code = (
        "import sys, yadk.cli._schema as s\n"
        "def boom(args):\n"
        "    raise KeyError('state_key')\n"
        "s.execute = boom\n"
        "from yadk.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "YADK_DEBUG"}
    result = subprocess.run(
        [sys.executable, "-c", code, "schema"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        env=env,
    )
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        "yadk schema: error: unexpected KeyError: 'state_key'\n"
        "  hint: run 'yadk --verbose schema ...' or set YADK_DEBUG=1 to see the full traceback\n"
    )
