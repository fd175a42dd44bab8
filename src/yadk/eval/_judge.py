"""``final_response_match_v2``: a judge model decides whether each final response is valid.

As google-adk scores it: for every invocation the judge is asked ``num_samples`` times (criterion
``judge_model_options.num_samples``, default 5) whether the agent's response is a valid answer
given the user's query and the reference; the samples are a majority vote (a tie, or no valid
majority, is invalid; no readable verdict at all is not evaluated); the case's score is the
fraction of evaluated invocations judged valid, passing at ``>= threshold``. The prompt is
yadk's own wording of the same rubric, and the verdict is read from the
``"is_the_agent_response_valid"`` field of the judge's JSON answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from yadk.eval._criteria import Metric
from yadk.eval._judge_llm import ask_all, judge_options
from yadk.eval._metrics import EvalStatus, MetricResult
from yadk.eval._model import Invocation
from yadk.models import BaseLlm

__all__ = ["FINAL_RESPONSE_MATCH_V2", "judge_prompt", "parse_verdict", "score_with_judge"]

FINAL_RESPONSE_MATCH_V2 = "final_response_match_v2"

_PROMPT = """\
You grade the answers of an AI agent. Decide whether the agent's response to the user's query is
a valid answer, using the reference response (written by a human expert) as the ground truth.

Rules:
- The response is valid when it contains the key facts and entities of the reference answer;
  it may say more than the reference, or say it in another order, format or length.
- Accept equivalent formats (abbreviations and full names, lists and sentences, 1000000 and
  1,000,000) unless the user asked for a specific one.
- Units matter: 100 miles is not 100 km. Trust the reference for calculations and data.
- A response that refuses, or claims it cannot answer while the reference does answer, is
  invalid.

User query:
{query}

Agent response:
{response}

Reference response:
{reference}

Answer with one JSON object and nothing else:
{{"reasoning": "<one or two sentences>", "is_the_agent_response_valid": "valid" or "invalid"}}
"""

_VERDICT = re.compile(
    r'"is_the_agent_response_(valid|invalid)"\s*:\s*\[?\s*"?([A-Za-z_ ]+?)"?\s*[\],}\n]'
)
_YES = {"valid", "true", "yes"}
_NO = {"invalid", "false", "no", "almost", "partially_valid", "partially valid", "partially"}


def judge_prompt(actual: Invocation, expected: Invocation) -> str:
    return _PROMPT.format(
        query=expected.user_text(),
        response=actual.response_text(),
        reference=expected.response_text(),
    )


def parse_verdict(text: str) -> float | None:
    """1.0 for valid, 0.0 for invalid, ``None`` when the answer holds no verdict."""
    match = _VERDICT.search(text)
    if match is None:
        return None
    field, label = match.group(1), match.group(2).strip().lower()
    if field == "invalid":  # the judge named the field the other way round
        return 0.0 if label in _YES else 1.0 if label in _NO else None
    return 1.0 if label in _YES else 0.0 if label in _NO else None


async def score_with_judge(
    metric: Metric,
    judge: BaseLlm,
    actual: Sequence[Invocation],
    expected: Sequence[Invocation],
) -> MetricResult:
    """``final_response_match_v2`` over a case (see the module docstring); an invocation with a
    failed judge call is not evaluated, as in google-adk."""
    options = judge_options(metric)
    threshold = metric.threshold if metric.threshold is not None else 0.0
    prompts = [judge_prompt(got, want) for got, want in zip(actual, expected, strict=True)]
    answers = await ask_all(
        judge,
        [prompt for prompt in prompts for _ in range(options.num_samples)],
        parallelism=options.parallelism,
    )
    per_invocation: list[tuple[float | None, EvalStatus]] = []
    failed = False
    for index in range(len(prompts)):
        samples = answers[index * options.num_samples : (index + 1) * options.num_samples]
        if any(isinstance(answer, Exception) for answer in samples):
            failed = True
            per_invocation.append((None, EvalStatus.NOT_EVALUATED))
            continue
        votes = [parse_verdict(answer) for answer in samples if isinstance(answer, str)]
        valid, invalid = votes.count(1.0), votes.count(0.0)
        if not valid and not invalid:
            per_invocation.append((None, EvalStatus.NOT_EVALUATED))
            continue
        score = 1.0 if valid > invalid else 0.0
        per_invocation.append(
            (score, EvalStatus.PASSED if score >= threshold else EvalStatus.FAILED)
        )
    evaluated = [score for score, _ in per_invocation if score is not None]
    if not evaluated:
        note = "the judge failed" if failed else "no verdict from the judge"
        return MetricResult(metric, None, EvalStatus.NOT_EVALUATED, per_invocation, note=note)
    overall = sum(evaluated) / len(evaluated)
    status = EvalStatus.PASSED if overall >= threshold else EvalStatus.FAILED
    return MetricResult(metric, overall, status, per_invocation)
