"""Gemini context caching against a fake Gemini API on loopback (fake_gemini_cache.py): caches
created, reused, renewed after ``cache_intervals`` invocations and after expiry, as google-adk
2.13 decides; the state kept on the session's model events (SQLite, read back)."""

from __future__ import annotations

import logging
import time
import types
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.models.fake_gemini_cache import FakeGemini, serve

from yadk import LlmAgent, Runner
from yadk.apps import App, ContextCacheConfig
from yadk.models import Gemini, ScriptedModel, override_allow_model_requests
from yadk.sessions import SqliteSessionService

POLICY = "Refunds within 30 days need the order number and a reason. " * 200


@pytest.fixture
def fake() -> Iterator[FakeGemini]:
    with override_allow_model_requests(True):
        yield from serve(FakeGemini())


def lookup(order_id: str) -> dict[str, str]:
    """Looks up an order."""
    return {"order_id": order_id}


def _runner(fake: FakeGemini, store: SqliteSessionService) -> Runner:
    model = Gemini("gemini-2.5-flash", base_url=fake.url, api_key="test-key", retries=0)
    agent = LlmAgent(name="desk", model=model, instruction=POLICY, tools=[lookup])
    config = ContextCacheConfig(cache_intervals=2, ttl_seconds=600, min_tokens=1000)
    return Runner(
        app=App(name="shop", root_agent=agent, context_cache_config=config),
        session_service=store,
    )


async def _ask(runner: Runner, session_id: str, text: str) -> None:
    async for event in runner.run_async(user_id="u", session_id=session_id, new_message=text):
        assert event.error_code is None, event.error_message


def _routes(fake: FakeGemini) -> list[str]:
    return [f"{c.method} {c.path.removeprefix('/v1beta/')}" for c in fake.calls]


async def test_caches_are_created_reused_and_renewed(
    fake: FakeGemini, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SqliteSessionService(tmp_path / "s.db")
    runner = _runner(fake, store)
    session = await store.create_session(app_name="shop", user_id="u")
    generate = "POST models/gemini-2.5-flash:generateContent"

    # The first call records the prefix's fingerprint only: nothing was measured yet.
    await _ask(runner, session.id, "q1")
    assert _routes(fake) == [generate]
    assert "systemInstruction" in fake.calls[0].body

    # The second finds the same prefix: caches it (the instruction, tools and first exchange)
    # and sends only what follows.
    await _ask(runner, session.id, "q2")
    assert _routes(fake)[1:] == ["POST cachedContents", generate]
    created = fake.calls[1].body
    assert created["model"] == "models/gemini-2.5-flash"
    assert created["ttl"] == "600s"
    assert created["systemInstruction"]["parts"][0]["text"].startswith("Refunds within 30 days")
    assert created["tools"][0]["functionDeclarations"][0]["name"] == "lookup"
    assert [c["parts"][0]["text"] for c in created["contents"]] == ["q1", "answer 1"]
    sent = fake.calls[2].body
    assert sent["cachedContent"] == "cachedContents/c1"
    assert "systemInstruction" not in sent and "tools" not in sent
    assert [c["parts"][0]["text"] for c in sent["contents"]] == ["q2"]

    # Reused while at most cache_intervals (2) invocations have used it.
    await _ask(runner, session.id, "q3")
    assert _routes(fake)[3:] == [generate]
    assert fake.calls[3].body["cachedContent"] == "cachedContents/c1"
    assert [c["parts"][0]["text"] for c in fake.calls[3].body["contents"]] == [
        "q2",
        "answer 2",
        "q3",
    ]

    # A third invocation renews it: the old cache deleted, a longer prefix cached.
    await _ask(runner, session.id, "q4")
    assert _routes(fake)[4:] == ["DELETE cachedContents/c1", "POST cachedContents", generate]
    assert len(fake.calls[5].body["contents"]) == 6
    assert fake.calls[6].body["cachedContent"] == "cachedContents/c2"
    assert list(fake.caches) == ["cachedContents/c2"]

    # After its time to live, a cache is replaced too.
    later = time.time() + 700
    monkeypatch.setattr("yadk.models._gemini_cache.time", types.SimpleNamespace(time=lambda: later))
    fake.skew = 700
    await _ask(runner, session.id, "q5")
    assert _routes(fake)[7:] == ["DELETE cachedContents/c2", "POST cachedContents", generate]
    assert fake.calls[9].body["cachedContent"] == "cachedContents/c3"
    await store.aclose()

    # The state rides on the model events, in the store.
    again = SqliteSessionService(tmp_path / "s.db")
    stored = await again.get_session(app_name="shop", user_id="u", session_id=session.id)
    assert stored is not None
    recorded = [e.cache_metadata for e in stored.events if e.author == "desk"]
    assert [m.cache_name if m else None for m in recorded] == [
        None,
        "cachedContents/c1",
        "cachedContents/c1",
        "cachedContents/c2",
        "cachedContents/c3",
    ]
    assert [m.invocations_used if m else None for m in recorded] == [None, 1, 2, 1, 1]
    assert [m.contents_count if m else None for m in recorded] == [0, 2, 2, 6, 8]
    await again.aclose()


async def test_a_cache_that_cannot_be_created_leaves_the_call_whole(
    fake: FakeGemini, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = SqliteSessionService(tmp_path / "s.db")
    runner = _runner(fake, store)
    session = await store.create_session(app_name="shop", user_id="u")
    await _ask(runner, session.id, "q1")
    original = fake.handle

    def refuse(method: str, path: str, body: object) -> tuple[int, dict[str, object]]:
        if path.endswith("/cachedContents"):
            return 403, {"error": {"code": 403, "message": "caching not allowed"}}
        return original(method, path, body)

    fake.handle = refuse  # type: ignore[method-assign]
    with caplog.at_level(logging.WARNING, logger="yadk.models.cache"):
        await _ask(runner, session.id, "q2")
    assert "systemInstruction" in fake.calls[-1].body
    assert "cachedContent" not in fake.calls[-1].body
    assert len(caplog.records) == 1
    assert caplog.messages[0].startswith("Failed to create cache: Gemini model 'gemini-2.5-flash'")
    await store.aclose()


def test_other_backends_are_named_in_one_warning_at_load(
    caplog: pytest.LogCaptureFixture,
) -> None:
    scripted = LlmAgent(name="helper", model=ScriptedModel(turns=[]))
    gemini = LlmAgent(name="desk", model="gemini-2.5-flash", sub_agents=[scripted])
    with caplog.at_level(logging.WARNING, logger="yadk.apps"):
        App(name="shop", root_agent=gemini, context_cache_config=ContextCacheConfig())
        App(name="shop", root_agent=gemini)
    assert caplog.messages == [
        "context_cache_config applies to Gemini models only; these agents' calls are not"
        " cached: helper (scripted)"
    ]


def test_the_docs_example_builds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (Path(__file__).parents[2] / "docs" / "apps.md").read_text(encoding="utf-8")
    code = text.split("## Context caching", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    (tmp_path / "policy.md").write_text(POLICY, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {}
    exec(compile(code, "docs/apps.md", "exec"), namespace)
    config = namespace["runner"].app.context_cache_config  # type: ignore[attr-defined]
    assert (config.cache_intervals, config.ttl_seconds, config.min_tokens) == (10, 1800, 4096)
