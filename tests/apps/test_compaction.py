"""Event compaction: the requests the model receives, the summariser's prompts and the stored
compaction events equal google-adk 2.13's for the same scripted history
(recorded/compaction.json, from record_compaction.py), on every session store."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from yadk import Runner
from yadk.agents import LlmAgent
from yadk.apps import App, EventsCompactionConfig, LlmEventSummarizer
from yadk.events import Event, EventActions, EventCompaction
from yadk.models import BaseLlm, LlmRequest, LlmResponse, ScriptedModel
from yadk.sessions import (
    BaseSessionService,
    InMemorySessionService,
    PostgresSessionService,
    SqliteSessionService,
)
from yadk.types import Content, FunctionCall, Part

RECORDED = json.loads(
    (Path(__file__).parent / "recorded" / "compaction.json").read_text(encoding="utf-8")
)
CASES = {case["name"]: case for case in RECORDED}


class Answers(BaseLlm):
    """Scripted answers as record_compaction.py gives them (text, a tool call, a reported
    prompt size); keeps each request's contents."""

    def __init__(self, answers: list[dict[str, Any]]) -> None:
        self.model = "scripted"
        self.answers = list(answers)
        self.seen: list[list[dict[str, Any]]] = []
        self.requests: list[LlmRequest] = []

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        self.requests.append(llm_request)
        self.seen.append([c.to_dict() for c in llm_request.contents])
        answer = self.answers.pop(0)
        if "call" in answer:
            name, args = answer["call"]
            part = Part(function_call=FunctionCall(name=name, args=args))
        else:
            part = Part(text=answer["text"])
        usage = None
        if "prompt_tokens" in answer:
            usage = {
                "prompt_token_count": answer["prompt_tokens"],
                "total_token_count": answer["prompt_tokens"],
            }
        yield LlmResponse(content=Content(role="model", parts=[part]), usage_metadata=usage)


def lookup(city: str) -> dict[str, str]:
    """The weather in a city."""
    return {"city": city, "weather": "sunny"}


