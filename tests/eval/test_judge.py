"""``final_response_match_v2`` with ``--judge-model``: majority vote of a judge's verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.eval._helpers import BYE, WEATHER, Cli, eval_set

from yadk.eval._judge import parse_verdict


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        ('{"reasoning": "same facts", "is_the_agent_response_valid": "valid"}', 1.0),
        ('{"reasoning": "x", "is_the_agent_response_valid": "invalid"}', 0.0),
        (
            '```json\n{\n  "reasoning": "x",\n  "is_the_agent_response_valid": ["valid"]\n}\n```',
            1.0,
        ),
        ('{"is_the_agent_response_valid": true}', 1.0),
        ('{"is_the_agent_response_valid": "almost"}', 0.0),
        ('{"is_the_agent_response_invalid": "true"}', 0.0),
        ('{"is_the_agent_response_valid": "maybe"}', None),
        ("I think it is fine.", None),
    ],
)
def test_parse_verdict(answer: str, verdict: float | None) -> None:
    assert parse_verdict(answer) == verdict


def _verdicts(*labels: str) -> str:
    turns = [
        {"text": json.dumps({"reasoning": "r", "is_the_agent_response_valid": label})}
        for label in labels
    ]
    return json.dumps({"turns": turns})


@pytest.fixture
def judged(tmp_path: Path) -> Path:
    path = tmp_path / "judged.evalset.json"
    path.write_text(eval_set(("lisbon", [WEATHER]), ("bye", [BYE])))
    (tmp_path / "test_config.json").write_text(
        json.dumps(
            {
                "criteria": {
                    "final_response_match_v2": {
                        "threshold": 1.0,
                        "judge_model_options": {"num_samples": 3},
                    }
                }
            }
        )
    )
    return path


def test_without_a_judge_the_metric_is_not_evaluated_and_said_so(
    cli: Cli, agent_dir: Path, judged: Path
) -> None:
    code, out, _ = cli("eval", str(agent_dir), str(judged))
    assert code == 0
    assert "N/A   lisbon  final_response_match_v2 not evaluated" in out
    assert out.endswith(
        "not evaluated: final_response_match_v2 (needs a judge model: pass --judge-model NAME)\n"
        "2 cases: 0 passed, 0 failed, 2 not evaluated\n"
    )


def test_majority_vote_per_invocation(
    cli: Cli, agent_dir: Path, judged: Path, tmp_path: Path
) -> None:
    judge = tmp_path / "judge.json"
    # lisbon: valid, invalid, valid -> valid; bye: invalid, invalid, valid -> invalid
    judge.write_text(_verdicts("valid", "invalid", "valid", "invalid", "invalid", "valid"))
    code, out, _ = cli("eval", str(agent_dir), str(judged), "--judge-model", f"scripted:{judge}")
    assert code == 1
    assert "PASS  lisbon  final_response_match_v2 1 >= 1" in out
    assert "FAIL  bye     final_response_match_v2 0 < 1" in out


def test_a_tie_is_invalid_and_no_verdict_is_not_evaluated(
    cli: Cli, agent_dir: Path, tmp_path: Path
) -> None:
    path = tmp_path / "one.evalset.json"
    path.write_text(eval_set(("lisbon", [WEATHER]), ("bye", [BYE])))
    (tmp_path / "test_config.json").write_text(
        json.dumps(
            {
                "criteria": {
                    "final_response_match_v2": {
                        "threshold": 0.5,
                        "judge_model_options": {"num_samples": 2},
                    }
                }
            }
        )
    )
    judge = tmp_path / "judge.json"
    judge.write_text(_verdicts("valid", "invalid", "unsure", "unsure"))
    code, out, _ = cli(
        "eval", str(agent_dir), str(path), "--judge-model", f"scripted:{judge}", "--format", "json"
    )
    assert code == 1
    [result] = json.loads(out)
    scores = [
        (c["eval_id"], c["overall_eval_metric_results"][0]["score"], c["final_eval_status"])
        for c in result["eval_case_results"]
    ]
    assert scores == [("lisbon", 0.0, 2), ("bye", None, 3)]


def test_unknown_judge_model_is_a_usage_error(cli: Cli, agent_dir: Path, judged: Path) -> None:
    code, out, err = cli("eval", str(agent_dir), str(judged), "--judge-model", "nosuch:model")
    assert (code, out) == (2, "")
    assert "--judge-model nosuch:model" in err
