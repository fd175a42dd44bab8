"""Scores equal google-adk 2.13's, value for value, on the corpus in fixtures/adk_corpus.json.

The expected values in fixtures/adk_scores.json were recorded by running google-adk's own metric
code (and NLTK's stemmer) over that corpus: see record_adk_fixtures.py beside this file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from yadk.eval import (
    EvalStatus,
    Invocation,
    Metric,
    ToolCall,
    load_eval_set_file,
    rouge_1,
    tokenize,
)
from yadk.eval._metrics import score_metric
from yadk.eval._porter import stem
from yadk.types import Content, Part

FIXTURES = Path(__file__).parent / "fixtures"
RECORDED = json.loads((FIXTURES / "adk_scores.json").read_text("utf-8"))
CORPUS = json.loads((FIXTURES / "adk_corpus.json").read_text("utf-8"))


def test_fixtures_come_from_google_adk_2_13() -> None:
    assert RECORDED["google_adk_version"] == "2.13.0"
    assert len(RECORDED["stems"]) > 10_000


def test_porter_stems_equal_nltk_default_mode_for_every_recorded_word() -> None:
    wrong = {
        word: (stem(word), want) for word, want in RECORDED["stems"].items() if stem(word) != want
    }
    assert wrong == {}


@pytest.mark.parametrize(
    ("word", "stemmed"),
    [
        ("caresses", "caress"),
        ("ponies", "poni"),
        ("ties", "tie"),  # NLTK: four-letter `ies` -> `ie`
        ("dying", "die"),  # NLTK's irregular forms
        ("generously", "gener"),
        ("hopefulli", "hope"),
        ("archaeology", "archaeolog"),
        ("at", "at"),
    ],
)
def test_porter_known_stems(word: str, stemmed: str) -> None:
    assert stem(word) == stemmed
    assert RECORDED["stems"][word] == stemmed


@pytest.mark.parametrize("case", RECORDED["rouge"], ids=lambda c: c["response"][:30] or "empty")
def test_rouge_1_equals_google_adk(case: dict[str, Any]) -> None:
    score = rouge_1(case["response"], case["reference"])
    assert tokenize(case["response"]) == case["response_tokens"]
    assert (score.precision, score.recall, score.fmeasure) == (
        case["precision"],
        case["recall"],
        case["fmeasure"],
    )


def test_rouge_tokenizer_rules() -> None:
    assert tokenize("東京タワー") == ["東", "京", "タ", "ワ", "ー"]
    assert tokenize("Café CRÈME, naïve!") == ["café", "crème", "naïve"]
    assert tokenize("ＦＵＬＬ width") == ["full", "width"]
    assert tokenize("Running quickly") == ["run", "quickli"]


def _invocation(calls: list[Any] | None, text: Any) -> Invocation:
    if text is None:
        response = None
    else:
        texts = text if isinstance(text, list) else [text]
        response = Content(role="model", parts=[Part(text=t) for t in texts])
    return Invocation(
        user_content=Content(role="user", parts=[Part(text="q")]),
        final_response=response,
        tool_uses=[ToolCall(name, args) for name, args in calls or []],
    )


def _match_type(value: str | int) -> str:
    if isinstance(value, int):
        return ["EXACT", "IN_ORDER", "ANY_ORDER"][value]
    return value.strip().upper().replace("-", "_").replace(" ", "_")


@pytest.mark.parametrize(
    ("case", "recorded"),
    list(zip(CORPUS["trajectory"], RECORDED["trajectory"], strict=True)),
    ids=[c["name"] for c in CORPUS["trajectory"]],
)
def test_tool_trajectory_equals_google_adk(case: dict[str, Any], recorded: dict[str, Any]) -> None:
    metric = Metric(
        "tool_trajectory_avg_score",
        case.get("threshold", 1.0),
        "trajectory",
        match_type=_match_type(case["match_type"]),
        ignore_args=case.get("ignore_args", False),
    )
    result = score_metric(
        metric,
        [_invocation(calls, "") for calls in case["actual"]],
        [_invocation(calls, "") for calls in case["expected"]],
    )
    assert result.score == recorded["score"]
    assert result.status == EvalStatus[recorded["status"]]
    assert [score for score, _ in result.per_invocation] == recorded["per_invocation"]


@pytest.mark.parametrize(
    ("case", "recorded"),
    list(zip(CORPUS["response_match"], RECORDED["response_match"], strict=True)),
    ids=[c["name"] for c in CORPUS["response_match"]],
)
def test_response_match_equals_google_adk(case: dict[str, Any], recorded: dict[str, Any]) -> None:
    metric = Metric("response_match_score", case["threshold"], "response")
    result = score_metric(
        metric,
        [_invocation([], actual) for actual, _ in case["pairs"]],
        [_invocation([], expected) for _, expected in case["pairs"]],
    )
    assert result.score == recorded["score"]
    assert result.status == EvalStatus[recorded["status"]]
    assert [[s, status.name] for s, status in result.per_invocation] == recorded["per_invocation"]


@pytest.mark.parametrize("name", sorted(RECORDED["formats"]))
def test_file_formats_read_as_google_adk_reads_them(name: str) -> None:
    eval_set, problems = load_eval_set_file(FIXTURES / "formats" / name)
    assert problems == []
    assert eval_set is not None
    cases = [
        {
            "eval_id": case.eval_id,
            "state": case.state if case.state or case.app_name else None,
            "invocations": [
                {
                    "query": invocation.user_text(),
                    "reference": invocation.response_text(),
                    "tool_uses": [[call.name, call.args] for call in invocation.tool_uses],
                }
                for invocation in case.conversation
            ],
        }
        for case in eval_set.cases
    ]
    assert cases == RECORDED["formats"][name]
