"""The tracing examples of docs/tracing.md and the README run as written and print what the
page says they print (each in its own interpreter: they set the global tracer provider)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess

ROOT = Path(__file__).resolve().parents[2]


def _section(path: Path, heading: str) -> str:
    text = path.read_text(encoding="utf-8")
    return text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def _example(section: str) -> tuple[str, str]:
    """The section's Python block and the text block that follows it (its output)."""
    found = re.search(r"```python\n(.*?)```.*?```text\n(.*?)```", section, re.DOTALL)
    assert found is not None
    return found.group(1), found.group(2)


@pytest.mark.parametrize(
    ("page", "heading"),
    [(ROOT / "docs" / "tracing.md", "Switching it on"), (ROOT / "README.md", "Tracing")],
)
def test_the_example_prints_the_spans_it_shows(page: Path, heading: str) -> None:
    code, output = _example(_section(page, heading))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "YADK_"))}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == output


def test_the_pages_quote_the_attributes_the_spans_carry() -> None:
    """Every attribute the table names is one the recorded scenarios or the code set."""
    section = _section(ROOT / "docs" / "tracing.md", "The spans")
    table = "\n".join(line for line in section.splitlines() if line.startswith("| `"))
    named = set(re.findall(r"`((?:gen_ai|gcp|yadk|error)\.[a-z_.]+)`", table))
    source = "".join(
        p.read_text(encoding="utf-8") for p in (ROOT / "src" / "yadk" / "telemetry").glob("*.py")
    )
    spelled = {name for name in named if f'"{name}"' in source}
    assert len(named) >= 20
    assert named - spelled == set()
