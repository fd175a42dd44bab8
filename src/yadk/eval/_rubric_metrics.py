"""The rubric-based judged metrics, scored as google-adk 2.13 scores them.

- ``rubric_based_final_response_quality_v1``: the judge checks each turn's final answer against
  the rubrics, trusting only the user's words and sound tool calls as evidence.
- ``rubric_based_tool_use_quality_v1``: the judge checks each turn's tool calls.
- ``rubric_based_multi_turn_trajectory_quality_v1``: the judge reads the whole conversation
  once, at the last turn; earlier turns are not evaluated, the last carries the case's score.

A turn's rubrics are the criterion's ``rubrics`` plus those of the eval case and of the expected
invocation whose ``type`` is the metric's (``FINAL_RESPONSE_QUALITY``, ``TOOL_USE_QUALITY``,
``TRAJECTORY_QUALITY``). Each turn is judged ``num_samples`` times (default 5); see
``yadk.eval._rubrics`` for how verdicts are read and combined.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from yadk.eval import _judge_prompts as prompts
from yadk.eval._criteria import RUBRIC_TYPES, Metric
from yadk.eval._judge_llm import ask_all, judge_options
from yadk.eval._judge_views import (
    answer_text,
    developer_instructions,
    dialogue,
    tool_declarations,
    tool_steps,
)
from yadk.eval._metrics import EvalStatus, MetricResult
from yadk.eval._model import EvalCase, Invocation, Rubric, RubricScore
from yadk.eval._rubrics import majority_vote, mean_score, score_answer, summarize
from yadk.models import BaseLlm

__all__ = ["RUBRIC_TYPES", "effective_rubrics", "score_rubric_metric"]

TOOL_USE_QUALITY = "rubric_based_tool_use_quality_v1"
MULTI_TURN_TRAJECTORY = "rubric_based_multi_turn_trajectory_quality_v1"


def effective_rubrics(metric: Metric, case: EvalCase, expected: Invocation) -> list[Rubric]:
    """The rubrics a turn is judged on; a ``ValueError`` names a conflict or their absence."""
    wanted = RUBRIC_TYPES[metric.name]
    found: dict[str, Rubric] = {}
    for scope, rubrics in (
        ("the criterion", list(metric.rubrics)),
        ("the eval case", [r for r in case.rubrics if r.type == wanted]),
        ("the invocation", [r for r in expected.rubrics if r.type == wanted]),
    ):
        for rubric in rubrics:
            if rubric.rubric_id in found:
                raise ValueError(f"rubric `{rubric.rubric_id}` of {scope} is defined twice")
            found[rubric.rubric_id] = rubric
    if not found:
        raise ValueError(f"no rubrics (none in the criterion, none of type {wanted})")
    return list(found.values())


def _rubric_list(rubrics: Sequence[Rubric]) -> str:
    return "\n".join(f"*  [id: {r.rubric_id}] {r.text}" for r in rubrics)


def _prompt(metric: Metric, actual: Invocation, rubrics: Sequence[Rubric]) -> str:
    if metric.name == TOOL_USE_QUALITY:
        return prompts.TOOL_USE_QUALITY.format(
            tool_declarations=tool_declarations(actual),
            user_input=actual.user_text(),
            tool_usage=tool_steps(actual),
            rubrics=_rubric_list(rubrics),
        )
    intermediate = bool((metric.criterion or {}).get("include_intermediate_responses_in_final"))
    return prompts.FINAL_RESPONSE_QUALITY.format(
        developer_instructions=developer_instructions(actual),
        tool_declarations=tool_declarations(actual),
        user_input=actual.user_text(),
        response_steps=tool_steps(actual),
        final_response=answer_text(actual, with_intermediate=intermediate),
        rubrics=_rubric_list(rubrics),
    )


def _trajectory_prompt(actual: Sequence[Invocation], rubrics: Sequence[Rubric]) -> str:
    history, instructions, tools = dialogue(actual)
    listed = [
        {"id": r.rubric_id, "property": r.text, **({"type": r.type} if r.type else {})}
        for r in rubrics
    ]
    return prompts.MULTI_TURN_TRAJECTORY.format(
        user_agent_dialogue=history,
        properties=json.dumps(listed, indent=2),
        agent_instructions=instructions,
        agent_tool_definitions=tools,
    )


def _status(score: float | None, threshold: float) -> EvalStatus:
    if score is None:
        return EvalStatus.NOT_EVALUATED
    return EvalStatus.PASSED if score >= threshold else EvalStatus.FAILED


async def score_rubric_metric(
    metric: Metric,
    judge: BaseLlm,
    case: EvalCase,
    actual: Sequence[Invocation],
) -> MetricResult:
    """One rubric-based metric over a case's turns (see the module docstring)."""
    threshold = metric.threshold if metric.threshold is not None else 0.0
    expected = case.conversation
    multi_turn = metric.name == MULTI_TURN_TRAJECTORY
    judged = [len(actual) - 1] if multi_turn and actual else list(range(len(actual)))
    try:
        rubrics = {i: effective_rubrics(metric, case, expected[i]) for i in judged}
    except ValueError as exc:
        return _not_evaluated(metric, len(actual), str(exc))
    options = judge_options(metric)
    requests: list[tuple[int, str]] = []
    for index in judged:
        if multi_turn:
            prompt = _trajectory_prompt(actual, rubrics[index])
        else:
            prompt = _prompt(metric, actual[index], rubrics[index])
        requests += [(index, prompt)] * options.num_samples
    answers = await ask_all(judge, [p for _, p in requests], parallelism=options.parallelism)
    samples: dict[int, list[list[RubricScore]]] = {i: [] for i in judged}
    failed: set[int] = set()
    for (index, _), answer in zip(requests, answers, strict=True):
        if isinstance(answer, Exception):
            failed.add(index)
        else:
            samples[index].append(score_answer(answer, rubrics[index]))
    per_invocation: list[tuple[float | None, EvalStatus]] = []
    per_rubrics: list[list[RubricScore] | None] = []
    for index in range(len(actual)):
        if index not in samples or index in failed:
            per_invocation.append((None, EvalStatus.NOT_EVALUATED))
            per_rubrics.append(None)
            continue
        voted = majority_vote(samples[index])
        score = mean_score(voted)
        per_invocation.append((score, _status(score, threshold)))
        per_rubrics.append(voted)
    overall, overall_rubrics = summarize(per_rubrics)
    note = ""
    if overall is None:
        note = "the judge's answers held no readable verdict" if not failed else "the judge failed"
    return MetricResult(
        metric,
        overall,
        _status(overall, threshold),
        per_invocation,
        note=note,
        rubric_scores=overall_rubrics,
        per_invocation_rubrics=per_rubrics,
    )


def _not_evaluated(metric: Metric, turns: int, why: str) -> MetricResult:
    return MetricResult(
        metric, None, EvalStatus.NOT_EVALUATED, [(None, EvalStatus.NOT_EVALUATED)] * turns, note=why
    )
