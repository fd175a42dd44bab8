"""Judged metrics score exactly as google-adk 2.13 does, given the same judge answers.

``fixtures/judge_scenarios.json`` holds each scenario's criterion, eval case and scripted judge
answers; ``fixtures/adk_judge_scores.json`` what google-adk's own evaluators scored with them
(recorded by ``record_adk_judge_fixtures.py``). Here yadk reads the same case and criterion
through its own loaders and is judged by a model that plays the same answers.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from yadk.eval._criteria import load_eval_config
from yadk.eval._evalset import load_eval_set_file
from yadk.eval._judged import score_judged
from yadk.models import BaseLlm, LlmRequest, LlmResponse
from yadk.types import Content, Part

FIXTURES = Path(__file__).parent / "fixtures"
SCENARIOS = json.loads((FIXTURES / "judge_scenarios.json").read_text(encoding="utf-8"))
RECORDED = {
    r["name"]: r
    for r in json.loads((FIXTURES / "adk_judge_scores.json").read_text(encoding="utf-8"))
}


class PlayedJudge(BaseLlm):
    """Answers each request with the next scripted answer; ``<error>`` fails the call."""

    def __init__(self, answers: list[str]) -> None:
        self.model = "played-judge"
        self.answers = list(answers)
        self.prompts: list[str] = []

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        self.prompts.append(llm_request.contents[0].parts[0].text or "")
        answer = self.answers.pop(0)
        if answer == "<error>":
            raise RuntimeError("the judge failed")
        yield LlmResponse(content=Content(role="model", parts=[Part(text=answer)]))


def _rubrics(scores: Any) -> list[dict[str, Any]] | None:
    if scores is None:
        return None
    return [{"rubric_id": s.rubric_id, "score": s.score} for s in scores]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["name"] for s in SCENARIOS])
async def test_same_answers_same_scores_as_google_adk(
    scenario: dict[str, Any], tmp_path: Path
) -> None:
    evalset = tmp_path / "case.evalset.json"
    case = {"eval_id": scenario["name"], **scenario["case"]}
    evalset.write_text(json.dumps({"eval_set_id": "s", "eval_cases": [case]}))
    config_path = tmp_path / "test_config.json"
    config_path.write_text(json.dumps({"criteria": {scenario["metric"]: scenario["criterion"]}}))
    eval_set, problems = load_eval_set_file(evalset)
    config, found = load_eval_config(config_path)
    assert eval_set is not None and config is not None, [*problems, *found]
    [loaded] = eval_set.cases
    judge = PlayedJudge(scenario["answers"])

    result = await score_judged(config.metrics[0], judge, loaded, loaded.conversation)

    adk = RECORDED[scenario["name"]]
    assert len(judge.prompts) == adk["judge_calls"]
    assert judge.answers == []
    assert result.score == adk["overall_score"]
    assert int(result.status) == adk["overall_eval_status"]
    assert [(s, int(st)) for s, st in result.per_invocation] == [
        (p["score"], p["eval_status"]) for p in adk["per_invocation"]
    ]
    if scenario["metric"] != "hallucinations_v1":
        assert _rubrics(result.rubric_scores) == adk["overall_rubric_scores"]
        assert [_rubrics(r) for r in result.per_invocation_rubrics or []] == [
            p["rubric_scores"] for p in adk["per_invocation"]
        ]
