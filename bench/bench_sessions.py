"""Session service speed, side by side with google-adk 2.13.

- append_event throughput and get_session of a 1,000-event session, in memory and on SQLite
  (google-adk: InMemorySessionService, DatabaseSessionService on sqlite+aiosqlite);
- the event loop's worst lag while an append waits 1.5 s for a write lock another process holds
  (target <= 20 ms: the wait must not block the loop), and while a first read parses 1,000 events.
Targets: in-memory append >= 50,000/s; SQLite get_session of 1,000 events <= 10 ms, and its
first read in a process <= 25 ms.
Run: python bench/bench_sessions.py   (figures are noisy on a shared machine: compare ratios)
Writes bench/results/bench_sessions.json.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _compare import report, run_adk, write_results

from yadk.events import Event, EventActions
from yadk.sessions import BaseSessionService, InMemorySessionService, SqliteSessionService
from yadk.types import ModelContent

N_APPEND = 5_000
N_EVENTS = 1_000
N_GETS = 30
HOLD = 1.5

_HOLD_LOCK = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
conn.execute("COMMIT")
"""


def _event(i: int) -> Event:
    return Event(
        author="agent",
        content=ModelContent(f"message {i}"),
        actions=EventActions(state_delta={f"k{i % 50}": i}),
    )


