"""Scoring a case: each metric per invocation, then its mean against the threshold.

google-adk's rules, to the bit: ``tool_trajectory_avg_score`` is 1 or 0 per invocation
(``EXACT``, ``IN_ORDER`` or ``ANY_ORDER``, arguments compared with Python ``==`` unless
``ignore_args``); ``response_match_score`` is ROUGE-1 F1 of the final response texts. A metric
passes when its mean ``>= threshold``; a case passes when no metric failed (and at least one
passed). Informational counts never pass or fail; judge metrics are NOT_EVALUATED here (with
the reason), and scored by ``yadk.eval._judged`` when there is a judge model.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence

from yadk.eval._criteria import INFERENCE_CALL_COUNT, TOOL_CALL_COUNT, Metric
from yadk.eval._model import Invocation, RubricScore, ToolCall
from yadk.eval._rouge import rouge_1

__all__ = ["EvalStatus", "MetricResult", "case_status", "score_metric", "trajectory_matches"]


class EvalStatus(enum.IntEnum):
    """google-adk's ``EvalStatus`` (its JSON writes the numbers)."""

    PASSED = 1
    FAILED = 2
    NOT_EVALUATED = 3
    INFORMATIONAL = 4


@dataclasses.dataclass
class MetricResult:
    """One metric over one case: overall score and status, and each invocation's."""

    metric: Metric
    score: float | None
    status: EvalStatus
    per_invocation: list[tuple[float | None, EvalStatus]]
    note: str = ""
    # Rubric-based metrics: each rubric's mean over the case, and each invocation's verdicts.
    rubric_scores: list[RubricScore] | None = None
    per_invocation_rubrics: list[list[RubricScore] | None] | None = None


def _calls_equal(actual: ToolCall, expected: ToolCall, ignore_args: bool) -> bool:
    return actual.name == expected.name and (ignore_args or actual.args == expected.args)


def trajectory_matches(
    actual: Sequence[ToolCall], expected: Sequence[ToolCall], match_type: str, ignore_args: bool
) -> bool:
    """Whether ``actual`` tool calls satisfy ``expected`` under ``match_type``."""
    if match_type == "EXACT":
        return len(actual) == len(expected) and all(
            _calls_equal(a, e, ignore_args) for a, e in zip(actual, expected, strict=True)
        )
    if not expected:
        return True
    if not actual:
        return False
    if match_type == "IN_ORDER":
        position = 0
        for call in actual:
            if _calls_equal(call, expected[position], ignore_args):
                position += 1
                if position == len(expected):
                    return True
        return False
    remaining = list(actual)
    for wanted in expected:
        for index, call in enumerate(remaining):
            if _calls_equal(call, wanted, ignore_args):
                del remaining[index]
                break
        else:
            return False
    return True


def _verdict(score: float, threshold: float) -> EvalStatus:
    return EvalStatus.PASSED if score >= threshold else EvalStatus.FAILED


def score_metric(
    metric: Metric, actual: Sequence[Invocation], expected: Sequence[Invocation]
) -> MetricResult:
    """``metric`` over a case whose ``actual`` invocations pair with ``expected`` ones."""
    if metric.kind == "informational":
        return _informational(metric, actual)
    if metric.kind == "judge":
        return MetricResult(
            metric,
            None,
            EvalStatus.NOT_EVALUATED,
            [(None, EvalStatus.NOT_EVALUATED)] * len(actual),
            note=_judge_note(metric.name),
        )
    threshold = metric.threshold if metric.threshold is not None else 0.0
    scores: list[float] = []
    for got, want in zip(actual, expected, strict=True):
        if metric.kind == "trajectory":
            match = trajectory_matches(
                got.tool_uses, want.tool_uses, metric.match_type, metric.ignore_args
            )
            scores.append(1.0 if match else 0.0)
        else:
            scores.append(rouge_1(got.response_text(), want.response_text()).fmeasure)
    if not scores:
        return MetricResult(metric, None, EvalStatus.NOT_EVALUATED, [])
    # google-adk sums in order and divides once; the same order gives the same float.
    total = 0.0
    for score in scores:
        total += score
    overall = total / len(scores)
    return MetricResult(
        metric,
        overall,
        _verdict(overall, threshold),
        [(score, _verdict(score, threshold)) for score in scores],
    )


# The judged metrics yadk scores itself with --judge-model, and why the others never run.
JUDGED = frozenset(
    {
        "final_response_match_v2",
        "rubric_based_final_response_quality_v1",
        "rubric_based_tool_use_quality_v1",
        "rubric_based_multi_turn_trajectory_quality_v1",
        "hallucinations_v1",
    }
)
_HOSTED = (
    "scored by Vertex AI's hosted Gen AI evaluation service (google-adk sends the conversation "
    "to Google Cloud), which yadk eval does not call: not available offline"
)
NOT_RUN = {
    "safety_v1": _HOSTED,
    "response_evaluation_score": _HOSTED,
    "multi_turn_task_success_v1": _HOSTED,
    "multi_turn_trajectory_quality_v1": _HOSTED,
    "multi_turn_tool_use_quality_v1": _HOSTED,
    "per_turn_user_simulator_quality_v1": (
        "grades google-adk's simulated user, which needs a `conversation_scenario`; yadk eval "
        "replays written conversations only"
    ),
}


def _judge_note(name: str) -> str:
    return NOT_RUN.get(name, "needs a judge model: pass --judge-model NAME")


def _informational(metric: Metric, actual: Sequence[Invocation]) -> MetricResult:
    values: list[float | None] = []
    for invocation in actual:
        if metric.name == TOOL_CALL_COUNT:
            values.append(float(len(invocation.tool_uses)))
        elif metric.name == INFERENCE_CALL_COUNT and invocation.model_calls is not None:
            values.append(float(invocation.model_calls))
        else:
            values.append(None)
    known = [v for v in values if v is not None]
    overall = sum(known) / len(known) if known else None
    return MetricResult(
        metric,
        overall,
        EvalStatus.INFORMATIONAL,
        [(value, EvalStatus.INFORMATIONAL) for value in values],
    )


def case_status(results: Sequence[MetricResult]) -> EvalStatus:
    """google-adk's rule: FAILED if any metric failed, else PASSED if any passed, else
    NOT_EVALUATED."""
    status = EvalStatus.NOT_EVALUATED
    for result in results:
        if result.status == EvalStatus.FAILED:
            return EvalStatus.FAILED
        if result.status == EvalStatus.PASSED:
            status = EvalStatus.PASSED
    return status
