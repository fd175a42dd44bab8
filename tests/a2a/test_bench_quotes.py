"""The speed figures docs/a2a.md and the README quote are the ones bench/bench_a2a.py wrote
(bench/results/bench_a2a.json): re-running the benchmark without updating the docs fails here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _text(path: str) -> str:
    return " ".join((ROOT / path).read_text(encoding="utf-8").split())


def _rows() -> dict[str, dict[str, Any]]:
    data = json.loads((ROOT / "bench" / "results" / "bench_a2a.json").read_text(encoding="utf-8"))
    return {row["what"]: row for row in data["rows"]}


def test_the_a2a_figures() -> None:
    rows = _rows()
    send = rows["A2A SendMessage under load"]
    one = rows["A2A SendMessage at 1 client"]
    own = rows["yadk A2A rate / its /run rate under load"]["yadk"]
    adk_own = rows["google-adk A2A rate / its /run rate"]["yadk"]
    assert own >= 0.8  # the target the docs state
    docs = _text("docs/a2a.md")
    for quoted in (
        f"| A2A `SendMessage`, 50 clients | {send['yadk']:.0f} turns/s | {send['google_adk']:.1f}"
        " turns/s",
        f"| {send['ratio']:.1f}× |",
        f"| A2A at 1 client | {one['yadk']:.1f} ms per message | {one['google_adk']:.0f} ms |"
        f" {one['ratio']:.1f}× |",
        f"| {own:.0%} (target: 80%) | {adk_own:.0%} |",
    ):
        assert quoted in docs, quoted
    readme = _text("README.md")
    row = (
        f"| {send['yadk']:.0f} turns/s ({own:.0%} of its `/run`) | {send['google_adk']:.1f}"
        f" turns/s ({adk_own:.0%} of its `/run`) | {send['ratio']:.1f}× |"
    )
    assert row in readme, row
