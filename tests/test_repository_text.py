"""Text the repository keeps to: no tracker issue numbers in code, tests, benchmarks or docs (a
number means nothing to a reader of the repository: say what the behaviour is)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ISSUE_NUMBER = re.compile(r"\bissues? ?#?\d|\(#\d+\)", re.IGNORECASE)
SUFFIXES = {".py", ".md", ".js", ".css", ".html", ".toml", ".yaml", ".yml"}


def _texts() -> list[Path]:
    roots = [REPO / "src", REPO / "tests", REPO / "bench", REPO / "docs", REPO / "scripts"]
    files = [REPO / "README.md"]
    for root in roots:
        files += [
            path
            for path in root.rglob("*")
            if path.suffix in SUFFIXES and "fixtures" not in path.parts and path.is_file()
        ]
    return files


def test_no_issue_numbers() -> None:
    found = []
    for path in _texts():
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            if ISSUE_NUMBER.search(line):
                found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert found == []


def test_the_pattern_finds_what_it_is_for() -> None:
    # Spelt in two pieces, so this file does not hold what it looks for.
    for start, end in [("see issue ", "13, item 4"), ("(issues ", "2 and 10)")]:
        assert ISSUE_NUMBER.search(start + end), start + end
    for start, end in [("Issue #", "7"), ("fixed (#", "12)")]:
        assert ISSUE_NUMBER.search(start + end), start + end
    for line in ["failure #2 this invocation", "Orders: #1 #2", "an Issue of the skill"]:
        assert not ISSUE_NUMBER.search(line), line
