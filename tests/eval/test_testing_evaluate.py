"""``yadk.testing.evaluate``: eval sets from pytest, failing with every case, metric and score."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.eval._helpers import BYE, WEATHER, eval_set, invocation

from yadk.errors import ConfigError
from yadk.testing import evaluate

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def test_passing_eval_set_returns_the_results(agent_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "ok.evalset.json"
    path.write_text(eval_set(("lisbon", [WEATHER]), ("bye", [BYE])))
    [result] = evaluate(agent_dir, path, num_runs=2)
    assert [(c.eval_id, c.run) for c in result.cases] == [
        ("lisbon", 1),
        ("lisbon", 2),
        ("bye", 1),
        ("bye", 2),
    ]
    assert result.passed


def test_failures_name_case_metric_score_and_threshold(agent_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "bad.evalset.json"
    wrong = invocation("weather?", "It rains in Porto.", [("get_weather", {"city": "Porto"})])
    path.write_text(eval_set(("lisbon", [WEATHER]), ("porto", [wrong])))
    with pytest.raises(AssertionError) as caught:
        evaluate(agent_dir, path)
    assert str(caught.value) == (
        "1 of 2 eval cases failed:\n"
        "  bad.evalset.json porto: tool_trajectory_avg_score: score 0 < threshold 1\n"
        "  bad.evalset.json porto: response_match_score: score 0.3636 < threshold 0.8"
    )


def test_malformed_eval_set_raises_config_error(agent_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "x.evalset.json"
    path.write_text('{"eval_set_id": "x", "eval_case": []}')
    with pytest.raises(ConfigError, match="Unknown key `eval_case`"):
        evaluate(agent_dir, path)


async def test_works_inside_an_async_test(agent_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "ok.evalset.json"
    path.write_text(eval_set(("lisbon", [WEATHER])))
    [result] = evaluate(agent_dir, f"{path}:lisbon")
    assert result.passed


def test_demo_agent_from_pytest() -> None:
    [result] = evaluate(CONFIGS / "support_desk", CONFIGS / "support_desk")
    assert [c.eval_id for c in result.cases] == [
        "order_status",
        "card_number_blocked",
        "refund_damaged",
    ]
