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
