"""The bounded YAML reader reads alike with libyaml's parser and with PyYAML's pure-Python one:
the same nodes at the same lines and columns, the same problems at the same places."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from yadk import _yaml as bounded

REPO = Path(__file__).resolve().parent.parent

# Documents where the two parsers differ unless the reader steps in (see ``yadk._yaml``).
DIVERGENT = [
    ("empty value in braces", "a: {b: , c: }\n"),
    ("explicit key at the end", "&a a: b\n*a : c\n?"),
    ("question mark in a flow scalar", "parts: [{text: Where is it?}]\n"),
    ("comment glued to a block scalar", "a: |#\n  x\n"),
    ("tab in a plain scalar", "a: b\tc\n"),
    ("byte-order mark inside", "b\ufeffa: 1\n"),
    ("malformed tag", "- !&!str 3\n"),
]
ORDINARY = [
    ("nested flow and block", "a: [b, {c: d}]\ne:\n  - f: |\n      text\n  - g: >-\n      more\n"),
    ("anchors and merges", "base: &b {m: 1}\nx: {<<: *b, n: 2}\n"),
    ("quoted and unicode", "k: 'it''s'\nj: \"\\t\\u00e9\"\nl: é漢字😀\n"),
    ("empty block values", "a:\nb:\n  - \n  - c\n"),
    ("crlf lines", "a: 1\r\nb: [2, 3]\r\n"),
]


def _shape(node: yaml.Node | None) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []

    def walk(node: yaml.Node) -> None:
        value = node.value if isinstance(node, yaml.ScalarNode) else None
        style = node.style if isinstance(node, yaml.ScalarNode) else None
        out.append((type(node).__name__, node.tag, *bounded.position(node), value, style))
        if isinstance(node, yaml.SequenceNode):
            for item in node.value:
                walk(item)
        elif isinstance(node, yaml.MappingNode):
            for key, item in node.value:
                walk(key)
                walk(item)

    if node is not None:
        walk(node)
    return out


def _outcome(text: str) -> object:
    try:
        return _shape(bounded.compose(text))
    except bounded.YamlProblem as problem:
        return (problem.rule, problem.line, problem.column, problem.message)


def _repository_yaml() -> list[Path]:
    folders = [REPO / "configs", REPO / "tests" / "config" / "fixtures"]
    return sorted(p for folder in folders for p in folder.rglob("*.yaml"))


@pytest.fixture
def pure_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a PyYAML built without libyaml."""
    monkeypatch.setattr(bounded, "CParser", None)


CASES = DIVERGENT + ORDINARY
CASE_IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("text", [c[1] for c in CASES], ids=CASE_IDS)
def test_both_parsers_give_the_same_nodes_and_problems(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_libyaml = _outcome(text)
    monkeypatch.setattr(bounded, "CParser", None)
    assert _outcome(text) == with_libyaml


def test_every_yaml_file_in_the_repository_reads_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    files = _repository_yaml()
    assert len(files) > 20
    with_libyaml = {p: _outcome(p.read_text(encoding="utf-8")) for p in files}
    monkeypatch.setattr(bounded, "CParser", None)
    for path in files:
        assert _outcome(path.read_text(encoding="utf-8")) == with_libyaml[path], path


@pytest.mark.skipif(bounded.CParser is None, reason="PyYAML without libyaml")
@pytest.mark.parametrize("text", [c[1] for c in ORDINARY], ids=[c[0] for c in ORDINARY])
def test_ordinary_documents_never_reach_the_pure_python_parser(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(text: str) -> yaml.Node | None:
        raise AssertionError("read by the pure-Python parser")

    monkeypatch.setattr(bounded, "_compose_pure_python", refuse)
    assert bounded.compose(text) is not None


def test_without_libyaml_documents_load_and_limits_hold(pure_python: None) -> None:
    assert bounded.load("a: [1, {b: c}]\n") == {"a": [1, {"b": "c"}]}
    with pytest.raises(bounded.YamlProblem) as caught:
        bounded.load("a: &a [1, *a]\n")
    assert (caught.value.rule, caught.value.line, caught.value.column) == (
        "yaml-recursive-alias",
        1,
        11,
    )
    with pytest.raises(bounded.YamlProblem) as caught:
        bounded.load("a: [1,\n")
    assert caught.value.rule == "yaml-syntax"
    assert caught.value.message == (
        "Invalid YAML: expected the node content, but found '<stream end>'"
        " (while parsing a flow node)."
    )