def _comparable(contents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Contents without function-call ids (random in both frameworks)."""
    out = []
    for content in contents:
        parts = []
        for part in content["parts"]:
            part = {k: v for k, v in part.items() if k != "thought_signature"}
            for key in ("function_call", "function_response"):
                if key in part:
                    part[key] = {k: v for k, v in part[key].items() if k != "id"}
            parts.append(part)
        out.append({"role": content["role"], "parts": parts})
    return out


@pytest.fixture(params=["memory", "sqlite", "postgres"])
async def store(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[BaseSessionService]:
    if request.param == "memory":
        service: BaseSessionService = InMemorySessionService()
    elif request.param == "sqlite":
        service = SqliteSessionService(tmp_path / "sessions.db")
    else:
        service = PostgresSessionService(request.getfixturevalue("postgres_url"))
    yield service
    await service.aclose()


async def _run_case(
    case: dict[str, Any], store: BaseSessionService
) -> tuple[Answers, Answers, Runner, str]:
    model = Answers(case["answers"])
    summaries = Answers([{"text": s} for s in case["summaries"]])
    agent = LlmAgent(name="assistant", model=model, instruction="Be brief.", tools=[lookup])
    app = App(
        name="compaction_app",
        root_agent=agent,
        events_compaction_config=EventsCompactionConfig(
            summarizer=LlmEventSummarizer(summaries), **case["config"]
        ),
    )
    runner = Runner(app=app, session_service=store)
    session = await store.create_session(app_name=app.name, user_id="u")
    for query in case["queries"]:
        async for event in runner.run_async(user_id="u", session_id=session.id, new_message=query):
            assert event.error_code is None, event.error_message
    return model, summaries, runner, session.id


@pytest.mark.parametrize("name", list(CASES))
async def test_requests_and_summaries_equal_google_adks(
    name: str, store: BaseSessionService
) -> None:
    case = CASES[name]
    model, summaries, _, session_id = await _run_case(case, store)

    assert [_comparable(r) for r in model.seen] == [_comparable(r) for r in case["requests"]]
    assert [r.contents[0].parts[0].text for r in summaries.requests] == case["summarizer_prompts"]
    # What the store holds, read back whole: every event, the summaries among them.
    fresh = await store.get_session(app_name="compaction_app", user_id="u", session_id=session_id)
    assert fresh is not None
    events = fresh.events
    assert [e.author for e in events] == case["stored_authors"]
    found = []
    for index, event in enumerate(events):
        compaction = event.actions.compaction
        if compaction is None:
            continue
        covers = [
            i
            for i, e in enumerate(events)
            if e.actions.compaction is None
            and compaction.start_timestamp <= e.timestamp <= compaction.end_timestamp
        ]
        summary = compaction.compacted_content.to_dict()
        found.append({"index": index, "author": event.author, "covers": covers, "summary": summary})
    assert found == case["compactions"]


async def test_a_store_read_back_gives_the_same_next_request(tmp_path: Path) -> None:
    """A new runner on the same SQLite file (a restarted process) sends the compacted request."""
    case = CASES["sliding_window"]
    store = SqliteSessionService(tmp_path / "s.db")
    model, _, _, session_id = await _run_case({**case, "queries": case["queries"][:3]}, store)
    kept_going = model.seen[-1]
    await store.aclose()

    again = SqliteSessionService(tmp_path / "s.db")
    follow = Answers([{"text": "Rome is sunny."}])
    agent = LlmAgent(name="assistant", model=follow, instruction="Be brief.", tools=[lookup])
    runner = Runner(app=App(name="compaction_app", root_agent=agent), session_service=again)
    async for _ in runner.run_async(user_id="u", session_id=session_id, new_message="more"):
        pass
    await again.aclose()
    # The summary, then the third turn's call and result, as before the restart.
    assert _comparable(follow.seen[0])[: len(kept_going)] == _comparable(kept_going)


async def test_the_root_agents_model_summarises_when_no_summarizer_is_given() -> None:
    model = ScriptedModel(turns=[{"text": "one"}, {"text": "two"}, {"text": "The summary."}])
    agent = LlmAgent(name="assistant", model=model)
    config = EventsCompactionConfig(compaction_interval=2, overlap_size=0)
    runner = Runner(app=App(name="app", root_agent=agent, events_compaction_config=config))
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    for text in ("a", "b"):
        runner.run(user_id="u", session_id=session.id, new_message=text)
    prompt = model.requests[-1].contents[0].parts[0].text or ""
    assert prompt.endswith("\n\nuser: a\nassistant: one\nuser: b\nassistant: two")
    stored = await runner.session_service.get_session(
        app_name="app", user_id="u", session_id=session.id
    )
    assert stored is not None
    compaction = stored.events[-1].actions.compaction
    assert compaction is not None
    assert compaction.compacted_content.parts[0].text == "The summary."
    assert config.summarizer is None  # the config the user gave is left as it was


class Failing(BaseLlm):
    model = "failing"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        raise RuntimeError("summary service down")
        yield LlmResponse()  # pragma: no cover


async def test_a_failing_summarizer_leaves_the_history_whole(
    caplog: pytest.LogCaptureFixture,
) -> None:
    agent = LlmAgent(name="a", model=ScriptedModel(turns=[{"text": "x", "repeat": True}]))
    config = EventsCompactionConfig(
        compaction_interval=1, overlap_size=0, summarizer=LlmEventSummarizer(Failing())
    )
    runner = Runner(app=App(name="app", root_agent=agent, events_compaction_config=config))
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    with caplog.at_level(logging.WARNING, logger="yadk.compaction"):
        events = runner.run(user_id="u", session_id=session.id, new_message="hi")
    assert [e.text for e in events] == ["hi", "x"]
    assert caplog.messages == [
        "Event compaction failed (RuntimeError: summary service down); the history stays"
        " uncompacted."
    ]


def test_long_tool_output_is_cut_in_the_summary_prompt() -> None:
    summarizer = LlmEventSummarizer(ScriptedModel())
    call = Event(
        author="a",
        content=Content(
            role="model",
            parts=[Part(function_call=FunctionCall(name="search", args={"q": "x" * 2100}))],
        ),
    )
    text = summarizer.format_events([call])
    assert text.startswith("a called tool: search({'q': 'xxx")
    assert text.endswith("... [truncated 109 chars])")


def test_the_summary_event_round_trips_as_json() -> None:
    event = Event(
        author="user",
        actions=EventActions(
            compaction=EventCompaction(
                start_timestamp=1.0,
                end_timestamp=2.5,
                compacted_content=Content(role="model", parts=[Part(text="sum")]),
            )
        ),
    )
    dumped = event.model_dump_json(exclude_none=True)
    assert '"compaction":{"start_timestamp":1.0,"end_timestamp":2.5' in dumped
    assert Event.model_validate_json(dumped) == event
    assert not event.actions.is_empty()


def test_the_docs_example_builds() -> None:
    text = (Path(__file__).parents[2] / "docs" / "apps.md").read_text(encoding="utf-8")
    section = text.split("## Event compaction", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict[str, Any] = {}
    exec(compile(code, "docs/apps.md", "exec"), namespace)
    config = namespace["runner"].app.events_compaction_config
    assert (config.compaction_interval, config.overlap_size) == (3, 1)
    assert config.summarizer.llm.model == "gemini-2.5-flash-lite"
    assert namespace["by_size"].event_retention_size == 4