class LoopLag:
    """Worst lag (ms) of a coroutine that sleeps 1 ms at a time, while the block runs."""

    def __init__(self) -> None:
        self.worst = 0.0

    async def _tick(self) -> None:
        while True:
            start = time.perf_counter()
            await asyncio.sleep(0.001)
            self.worst = max(self.worst, (time.perf_counter() - start - 0.001) * 1000)

    async def __aenter__(self) -> LoopLag:
        self._task = asyncio.create_task(self._tick())
        await asyncio.sleep(0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._task.cancel()


async def measure(
    service: BaseSessionService, n_append: int, reopen: Any = None
) -> tuple[float, float, float | None, float | None]:
    session = await service.create_session(app_name="app", user_id="u")
    events = [_event(i) for i in range(n_append)]
    start = time.perf_counter()
    for event in events:
        await service.append_event(session, event)
    append_rate = n_append / (time.perf_counter() - start)
    big = await service.create_session(app_name="app", user_id="u")
    for i in range(N_EVENTS):
        await service.append_event(big, _event(i))
    timings = []
    for _ in range(N_GETS):
        start = time.perf_counter()
        await service.get_session(app_name="app", user_id="u", session_id=big.id)
        timings.append(time.perf_counter() - start)
    cold = lag = None
    if reopen is not None:  # a fresh service each time: its first read parses every event
        colds, lags = [], []
        for _ in range(5):
            fresh = reopen()
            start = time.perf_counter()
            await fresh.get_session(app_name="app", user_id="u", session_id=big.id)
            colds.append(time.perf_counter() - start)
            await fresh.aclose()
            fresh = reopen()
            async with LoopLag() as watch:
                await fresh.get_session(app_name="app", user_id="u", session_id=big.id)
            lags.append(watch.worst)
            await fresh.aclose()
        cold = sorted(colds)[len(colds) // 2] * 1000
        lag = sorted(lags)[len(lags) // 2]
    return append_rate, sorted(timings)[len(timings) // 2] * 1000, cold, lag


async def lock_lag(db: Path) -> float:
    """Worst event-loop lag (ms) while an append waits HOLD s for another process's lock."""
    service = SqliteSessionService(db, busy_timeout=30)
    session = await service.create_session(app_name="app", user_id="u")
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLD_LOCK, str(db), str(HOLD)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline() == "locked\n"
    lags: list[float] = []

    async def tick() -> None:
        while True:
            start = time.perf_counter()
            await asyncio.sleep(0.001)
            lags.append(time.perf_counter() - start - 0.001)

    ticker = asyncio.create_task(tick())
    await service.append_event(session, _event(0))
    ticker.cancel()
    proc.wait()
    await service.aclose()
    return max(lags) * 1000


def seal_rate(n: int) -> float:
    """Events/s of sealing alone (``seal_event``, what an append does to the caller's event so
    that the store can keep it), over as many fresh events as the append figure: how much of an
    append is the seal (and the collector's work on what it keeps)."""
    from yadk._sealed import seal_event

    events = [_event(i) for i in range(n)]
    kept = []
    start = time.perf_counter()
    for event in events:
        kept.append(seal_event(event))
    return n / (time.perf_counter() - start)


async def measure_yadk(folder: Path) -> dict[str, float]:
    memory = await measure(InMemorySessionService(), N_APPEND * 4)
    seal = seal_rate(N_APPEND * 4)
    sqlite = SqliteSessionService(folder / "bench.db")
    on_disk = await measure(
        sqlite, N_APPEND, reopen=lambda: SqliteSessionService(folder / "bench.db")
    )
    await sqlite.aclose()
    lag = await lock_lag(folder / "lock.db")
    return {
        "mem_append": memory[0],
        "mem_seal": seal,
        "mem_get": memory[1],
        "sql_append": on_disk[0],
        "sql_get": on_disk[1],
        "sql_get_cold": on_disk[2] or 0.0,
        "read_lag": on_disk[3] or 0.0,
        "lag": lag,
    }


ADK_SNIPPET = f"""
import asyncio, json, subprocess, sys, tempfile, time, os, logging
logging.disable(logging.WARNING)
from google.adk.events import Event, EventActions
from google.adk.sessions import InMemorySessionService, DatabaseSessionService
from google.genai import types

HOLD_LOCK = {_HOLD_LOCK!r}

def ev(i):
    return Event(author="agent", content=types.ModelContent(f"message {{i}}"),
                 actions=EventActions(state_delta={{f"k{{i % 50}}": i}}))

async def measure(service, n):
    session = await service.create_session(app_name="app", user_id="u")
    events = [ev(i) for i in range(n)]
    start = time.perf_counter()
    for e in events:
        session = await service.get_session(app_name="app", user_id="u", session_id=session.id) if isinstance(service, DatabaseSessionService) and False else session
        await service.append_event(session, e)
    rate = n / (time.perf_counter() - start)
    big = await service.create_session(app_name="app", user_id="u")
    for i in range({N_EVENTS}):
        await service.append_event(big, ev(i))
    t = []
    for _ in range(10):
        start = time.perf_counter()
        await service.get_session(app_name="app", user_id="u", session_id=big.id)
        t.append(time.perf_counter() - start)
    worst = []
    for _ in range(5):
        lags = [0.0]
        async def tick():
            while True:
                s = time.perf_counter(); await asyncio.sleep(0.001); lags.append(time.perf_counter() - s - 0.001)
        task = asyncio.create_task(tick())
        await asyncio.sleep(0)
        await service.get_session(app_name="app", user_id="u", session_id=big.id)
        task.cancel()
        worst.append(max(lags) * 1000)
    return rate, sorted(t)[len(t) // 2] * 1000, sorted(worst)[2]

async def lag(db):
    service = DatabaseSessionService(f"sqlite+aiosqlite:///{{db}}")
    session = await service.create_session(app_name="app", user_id="u")
    proc = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, db, "{HOLD}"], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "locked\\n"
    lags = []
    async def tick():
        while True:
            s = time.perf_counter(); await asyncio.sleep(0.001); lags.append(time.perf_counter() - s - 0.001)
    task = asyncio.create_task(tick())
    try:
        await service.append_event(session, ev(0))
    except Exception as exc:
        pass
    task.cancel(); proc.wait()
    return max(lags) * 1000

async def main():
    folder = tempfile.mkdtemp()
    mem = await measure(InMemorySessionService(), {N_APPEND})
    sql = await measure(DatabaseSessionService(f"sqlite+aiosqlite:///{{folder}}/adk.db"), {N_APPEND // 5})
    worst = await lag(f"{{folder}}/lock.db")
    print(json.dumps({{"mem_append": mem[0], "mem_get": mem[1], "sql_append": sql[0], "sql_get": sql[1], "read_lag": sql[2], "lag": worst}}))
asyncio.run(main())
"""


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        yadk = asyncio.run(measure_yadk(Path(folder)))
    adk = run_adk(ADK_SNIPPET) or {}
    if "sql_get" in adk:  # google-adk parses every event on every read: its cold read is the same
        adk["sql_get_cold"] = adk["sql_get"]
    print("Session services (median get_session; load on this machine makes figures noisy)")
    rows = [
        ("memory: append_event (target >= 50,000/s)", "mem_append", "ev/s", True),
        ("memory: of which the seal alone", "mem_seal", "ev/s", True),
        ("memory: get_session, 1,000 events", "mem_get", "ms", False),
        ("SQLite: append_event (durable)", "sql_append", "ev/s", True),
        ("SQLite: get_session, 1,000 events (<= 10 ms)", "sql_get", "ms", False),
        ("SQLite: the same, first read (<= 25 ms)", "sql_get_cold", "ms", False),
        ("SQLite: loop lag, that first read", "read_lag", "ms", False),
        (f"SQLite: loop lag, lock held {HOLD} s (<= 20 ms)", "lag", "ms", False),
    ]
    results = {}
    for label, key, unit, higher in rows:
        report(label, yadk[key], adk.get(key), unit, higher_is_better=higher)
        theirs = adk.get(key)
        ratio = None
        if theirs:
            ratio = yadk[key] / theirs if higher else theirs / yadk[key]
        results[key] = {"label": label, "unit": unit, "yadk": yadk[key], "google_adk": theirs}
        results[key]["yadk_is_x_better"] = ratio
    out = Path(__file__).parent / "results" / f"{Path(__file__).stem}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"written to {out.relative_to(Path(__file__).parent.parent)}")


if __name__ == "__main__":
    main()
    write_results(__file__)
