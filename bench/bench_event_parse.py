"""Reading 1,000 stored event rows into frozen events, the bulk of a store's first read.

Two ways, both in this process, alternated so a machine whose speed drifts favours neither:
- the stored-row reader (``sessions/_stored_events``): validator-free stand-ins whose schema
  creates the frozen twins, with the cycle collector paused (what ``load_events`` does);
- the models: ``list[Event]`` validation (Python validators included), then ``freeze_loaded``
  (what ``load_events`` did before, and still does for rows in another shape).
The parsed events are kept alive, as a store's cache keeps them. With ``--instructions`` each way
also runs in a child under valgrind (cachegrind, no cache simulation) and its executed
instructions, less a child that parses nothing, are printed: a figure the machine's speed does
not move. google-adk parses every event on every read; ``bench_sessions.py`` compares with it.

    python bench/bench_event_parse.py [--instructions]
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from _compare import record, write_results

from yadk._gc import collector_paused
from yadk.events import Event, EventActions
from yadk.sessions._codec import _events_adapter, dump_event
from yadk.sessions._frozen import freeze_loaded
from yadk.sessions._stored_events import stored_events_reader
from yadk.types import ModelContent

N_EVENTS = 1_000
ROUNDS = 15
_VALGRIND = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]


def _rows() -> list[str]:
    events = [
        Event(
            author="agent",
            content=ModelContent(f"message {i}"),
            actions=EventActions(state_delta={f"k{i % 50}": i}),
        )
        for i in range(N_EVENTS)
    ]
    return [dump_event(e, e.actions.state_delta) for e in events]


def _ways() -> dict[str, Callable[[str], list[Event]]]:
    reader = stored_events_reader()
    assert reader is not None, "the stored-row reader is not available on this pydantic"

    def stored(text: str) -> list[Event]:
        with collector_paused():
            return reader(text)

    def models(text: str) -> list[Event]:
        return freeze_loaded(_events_adapter().validate_json(text))

    return {"stored-row reader": stored, "models, then freeze": models}


def _child(way: str) -> None:
    text = "[" + ",".join(_rows()) + "]"
    ways = _ways()
    for parse in ways.values():  # build both, so only the parse itself differs between runs
        parse("[" + ",".join(_rows()[:2]) + "]")
    kept: list[Any] = []
    if way != "none":
        for _ in range(5):
            kept.append(ways[way](text))


def _instructions(way: str) -> int:
    proc = subprocess.run(
        [*_VALGRIND, sys.executable, __file__, "--child", way],
        capture_output=True,
        text=True,
        check=True,
    )
    found = re.search(r"I\s+refs:\s+([\d,]+)", proc.stderr)
    assert found, proc.stderr
    return int(found.group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instructions", action="store_true")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child)
        return
    text = "[" + ",".join(_rows()) + "]"
    ways = _ways()
    times: dict[str, list[float]] = {name: [] for name in ways}
    kept: list[Any] = []
    for _ in range(ROUNDS):
        for name, parse in ways.items():
            started = time.perf_counter()
            kept.append(parse(text))
            times[name].append(time.perf_counter() - started)
    print(f"{N_EVENTS:,} stored rows to frozen events (median of {ROUNDS}, kept alive)")
    for name, values in times.items():
        print(f"  {name:<22} {statistics.median(values) * 1000:7.2f} ms")
    ratio = statistics.median(times["models, then freeze"]) / statistics.median(
        times["stored-row reader"]
    )
    print(f"  the stored-row reader is {ratio:.2f}x as fast")
    for name, values in times.items():
        record(f"{N_EVENTS:,} stored rows, {name}", statistics.median(values) * 1000, "ms")
    if args.instructions:
        if shutil.which("valgrind") is None:
            print("  (valgrind not found: no instruction counts)")
            return
        base = _instructions("none")
        counts = {name: (_instructions(name) - base) / 5 for name in ways}
        for name, count in counts.items():
            print(f"  {name:<22} {count / 1e6:7.1f} M instructions per {N_EVENTS:,} rows")
            record(f"{N_EVENTS:,} stored rows, {name}", count / 1e6, "M instructions")
        fewer = 1 - counts["stored-row reader"] / counts["models, then freeze"]
        print(f"  the stored-row reader executes {fewer:.0%} fewer instructions")


if __name__ == "__main__":
    main()
    write_results(__file__)
