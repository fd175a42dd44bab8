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
from yadk.eval._metrics import EvalStatus, MetricResult
from yadk.eval._model import Invocation
from yadk.models import BaseLlm, LlmRequest
from yadk.types import Content, Part

__all__ = ["FINAL_RESPONSE_MATCH_V2", "judge_prompt", "parse_verdict", "score_with_judge"]

FINAL_RESPONSE_MATCH_V2 = "final_response_match_v2"
DEFAULT_SAMPLES = 5

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


async def _sample(judge: BaseLlm, prompt: str) -> float | None:
    request = LlmRequest(
        model=judge.model,
        agent_name="judge",
        contents=[Content(role="user", parts=[Part(text=prompt)])],
    )
    text = ""
    async for response in judge.generate_content_async(request):
        if response.partial or response.content is None:
            continue
        text = "".join(p.text or "" for p in response.content.parts if not p.thought)
    return parse_verdict(text)


async def score_with_judge(
    metric: Metric,
    judge: BaseLlm,
    actual: Sequence[Invocation],
    expected: Sequence[Invocation],
) -> MetricResult:
    """``final_response_match_v2`` over a case (see the module docstring)."""
    options = (metric.criterion or {}).get("judge_model_options") or {}
    samples = options.get("num_samples", options.get("numSamples", DEFAULT_SAMPLES))
    samples = samples if isinstance(samples, int) and samples >= 1 else DEFAULT_SAMPLES
    threshold = metric.threshold if metric.threshold is not None else 0.0
    per_invocation: list[tuple[float | None, EvalStatus]] = []
    for got, want in zip(actual, expected, strict=True):
        prompt = judge_prompt(got, want)
        votes = [await _sample(judge, prompt) for _ in range(samples)]
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
        return MetricResult(
            metric, None, EvalStatus.NOT_EVALUATED, per_invocation, note="no verdict from the judge"
        )
    overall = sum(evaluated) / len(evaluated)
    status = EvalStatus.PASSED if overall >= threshold else EvalStatus.FAILED
    return MetricResult(metric, overall, status, per_invocation)
