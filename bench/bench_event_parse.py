"""Reading 1,000 stored event rows into frozen events, the bulk of a store's first read.

Two ways, both in this process, alternated so a machine whose speed drifts favours neither:
- straight into the frozen twins (``TypeAdapter(list[FrozenEvent])``, what ``load_events``
  does): each container frozen by a validator as it is read;
- the models, then sealed in place (``list[Event]`` validation, then ``seal_event``: what
  ``load_events`` does for rows in another shape).
The parsed events are kept alive, as a store's cache keeps them. google-adk parses every event
on every read; ``bench_sessions.py`` compares with it.

    python bench/bench_event_parse.py      writes bench/results/bench_event_parse.json
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from yadk._sealed import seal_event
from yadk.events import Event, EventActions
from yadk.sessions._codec import dump_event
from yadk.sessions._frozen import parse_frozen_events
from yadk.types import ModelContent

N_EVENTS = 1_000
ROUNDS = 15


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
    models = TypeAdapter(list[Event])

    def then_seal(text: str) -> list[Event]:
        return [seal_event(e) for e in models.validate_json(text)]

    return {"straight into twins": parse_frozen_events, "models, then sealed": then_seal}


def main() -> None:
    text = "[" + ",".join(_rows()) + "]"
    ways = _ways()
    for parse in ways.values():  # build both validators before timing
        parse(text)
    times: dict[str, list[float]] = {name: [] for name in ways}
    kept: list[Any] = []
    for _ in range(ROUNDS):
        for name, parse in ways.items():
            started = time.perf_counter()
            kept.append(parse(text))
            times[name].append(time.perf_counter() - started)
    print(f"{N_EVENTS:,} stored rows to frozen events (median of {ROUNDS}, kept alive)")
    medians = {name: statistics.median(values) * 1000 for name, values in times.items()}
    for name, value in medians.items():
        print(f"  {name:<22} {value:7.2f} ms")
    ratio = medians["models, then sealed"] / medians["straight into twins"]
    print(f"  straight into the twins is {ratio:.2f}x as fast")
    out = Path(__file__).parent / "results" / f"{Path(__file__).stem}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"median_ms": medians, "ratio": ratio}, indent=2) + "\n")
    print(f"written to {out.relative_to(Path(__file__).parent.parent)}")


if __name__ == "__main__":
    main()
