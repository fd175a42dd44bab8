"""The demo agents in configs/ ship eval sets (one per file format) that pass."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.eval._helpers import Cli

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


@pytest.mark.parametrize(
    ("agent", "eval_file", "cases"),
    [
        ("support_desk", "support_desk.evalset.json", 3),  # EvalSet JSON, test_config.json
        ("trip_planner", "trip_planner.test.json", 1),  # AgentEvaluator's flat test file
        ("research_desk", "research_desk.evalset.json", 2),  # the older list format, IN_ORDER
    ],
)
def test_demo_eval_sets_pass(cli: Cli, agent: str, eval_file: str, cases: int) -> None:
    code, out, err = cli("eval", str(CONFIGS / agent), str(CONFIGS / agent / eval_file))
    assert (code, err) == (0, ""), out
    assert out.endswith(f"{cases} case{'s' if cases > 1 else ''}: {cases} passed, 0 failed\n")


def test_support_desk_eval_with_its_criteria(cli: Cli) -> None:
    code, out, _ = cli("eval", str(CONFIGS / "support_desk"), str(CONFIGS / "support_desk"))
    assert code == 0
    assert out.splitlines()[0].endswith(
        "(criteria: " + str(CONFIGS / "support_desk" / "test_config.json") + ")"
    )
