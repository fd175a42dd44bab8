"""The session-store figures docs/engine.md and the README quote are the ones the benchmarks
wrote (bench/results/): re-running bench_sessions.py or bench_postgres.py and committing its
results without updating the docs fails here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ENGINE = (ROOT / "docs" / "engine.md").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _rows(bench: str) -> dict[str, dict[str, Any]]:
    data = json.loads((ROOT / "bench" / "results" / f"{bench}.json").read_text(encoding="utf-8"))
    return {row["what"]: row for row in data["rows"]}


def _ratio(row: dict[str, Any]) -> str:
    """yadk's advantage, from the two figures (the stored ratio is already rounded)."""
    value = row["yadk"] / row["google_adk"]
    if not row["higher_is_better"]:
        value = 1 / value
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}"


def test_the_session_table_of_the_engine_page() -> None:
    memory = _rows("bench_sessions")
    append = memory["memory: append_event (target >= 50,000/s)"]
    get = memory["memory: get_session, 1,000 events"]
    sqlite = memory["SQLite: append_event (durable)"]
    again = memory["SQLite: get_session, 1,000 events (<= 10 ms)"]
    first = memory["SQLite: the same, first read (<= 25 ms)"]
    pg = _rows("bench_postgres")
    pg_append = pg["durable append, one connection"]
    pg_again = pg["get_session, 1,000 events (median)"]
    pg_first = pg["the same, first read in a process (<= 25 ms)"]
    rows = [
        f"| in-memory `append_event` | {append['yadk']:,.0f} events/s"
        f" | {append['google_adk']:,.0f} events/s | {_ratio(append)}x |",
        f"| in-memory `get_session`, 1,000 events | {get['yadk']:.3f} ms"
        f" | {get['google_adk']:.1f} ms | {_ratio(get)}x |",
        f"| SQLite `append_event` (durable) | {sqlite['yadk']:,.0f} events/s"
        f" | {sqlite['google_adk']:,.0f} events/s | {_ratio(sqlite)}x |",
        f"| SQLite `get_session`, 1,000 events, again / first read | {again['yadk']:.2f} ms"
        f" / {first['yadk']:.1f} ms | {first['google_adk']:.1f} ms"
        f" | {_ratio(again)}x / {_ratio(first)}x |",
        f"| PostgreSQL `append_event` (durable, one connection) | {pg_append['yadk']:,.0f}"
        f" events/s | {pg_append['google_adk']:,.0f} events/s | {_ratio(pg_append)}x |",
        f"| PostgreSQL `get_session`, 1,000 events, again / first read | {pg_again['yadk']:.2f} ms"
        f" / {pg_first['yadk']:.1f} ms | {pg_first['google_adk']:,.0f} ms"
        f" | {_ratio(pg_again)}x / {_ratio(pg_first)}x |",
    ]
    for row in rows:
        assert row in ENGINE, row


def test_the_readme_speed_rows_of_sessions_and_serve() -> None:
    memory = _rows("bench_sessions")
    append = memory["memory: append_event (target >= 50,000/s)"]
    pg_append = _rows("bench_postgres")["durable append, one connection"]
    serve = _rows("bench_serve")
    turns = serve["throughput under load (turns/s)"]
    p99 = serve["p99 latency under load"]
    quoted = [
        f"| {append['yadk']:,.0f} events/s | {append['google_adk']:,.0f} events/s"
        f" | {_ratio(append)}× |",
        f"| {pg_append['yadk']:,.0f} events/s | {pg_append['google_adk']:,.0f} events/s"
        f" | {_ratio(pg_append)}× |",
        f"| {turns['yadk']:.0f} turns/s, p99 {p99['yadk']:.0f} ms | {turns['google_adk']:.1f}"
        f" turns/s, p99 {p99['google_adk']:,.0f} ms | {_ratio(turns)}× |",
    ]
    for text in quoted:
        assert text in README, text
