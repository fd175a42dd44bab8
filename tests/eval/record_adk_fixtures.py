"""Record google-adk's own scores for the corpus in ``fixtures/adk_corpus.json``.

Run with the interpreter of a venv holding google-adk 2.13.0 with its ``eval`` extra (never a
yadk dependency)::

    /opt/adkvenv/bin/python tests/eval/record_adk_fixtures.py

It writes ``fixtures/adk_scores.json``: google-adk's ROUGE-1 scores (``response_match_score``'s
own tokenizer and scorer), NLTK's Porter stems for the corpus words plus every word of
google-adk's own sources (a large real vocabulary), ``tool_trajectory_avg_score`` for every
match type and ``ignore_args``, multi-turn ``response_match_score`` results, and the eval sets
google-adk builds from the two older file formats in ``fixtures/formats/``. yadk's tests compare
their results with these values exactly.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import google.adk
from google.adk.evaluation import final_response_match_v1 as rouge_module
from google.adk.evaluation.agent_evaluator import AgentEvaluator
from google.adk.evaluation.eval_case import IntermediateData, Invocation, get_all_tool_calls
from google.adk.evaluation.eval_config import EvalConfig
from google.adk.evaluation.eval_metrics import EvalMetric, ToolTrajectoryCriterion
from google.adk.evaluation.final_response_match_v1 import RougeEvaluator
from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator
from google.genai import types
from nltk.stem.porter import PorterStemmer

HERE = Path(__file__).parent / "fixtures"


def _invocation(calls: list[Any] | None, text: Any) -> Invocation:
    if text is None:
        response = None
    else:
        texts = text if isinstance(text, list) else [text]
        response = types.Content(role="model", parts=[types.Part(text=t) for t in texts])
    tool_uses = [types.FunctionCall(name=name, args=args) for name, args in calls or []]
    return Invocation(
        user_content=types.Content(role="user", parts=[types.Part(text="q")]),
        final_response=response,
        intermediate_data=IntermediateData(tool_uses=tool_uses),
    )


def _vocabulary() -> list[str]:
    words: set[str] = set()
    for source in sorted(Path(google.adk.__file__).parent.rglob("*.py")):
        words.update(w.lower() for w in re.findall(r"[A-Za-z]+", source.read_text("utf-8")))
    return sorted(words)


def _trajectory(case: dict[str, Any]) -> dict[str, Any]:
    criterion = ToolTrajectoryCriterion(
        threshold=case.get("threshold", 1.0),
        match_type=case["match_type"],
        ignore_args=case.get("ignore_args", False),
    )
    evaluator = TrajectoryEvaluator(
        eval_metric=EvalMetric(metric_name="tool_trajectory_avg_score", criterion=criterion)
    )
    result = evaluator.evaluate_invocations(
        [_invocation(calls, "") for calls in case["actual"]],
        [_invocation(calls, "") for calls in case["expected"]],
    )
    return {
        "name": case["name"],
        "score": result.overall_score,
        "status": result.overall_eval_status.name,
        "per_invocation": [r.score for r in result.per_invocation_results],
    }


def _response_match(case: dict[str, Any]) -> dict[str, Any]:
    evaluator = RougeEvaluator(
        EvalMetric(metric_name="response_match_score", threshold=case["threshold"])
    )
    result = evaluator.evaluate_invocations(
        [_invocation([], actual) for actual, _ in case["pairs"]],
        [_invocation([], expected) for _, expected in case["pairs"]],
    )
    return {
        "name": case["name"],
        "score": result.overall_score,
        "status": result.overall_eval_status.name,
        "per_invocation": [[r.score, r.eval_status.name] for r in result.per_invocation_results],
    }


def _formats() -> dict[str, Any]:
    recorded: dict[str, Any] = {}
    config = EvalConfig(criteria={"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8})
    for path in sorted((HERE / "formats").glob("*.json")):
        if path.name.endswith(".test.json"):
            eval_set = AgentEvaluator._get_eval_set_from_old_format(str(path), config, {})
        else:
            from google.adk.evaluation.local_eval_sets_manager import load_eval_set_from_file

            eval_set = load_eval_set_from_file(str(path), path.stem)
        recorded[path.name] = [
            {
                "eval_id": Path(case.eval_id).name,
                "state": case.session_input.state if case.session_input else None,
                "invocations": [
                    {
                        "query": invocation.user_content.parts[0].text,
                        "reference": rouge_module._get_text_from_content(invocation.final_response),
                        "tool_uses": [
                            [call.name, call.args]
                            for call in get_all_tool_calls(invocation.intermediate_data)
                        ],
                    }
                    for invocation in case.conversation or []
                ],
            }
            for case in eval_set.eval_cases
        ]
    return recorded


def main() -> int:
    corpus = json.loads((HERE / "adk_corpus.json").read_text("utf-8"))
    stemmer = PorterStemmer()
    words = sorted(set(corpus["stem_words"]) | set(_vocabulary()))
    rouge = []
    for response, reference in corpus["rouge"]:
        score = rouge_module._calculate_rouge_1_scores(response, reference)
        tokenizer = rouge_module._UnicodeAwareTokenizer(use_stemmer=True)
        rouge.append(
            {
                "response": response,
                "reference": reference,
                "response_tokens": tokenizer.tokenize(response),
                "precision": score.precision,
                "recall": score.recall,
                "fmeasure": score.fmeasure,
            }
        )
    recorded = {
        "google_adk_version": google.adk.__version__,
        "rouge": rouge,
        "stems": {word: stemmer.stem(word) for word in words},
        "trajectory": [_trajectory(case) for case in corpus["trajectory"]],
        "response_match": [_response_match(case) for case in corpus["response_match"]],
        "formats": _formats(),
    }
    out = HERE / "adk_scores.json"
    out.write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n", "utf-8")
    print(f"wrote {out} ({len(recorded['stems'])} stems)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
