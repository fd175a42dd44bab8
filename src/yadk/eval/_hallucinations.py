"""``hallucinations_v1``: the share of an answer's sentences its context supports.

As google-adk 2.13 scores it: for each text to check in a turn (the final response; with
``evaluate_intermediate_nl_responses``, every earlier text as well), the judge first splits it
into ``<sentence>`` tags, then labels every sentence against the context the agent had (its
instructions, the user's words, its tool declarations, the tool calls and outputs before that
text). ``supported`` and ``not_applicable`` count 1, ``unsupported``, ``contradictory`` and
``disputed`` 0, other labels not at all. A text scores the mean of its sentences, a turn the mean
of its texts, the case the mean of its turns (each mean over what could be scored). One judge
call per step, no sampling.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence

from yadk.eval import _judge_prompts as prompts
from yadk.eval._criteria import Metric
from yadk.eval._judge_llm import ask
from yadk.eval._judge_views import hallucination_steps
from yadk.eval._metrics import EvalStatus, MetricResult
from yadk.eval._model import Invocation
from yadk.models import BaseLlm

__all__ = ["parse_labels", "parse_sentences", "score_hallucinations", "sentence_score"]

_SENTENCE = re.compile(r"<sentence>(.*?)</sentence>", re.DOTALL)
_BLOCK = re.compile(
    r"sentence:(.*?)\nlabel:(.*?)\nrationale:(.*?)\nsupporting_excerpt:(.*?)"
    r"\ncontradicting_excerpt:(.*?)(?=\nsentence:|\Z)",
    re.DOTALL | re.IGNORECASE,
)
_GOOD = frozenset({"supported", "not_applicable"})
_BAD = frozenset({"unsupported", "contradictory", "disputed"})


def parse_sentences(answer: str) -> list[str]:
    """The sentences the segmenter tagged."""
    return _SENTENCE.findall(answer)


def parse_labels(answer: str) -> list[str]:
    """The label of each sentence block of the validator's answer, lower-cased."""
    return [match.group(2).strip().lower() for match in _BLOCK.finditer(answer.strip())]


def sentence_score(labels: Sequence[str]) -> float | None:
    """The share of good labels among the known ones (``None`` when none is known)."""
    values = [1 if label in _GOOD else 0 for label in labels if label in _GOOD | _BAD]
    return float(statistics.mean(values)) if values else None


async def _score_text(judge: BaseLlm, text: str, context: str) -> float | None:
    try:
        segmented = await ask(judge, prompts.SEGMENTER.format(response=text))
        sentences = parse_sentences(segmented) if segmented else []
        if not sentences:
            return None
        tagged = "\n".join(f"<sentence>{s}</sentence>" for s in sentences)
        labelled = await ask(
            judge, prompts.SENTENCE_VALIDATOR.format(context=context, sentences=tagged)
        )
    except Exception:  # a failed judge call leaves this text unscored, as in google-adk
        return None
    return sentence_score(parse_labels(labelled)) if labelled else None


def _status(score: float | None, threshold: float) -> EvalStatus:
    if score is None:
        return EvalStatus.NOT_EVALUATED
    return EvalStatus.PASSED if score >= threshold else EvalStatus.FAILED


async def score_hallucinations(
    metric: Metric, judge: BaseLlm, actual: Sequence[Invocation]
) -> MetricResult:
    """``hallucinations_v1`` over a case's turns (see the module docstring)."""
    threshold = metric.threshold if metric.threshold is not None else 0.0
    intermediate = bool((metric.criterion or {}).get("evaluate_intermediate_nl_responses"))
    per_invocation: list[tuple[float | None, EvalStatus]] = []
    for invocation in actual:
        scores = []
        for step in hallucination_steps(invocation, intermediate=intermediate):
            score = await _score_text(judge, step.text, step.context)
            if score is not None:
                scores.append(score)
        turn = float(statistics.mean(scores)) if scores else None
        per_invocation.append((turn, _status(turn, threshold)))
    known = [score for score, _ in per_invocation if score is not None]
    overall = float(statistics.mean(known)) if known else None
    note = "" if overall is not None else "the judge's answers held no readable label"
    return MetricResult(metric, overall, _status(overall, threshold), per_invocation, note=note)
