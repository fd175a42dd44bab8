"""Scoring a judged metric with a judge model (imported only when ``--judge-model`` is given,
so ``yadk eval`` without a judge never loads the prompts and parsers)."""

from __future__ import annotations

from collections.abc import Sequence

from yadk.eval._criteria import Metric
from yadk.eval._hallucinations import score_hallucinations
from yadk.eval._judge import FINAL_RESPONSE_MATCH_V2, score_with_judge
from yadk.eval._metrics import JUDGED, MetricResult, score_metric
from yadk.eval._model import EvalCase, Invocation
from yadk.eval._rubric_metrics import RUBRIC_TYPES, score_rubric_metric
from yadk.models import BaseLlm

__all__ = ["score_judged"]


async def score_judged(
    metric: Metric, judge: BaseLlm, case: EvalCase, actual: Sequence[Invocation]
) -> MetricResult:
    """``metric`` over one run of ``case``, graded by ``judge`` when yadk scores it that way;
    metrics that need Vertex AI or a simulated user stay NOT_EVALUATED, with the reason."""
    if metric.name not in JUDGED:
        return score_metric(metric, actual, case.conversation)
    if metric.name == FINAL_RESPONSE_MATCH_V2:
        return await score_with_judge(metric, judge, actual, case.conversation)
    if metric.name in RUBRIC_TYPES:
        return await score_rubric_metric(metric, judge, case, actual)
    return await score_hallucinations(metric, judge, actual)
