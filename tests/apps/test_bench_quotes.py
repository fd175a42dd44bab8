"""The speed figures docs/apps.md quotes are the ones the benchmarks wrote (bench/results/):
re-running a benchmark and committing its results without updating the docs fails here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DOCS = " ".join((ROOT / "docs" / "apps.md").read_text(encoding="utf-8").split())


def _rows(bench: str) -> dict[str, dict[str, Any]]:
    data = json.loads((ROOT / "bench" / "results" / f"{bench}.json").read_text(encoding="utf-8"))
    return {row["what"]: row for row in data["rows"]}


def test_the_plugin_figures() -> None:
    rows = _rows("bench_plugins")
    extra = rows["app without plugins vs no app, extra"]["yadk"]
    assert extra <= 5  # the target the docs state
    plain = rows["scripted turn, no plugins"]
    counting = rows["scripted turn, 1 counting plugin"]
    every = rows["scripted turn, 1 plugin on every callback"]
    quoted = [
        f"an app without plugins {extra:+.1f}% against no app".replace("+", ""),
        f"({plain['yadk']:.2f} ms a scripted turn)",
        f"counting model calls {counting['yadk']:.2f} ms",
        f"every callback {every['yadk']:.2f} ms",
        f"{plain['google_adk']:.1f} ms without plugins (yadk {plain['ratio']:.0f}x faster)",
        f"{counting['google_adk']:.1f} ms with the counting plugin ({counting['ratio']:.0f}x)",
    ]
    for text in quoted:
        assert text in DOCS, text


def test_the_budget_figures() -> None:
    rows = _rows("bench_budgets")
    plain = rows["no budget"]
    quoted = [
        f"a median {plain['yadk']:.2f} ms without a budget",
        f"{rows['budget, reported usage (3 limits, priced)']['yadk']:.2f} ms with a budget"
        " counting reported usage",
        f"{rows['budget, estimated usage']['yadk']:.2f} ms with a budget estimating usage",
        f"took {plain['google_adk']:.0f} ms",
    ]
    for text in quoted:
        assert text in DOCS, text


def test_the_compaction_figures() -> None:
    rows = _rows("bench_compaction")
    off = rows["turn, compaction off (200 turns)"]
    on = rows["turn, compaction on (200 turns)"]
    quoted = [
        f"a turn took {off['yadk']:.2f} ms in yadk and {off['google_adk']:.1f} ms in google-adk"
        f" 2.13 (yadk {off['ratio']:.0f}x faster)",
        f"{on['yadk']:.2f} ms in yadk and {on['google_adk']:.1f} ms in google-adk"
        f" ({on['ratio']:.0f}x)",
        f"cheaper ({rows['compaction on / off (google-adk)']['yadk']:.2f}x)",
        f"extra work ({rows['compaction on / off (yadk)']['yadk']:.2f}x)",
    ]
    for text in quoted:
        assert text in DOCS, text
