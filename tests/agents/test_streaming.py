"""Streaming: partial events are yielded as the model produces them and never stored."""

from __future__ import annotations

from yadk import LlmAgent, Runner
from yadk.agents import RunConfig
from yadk.models import ScriptedModel

ANSWER = "Hello there, this is a longer streamed answer for you."


async def run(streaming: bool) -> tuple[list, list]:
    model = ScriptedModel(
        turns=[
            {"function_calls": [{"name": "ping", "args": {}}]},
            {"text": ANSWER},
        ]
    )

    def ping() -> str:
        """Answers pong."""
        return "pong"

    agent = LlmAgent(name="bot", model=model, tools=[ping], output_key="answer")
    runner = Runner(app_name="app", agent=agent, run_config=RunConfig(streaming=streaming))
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="hi")
    ]
    stored = await runner.session_service.get_session(
        app_name="app", user_id="u", session_id=session.id
    )
    assert stored is not None
    return events, stored.events


async def test_streamed_chunks_then_the_final_event() -> None:
    events, stored = await run(streaming=True)
    partial = [e.text for e in events if e.partial]
    assert partial == ["Hello there, this is a ", "longer streamed answer ", "for you."]
    final = events[-1]
    assert (final.partial, final.text) == (None, ANSWER)
    assert final.actions.state_delta == {"answer": ANSWER}
    assert all(e.author == "bot" for e in events if e.partial)
    # Only complete events are stored, and the history is the same as without streaming.
    assert not any(e.partial for e in stored)
    _, stored_plain = await run(streaming=False)
    assert [(e.author, e.text) for e in stored] == [(e.author, e.text) for e in stored_plain]


async def test_no_partial_events_without_streaming() -> None:
    events, _ = await run(streaming=False)
    assert not any(e.partial for e in events)
