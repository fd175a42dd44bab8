"""The position-tracking YAML reader and ``${env:...}`` substitution."""

from __future__ import annotations

from pathlib import Path

import pytest

from yadk.config._env import substitute_env
from yadk.config._yaml import Document, parse_document

Problem = tuple[int, int, str, str, str]


def parse(text: str) -> tuple[Document | None, list[Problem]]:
    problems: list[Problem] = []
    document = parse_document(
        Path("/x/a.yaml"),
        text,
        lambda *args: problems.append(args),  # type: ignore[arg-type]
    )
    return document, problems


def test_positions_of_keys_and_values() -> None:
    document, problems = parse(
        "# comment\nname: a\ntools:\n  - name: x\n    args: {k: [1, 2]}\nlist: [a, b]\n"
    )
    assert problems == []
    assert document is not None
    assert document.data == {
        "name": "a",
        "tools": [{"name": "x", "args": {"k": [1, 2]}}],
        "list": ["a", "b"],
    }
    assert document.where(("name",), key=True) == (2, 1)
    assert document.where(("name",)) == (2, 7)
    assert document.where(("tools", 0)) == (4, 5)
    assert document.where(("tools", 0, "name")) == (4, 11)
    assert document.where(("tools", 0, "args", "k", 1)) == (5, 19)
    assert document.where(("list", 1)) == (6, 11)
    # Unknown paths fall back to the nearest ancestor.
    assert document.where(("tools", 0, "args", "nope")) == (5, 11)


@pytest.mark.parametrize(
    ("text", "offset", "expected"),
    [
        ("v: abc {x}\n", 4, (1, 8)),
        ("v: 'abc {x}'\n", 4, (1, 9)),
        ('v: "abc {x}"\n', 4, (1, 9)),
        ("v: |\n  one\n  two {x}\n", 8, (3, 7)),
        ("v: >\n  one\n  two {x}\n", 8, (1, 4)),
        ('v: "a\\tb {x}"\n', 4, (1, 4)),
        ("v: 'it''s {x}'\n", 5, (1, 4)),
    ],
)
def test_positions_inside_strings(text: str, offset: int, expected: tuple[int, int]) -> None:
    document, _ = parse(text)
    assert document is not None
    assert document.where_in_string(("v",), offset) == expected


def test_merge_keys_and_anchors() -> None:
    document, problems = parse("base: &b {model: m, name: x}\nagent:\n  <<: *b\n  name: y\n")
    assert problems == []
    assert document is not None
    assert document.data["agent"] == {"model": "m", "name": "y"}


def test_nested_duplicate_key() -> None:
    _, problems = parse("a:\n  b: 1\n  b: 2\n")
    assert problems == [
        (
            3,
            3,
            "duplicate-key",
            "Key `b` appears twice in this mapping; YAML would silently keep only the last value.",
            "Remove one of them (the first is at line 2, column 3).",
        )
    ]


def test_two_documents_are_a_syntax_error() -> None:
    document, problems = parse("name: a\n---\nname: b\n")
    assert document is None
    assert [p[:3] for p in problems] == [(2, 1, "yaml-syntax")]


@pytest.mark.parametrize(
    ("text", "environ", "expected", "missing"),
    [
        ("no reference", {}, "no reference", []),
        ("${env:A}", {"A": "1"}, "1", []),
        ("x ${env:A} y ${env:B:-two}", {"A": "one"}, "x one y two", []),
        ("${env:A:-}", {}, "", []),
        ("${env:A:-a:-b}", {}, "a:-b", []),
        ("$${env:A}", {"A": "1"}, "${env:A}", []),
        ("${env:A} and ${env:B}", {}, "${env:A} and ${env:B}", [("A", 0), ("B", 13)]),
        ("${A} ${env:} ${env:1X}", {}, "${A} ${env:} ${env:1X}", []),
    ],
)
def test_substitute_env(
    text: str, environ: dict[str, str], expected: str, missing: list[tuple[str, int]]
) -> None:
    result, unset = substitute_env(text, environ)
    assert result == expected
    assert [(m.name, m.offset) for m in unset] == missing
