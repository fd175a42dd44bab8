"""The eval examples in README.md and docs/eval.md are real output."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.eval._helpers import Cli

REPO = Path(__file__).resolve().parents[2]
COMMAND = "yadk eval configs/support_desk configs/support_desk"


@pytest.mark.parametrize("doc", ["README.md", "docs/eval.md"])
def test_documented_demo_output_is_what_yadk_eval_prints(
    cli: Cli, doc: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    text = (REPO / doc).read_text(encoding="utf-8")
    block = re.search(r"```text\n\$ " + re.escape(COMMAND) + r"\n(.*?)```", text, re.DOTALL)
    assert block is not None
    code, out, err = cli(*COMMAND.split()[1:])
    assert (code, err) == (0, "")
    assert out == block.group(1)


def test_eval_reference_is_linked_from_the_readme() -> None:
    assert "[docs/eval.md](docs/eval.md)" in (REPO / "README.md").read_text(encoding="utf-8")


def test_documented_judged_criteria_load_without_a_problem(tmp_path: Path) -> None:
    from yadk.eval import load_eval_config

    text = (REPO / "docs/eval.md").read_text(encoding="utf-8")
    section = text.split("## Judged metrics", 1)[1]
    block = re.search(r"```json\n(.*?)```", section, re.DOTALL)
    assert block is not None
    (tmp_path / "test_config.json").write_text(block.group(1))
    config, problems = load_eval_config(tmp_path / "test_config.json")
    assert problems == []
    assert config is not None
    assert [m.name for m in config.metrics][:4] == [
        "rubric_based_final_response_quality_v1",
        "rubric_based_tool_use_quality_v1",
        "hallucinations_v1",
        "safety_v1",
    ]


def test_documented_not_evaluated_reason_is_the_one_printed() -> None:
    from yadk.eval._metrics import NOT_RUN

    text = (REPO / "docs/eval.md").read_text(encoding="utf-8")
    assert f"not evaluated: safety_v1 ({NOT_RUN['safety_v1']})\n" in text
