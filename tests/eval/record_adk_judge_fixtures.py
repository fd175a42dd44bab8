"""Record google-adk's scores for judged metrics, given fixed judge answers.

Run with the interpreter of a venv holding google-adk 2.13.0 with its ``eval`` extra (never a
yadk dependency)::

    /opt/adkvenv/bin/python tests/eval/record_adk_judge_fixtures.py

Each scenario in ``fixtures/judge_scenarios.json`` names a metric, its criterion, an eval case
(google-adk's EvalCase JSON, whose conversation is also used as the actual invocations) and the
answers a judge gives, in the order google-adk asks (with ``parallelism_limit`` 1). A fake judge
model registered in google-adk's model registry plays those answers to google-adk's own
evaluator classes, and this script writes what they scored to ``fixtures/adk_judge_scores.json``:
overall and per-invocation scores and statuses, and the rubric scores. yadk's tests feed the
same answers to yadk and compare.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

from google.adk.evaluation.eval_case import EvalCase
from google.adk.evaluation.eval_metrics import EvalMetric
from google.adk.evaluation.local_eval_service import (
    _copy_eval_case_rubrics_to_actual_invocations,
    _copy_invocation_rubrics_to_actual_invocations,
)
from google.adk.evaluation.metric_evaluator_registry import DEFAULT_METRIC_EVALUATOR_REGISTRY
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.models.registry import LLMRegistry
from google.genai import types

HERE = Path(__file__).parent / "fixtures"
ANSWERS: deque[str] = deque()
ASKED: list[int] = []


class FakeJudge(BaseLlm):
    """Answers every request with the next scripted answer."""

    @classmethod
    def supported_models(cls) -> list[str]:
        return [r"fake-judge"]

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        ASKED.append(1)
        answer = ANSWERS.popleft()
        if answer == "<error>":
            raise RuntimeError("the judge failed")
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=answer)]))


def _rubric_scores(scores: Any) -> list[dict[str, Any]] | None:
    if scores is None:
        return None
    return [{"rubric_id": s.rubric_id, "score": s.score} for s in scores]


async def _record(scenario: dict[str, Any]) -> dict[str, Any]:
    ANSWERS.clear()
    ANSWERS.extend(scenario["answers"])
    ASKED.clear()
    criterion = dict(scenario["criterion"])
    options = dict(criterion.get("judge_model_options", {}))
    options["judge_model"] = "fake-judge"
    criterion["judge_model_options"] = options
    metric = EvalMetric(
        metric_name=scenario["metric"], threshold=criterion["threshold"], criterion=criterion
    )
    case = EvalCase.model_validate({"eval_id": scenario["name"], **scenario["case"]})
    expected = case.conversation or []
    actual = [invocation.model_copy(deep=True) for invocation in expected]
    for invocation in actual:
        invocation.rubrics = None
    _copy_eval_case_rubrics_to_actual_invocations(case, actual)
    _copy_invocation_rubrics_to_actual_invocations(expected, actual)
    evaluator = DEFAULT_METRIC_EVALUATOR_REGISTRY.get_evaluator(metric)
    result = await evaluator.evaluate_invocations(actual, expected, None)
    return {
        "name": scenario["name"],
        "judge_calls": len(ASKED),
        "answers_left": len(ANSWERS),
        "overall_score": result.overall_score,
        "overall_eval_status": result.overall_eval_status.value,
        "overall_rubric_scores": _rubric_scores(result.overall_rubric_scores),
        "per_invocation": [
            {
                "score": r.score,
                "eval_status": r.eval_status.value,
                "rubric_scores": _rubric_scores(r.rubric_scores),
            }
            for r in result.per_invocation_results
        ],
    }


def main() -> None:
    LLMRegistry.register(FakeJudge)
    scenarios = json.loads((HERE / "judge_scenarios.json").read_text())
    recorded = [asyncio.run(_record(s)) for s in scenarios]
    out = HERE / "adk_judge_scores.json"
    out.write_text(json.dumps(recorded, indent=2) + "\n")
    print(f"wrote {len(recorded)} scenarios to {out}")


if __name__ == "__main__":
    main()
