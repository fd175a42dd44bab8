"""LexicalExampleStore: BM25 ranking over example inputs, top_k, min_score, files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from yadk.errors import ExampleError
from yadk.examples import BaseExampleProvider, Example, LexicalExampleStore
from yadk.examples._lexical import tokenize
from yadk.types import ModelContent, UserContent


def ex(question: str, answer: str) -> Example:
    return Example(input=UserContent(question), output=[ModelContent(answer)])


EXAMPLES = [
    ex("Where is my order?", "track"),
    ex("I want a refund for my order", "refund"),
    ex("How do I reset my password?", "password"),
    ex("Cancel my subscription please", "cancel"),
    ex("Refund refund refund", "spam"),
]


def answers(examples: list[Example]) -> list[str]:
    return [e.output[0].parts[0].text or "" for e in examples]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("where is order 4417", [("track", 0.5948), ("refund", 0.1095)]),
        ("refund please", [("spam", 0.5250), ("cancel", 0.4887), ("refund", 0.2367)]),
        ("PASSWORD reset!", [("password", 0.6629)]),
        ("Where is my order?", [("track", 1.0), ("refund", 0.2266), ("cancel", 0.0731)]),
        ("hello there", []),
        ("", []),
        ("?!", []),
    ],
)
def test_ranking_and_normalised_scores(query: str, expected: list[tuple[str, float]]) -> None:
    store = LexicalExampleStore(EXAMPLES, top_k=3)
    got = [(answers([e])[0], round(score, 4)) for score, e in store.scores(query)]
    assert got == expected
    assert answers(store.get_examples(query)) == [name for name, _ in expected]


@pytest.mark.parametrize(
    ("top_k", "min_score", "expected"),
    [
        (1, 0.0, ["track"]),
        (5, 0.0, ["track", "refund", "cancel", "password"]),
        (5, 0.2, ["track", "refund"]),
        (5, 0.5, ["track"]),
        (5, 1.0, ["track"]),
    ],
)
def test_top_k_and_min_score(top_k: int, min_score: float, expected: list[str]) -> None:
    store = LexicalExampleStore(EXAMPLES, top_k=top_k, min_score=min_score)
    assert answers(store.get_examples("Where is my order?")) == expected


def test_ties_keep_the_given_order() -> None:
    store = LexicalExampleStore([ex("blue sky", "first"), ex("blue sea", "second")])
    assert answers(store.get_examples("blue")) == ["first", "second"]


def test_dicts_and_files(tmp_path: Path) -> None:
    path = tmp_path / "examples.jsonl"
    path.write_text(
        "\n".join(json.dumps(e.model_dump(mode="json", exclude_none=True)) for e in EXAMPLES),
        encoding="utf-8",
    )
    from_file = LexicalExampleStore.from_file(path, top_k=2)
    from_dicts = LexicalExampleStore([e.model_dump(mode="json") for e in EXAMPLES], top_k=2)
    assert isinstance(from_file, BaseExampleProvider)
    assert from_file.get_examples("reset password") == [EXAMPLES[2]]
    assert from_dicts.get_examples("my order") == from_file.get_examples("my order")
    assert answers(from_file.get_examples("my order")) == ["track", "refund"]
    assert repr(from_file) == "LexicalExampleStore(5 examples, top_k=2, min_score=0.0)"


def test_empty_store_returns_nothing() -> None:
    assert LexicalExampleStore([]).get_examples("anything") == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"top_k": 0}, "top_k must be at least 1, got 0."),
        ({"min_score": 1.5}, "min_score must be between 0 and 1, got 1.5."),
        ({"b": 2.0}, "BM25 needs k1 >= 0 and 0 <= b <= 1, got k1=1.5, b=2.0."),
    ],
)
def test_invalid_settings(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ExampleError) as info:
        LexicalExampleStore(EXAMPLES, **kwargs)  # type: ignore[arg-type]
    assert info.value.message == message


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("Order #4417, please!", ["order", "4417", "please"]),
        ("snake_case and CamelCase", ["snake", "case", "and", "camelcase"]),
        ("Größe ändern", ["größe", "ändern"]),
        ("", []),
    ],
)
def test_tokenize(text: str, tokens: list[str]) -> None:
    assert tokenize(text) == tokens
