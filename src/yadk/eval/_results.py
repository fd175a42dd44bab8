"""Eval results: per case and per eval set, with google-adk's ``EvalSetResult`` JSON shape."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from yadk.eval._criteria import EvalConfig
from yadk.eval._metrics import EvalStatus, MetricResult
from yadk.eval._model import EvalSet, Invocation, RubricScore

__all__ = ["CaseResult", "EvalSetResult", "format_score"]


def format_score(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4g}"


@dataclasses.dataclass
class CaseResult:
    """One run of one eval case: its verdict, each metric's result, and what was compared."""

    eval_set_id: str
    eval_id: str
    run: int
    status: EvalStatus
    metrics: list[MetricResult]
    expected: list[Invocation]
    actual: list[Invocation]
    session_id: str
    user_id: str
    error: str | None = None

    @property
    def passed(self) -> bool:
        return self.status != EvalStatus.FAILED

    def failures(self) -> list[str]:
        """One line per reason the case failed: ``metric: score 0.42 < threshold 0.8``."""
        if self.error is not None:
            return [f"the run failed: {self.error}"]
        return [
            f"{m.metric.name}: score {format_score(m.score)} < threshold"
            f" {format_score(m.metric.threshold)}"
            for m in self.metrics
            if m.status == EvalStatus.FAILED
        ]

    def to_dict(self) -> dict[str, Any]:
        """google-adk's ``EvalCaseResult`` (snake_case; statuses as their numbers)."""
        per_invocation = []
        for index, actual in enumerate(self.actual):
            expected = self.expected[index] if index < len(self.expected) else None
            per_invocation.append(
                {
                    "actual_invocation": actual.to_dict(),
                    "expected_invocation": None if expected is None else expected.to_dict(),
                    "eval_metric_results": [
                        _metric_dict(m, *m.per_invocation[index], _rubrics_at(m, index))
                        for m in self.metrics
                        if index < len(m.per_invocation)
                    ],
                }
            )
        result: dict[str, Any] = {
            "eval_set_id": self.eval_set_id,
            "eval_id": self.eval_id,
            "final_eval_status": int(self.status),
            "overall_eval_metric_results": [
                _metric_dict(m, m.score, m.status, m.rubric_scores) for m in self.metrics
            ],
            "eval_metric_result_per_invocation": per_invocation,
            "session_id": self.session_id,
            "user_id": self.user_id,
        }
        if self.error is not None:
            result["error"] = self.error
        return result


def _rubrics_at(result: MetricResult, index: int) -> list[RubricScore] | None:
    rubrics = result.per_invocation_rubrics
    return rubrics[index] if rubrics is not None and index < len(rubrics) else None


def _metric_dict(
    result: MetricResult,
    score: float | None,
    status: EvalStatus,
    rubric_scores: list[RubricScore] | None = None,
) -> dict[str, Any]:
    details: dict[str, Any] = {}
    if rubric_scores is not None:
        details["rubric_scores"] = [r.to_dict() for r in rubric_scores]
    if result.note and status == EvalStatus.NOT_EVALUATED:
        details["not_evaluated_reason"] = result.note
    return {
        **result.metric.to_dict(),
        "score": score,
        "eval_status": int(status),
        "details": details,
    }


@dataclasses.dataclass
class EvalSetResult:
    """The results of one eval set's selected cases, in file order."""

    eval_set: EvalSet
    config: EvalConfig
    cases: list[CaseResult]
    created: float = dataclasses.field(default_factory=time.time)

    @property
    def passed(self) -> bool:
        return all(case.passed for case in self.cases)

    def to_dict(self) -> dict[str, Any]:
        """google-adk's ``EvalSetResult``."""
        eval_set_id = self.eval_set.eval_set_id
        stamp = f"{self.created:.0f}"
        return {
            "eval_set_result_id": f"{eval_set_id}_{stamp}",
            "eval_set_result_name": f"{eval_set_id}_{stamp}",
            "eval_set_id": eval_set_id,
            "eval_case_results": [case.to_dict() for case in self.cases],
            "creation_timestamp": self.created,
        }
