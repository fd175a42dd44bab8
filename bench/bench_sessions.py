"""Session service speed: append_event throughput and get_session latency (issue 2).

Targets: append_event >= 50,000 events/s; get_session of a 1,000-event session <= 1 ms.
Run: python bench/bench_sessions.py
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _compare import report, run_adk

from yadk.events import Event, EventActions
from yadk.sessions import InMemorySessionService
from yadk.types import ModelContent

N_APPEND = 20_000
N_EVENTS = 1_000
N_GETS = 200


async def measure_yadk() -> tuple[float, float]:
    service = InMemorySessionService()
    session = await service.create_session(app_name="app", user_id="u")
    events = [
        Event(
            author="agent",
            content=ModelContent(f"message {i}"),
            actions=EventActions(state_delta={"counter": i}),
        )
        for i in range(N_APPEND)
    ]
    start = time.perf_counter()
    for event in events:
        await service.append_event(session, event)
    append_rate = N_APPEND / (time.perf_counter() - start)

    big = await service.create_session(app_name="app", user_id="u")
    for i in range(N_EVENTS):
        await service.append_event(
            big,
            Event(
                author="agent",
                content=ModelContent(f"m{i}"),
                actions=EventActions(state_delta={f"k{i % 50}": i}),
            ),
        )
    start = time.perf_counter()
    for _ in range(N_GETS):
        await service.get_session(app_name="app", user_id="u", session_id=big.id)
    get_ms = (time.perf_counter() - start) / N_GETS * 1000
    return append_rate, get_ms


ADK_SNIPPET = f"""
import asyncio, json, time
from google.adk.events import Event, EventActions
from google.adk.sessions import InMemorySessionService
from google.genai import types

async def main():
    service = InMemorySessionService()
    session = await service.create_session(app_name="app", user_id="u")
    n = {N_APPEND // 10}
    events = [Event(author="agent", content=types.ModelContent(f"message {{i}}"),
                    actions=EventActions(state_delta={{"counter": i}})) for i in range(n)]
    start = time.perf_counter()
    for e in events:
        await service.append_event(session, e)
    rate = n / (time.perf_counter() - start)
    big = await service.create_session(app_name="app", user_id="u")
    for i in range({N_EVENTS}):
        await service.append_event(big, Event(author="agent", content=types.ModelContent(f"m{{i}}"),
                                   actions=EventActions(state_delta={{f"k{{i % 50}}": i}})))
    gets = 20
    start = time.perf_counter()
    for _ in range(gets):
        await service.get_session(app_name="app", user_id="u", session_id=big.id)
    get_ms = (time.perf_counter() - start) / gets * 1000
    print(json.dumps({{"append_rate": rate, "get_ms": get_ms}}))
asyncio.run(main())
"""


def main() -> None:
    append_rate, get_ms = asyncio.run(measure_yadk())
    adk = run_adk(ADK_SNIPPET)
    print("Session service (InMemorySessionService)")
    report(
        "append_event throughput (target >= 50,000/s)",
        append_rate,
        adk and adk["append_rate"],
        "ev/s",
        higher_is_better=True,
    )
    report("get_session, 1,000 events (target <= 1 ms)", get_ms, adk and adk["get_ms"], "ms")


if __name__ == "__main__":
    main()
