"""docs/cli.md quotes each command's ``--help`` verbatim: the help and the docs cannot drift."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from yadk.cli import build_parser

Cli = Callable[..., tuple[int, str, str]]
DOCS = Path(__file__).resolve().parents[2] / "docs" / "cli.md"
HELP_BLOCK = re.compile(r"```text\n\$ yadk (\w+) --help\n(.*?)```", re.DOTALL)


def documented_help() -> dict[str, str]:
    return dict(HELP_BLOCK.findall(DOCS.read_text(encoding="utf-8")))


def commands() -> list[str]:
    """Each command once (an alias such as ``create`` shares its command's help)."""
    parser = build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    names: dict[int, str] = {}
    for name, sub in subparsers.choices.items():
        names.setdefault(id(sub), name)
    return list(names.values())


def test_every_command_has_its_help_in_the_docs() -> None:
    assert sorted(documented_help()) == sorted(commands())


@pytest.mark.parametrize("command", commands())
def test_docs_quote_the_help_verbatim(cli: Cli, command: str) -> None:
    code, out, err = cli(command, "--help")
    assert (code, err) == (0, "")
    assert documented_help()[command] == out


def test_docs_quote_the_slash_command_help_verbatim() -> None:
    from yadk.cli._slash import HELP

    assert f"```text\n{HELP}\n```" in DOCS.read_text(encoding="utf-8")
