"""The runner keeps each session between turns and reads only what is new (so the per-turn cost
does not grow with history: bench/bench_runner.py measures it), and what others appended in
between is seen."""

from __future__ import annotations

from pathlib import Path

import pytest

from yadk import LlmAgent, Runner
from yadk.events import Event
from yadk.models import ScriptedModel
from yadk.sessions import BaseSessionService, InMemorySessionService, SqliteSessionService, _codec


@pytest.fixture(params=["memory", "sqlite"])
def service(request: pytest.FixtureRequest, tmp_path: Path) -> BaseSessionService:
    if request.param == "memory":
        return InMemorySessionService()
    return SqliteSessionService(tmp_path / "s.db")


def _runner(service: BaseSessionService, turns: int) -> Runner:
    model = ScriptedModel(turns=[{"text": f"answer {i}"} for i in range(turns)])
    return Runner(app_name="app", agent=LlmAgent(name="bot", model=model), session_service=service)


async def test_each_turn_reads_only_the_new_events(
    service: BaseSessionService, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = _runner(service, 61)
    session = await service.create_session(app_name="app", user_id="u")
    parsed: list[int] = []
    original = _codec.load_events

    def counting(rows: list[str], where: str, *slice_of: int | None) -> list[Event]:
        parsed.append(len(rows))
        return original(rows, where, *slice_of)

    # What the durable stores' reads call (the in-memory store parses nothing).
    monkeypatch.setattr(_codec, "load_events", counting)
    for i in range(60):
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=f"q{i}"):
            pass
    # Turn after turn, no read parses more than the few events appended since the last one.
    # (A read with nothing new parses nothing; reading the whole history each turn would
    # parse some 3,600 events over these 60 turns.)
    assert max(parsed[2:], default=0) <= 2
    assert sum(parsed) <= 2 * 61
    other = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    assert other is not None
    await service.append_event(other, Event(author="ops", invocation_id="x"))
    events = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="q")
    ]
    assert events[-1].text.startswith("answer")
    stored = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    assert stored is not None and [e.author for e in stored.events][-3:] == ["ops", "user", "bot"]
