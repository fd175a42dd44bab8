"""A token budget stops an endless tool loop on every REST backend, counting what each reports."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from yadk import LlmAgent, Runner
from yadk.agents import RunConfig
from yadk.apps import Budget, ModelPrice
from yadk.events import Event

if TYPE_CHECKING:
    from tests.models.conftest import FakeServer


def ping() -> dict[str, Any]:
    """Check again."""
    return {"status": "not yet"}


def _gemini(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> tuple[str, dict[str, Any]]:
    monkeypatch.setenv("YADK_GEMINI_BASE_URL", server.url)
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    reply = {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"functionCall": {"name": "ping"}}]},
                "finishReason": "STOP",
            }
        ],
        "usageMetadata": {
            "promptTokenCount": 80,
            "candidatesTokenCount": 20,
            "totalTokenCount": 100,
        },
    }
    return "gemini-2.5-flash", reply


def _openai(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> tuple[str, dict[str, Any]]:
    monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/v1")
    call = {"id": "c1", "type": "function", "function": {"name": "ping", "arguments": "{}"}}
    reply = {
        "choices": [
            {
                "message": {"role": "assistant", "content": None, "tool_calls": [call]},
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 80, "completion_tokens": 20, "total_tokens": 100},
    }
    return "openai:llama3", reply


def _anthropic(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> tuple[str, dict[str, Any]]:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    reply = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "ping", "input": {}}],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 80, "output_tokens": 20},
    }
    return "anthropic:claude-sonnet-4-5", reply


BACKENDS = {"gemini": _gemini, "openai": _openai, "anthropic": _anthropic}


async def _loop(model: str, budget: Budget) -> list[Event]:
    agent = LlmAgent(name="poller", model=model, instruction="Poll until done.", tools=[ping])
    runner = Runner(app_name="app", agent=agent, run_config=RunConfig(budget=budget))
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    return [e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="go")]


@pytest.mark.parametrize("backend", sorted(BACKENDS))
async def test_a_budget_ends_an_endless_tool_loop_before_the_next_call(
    backend: str, server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    model, reply = BACKENDS[backend](server, monkeypatch)
    for _ in range(10):  # the model would call the tool forever
        server.reply(reply)

    events = await _loop(model, Budget(max_tokens_per_invocation=350))

    # 100 tokens a call: after the fourth call the invocation has used 400 >= 350, so the
    # fifth call is never sent.
    assert len(server.requests) == 4
    errors = [e for e in events if e.error_code]
    assert [e.error_code for e in errors] == ["BUDGET_EXCEEDED"]
    assert errors[0] is events[-1]
    assert errors[0].error_message is not None
    assert errors[0].error_message.startswith(
        "Token budget reached: this invocation used 400 tokens, its limit is 350"
        " (Budget.max_tokens_per_invocation); it ended before the next model call"
        f" (agent 'poller' was about to call model {model.split(':')[-1]!r})."
    )
    records = [e.custom_metadata["yadk_usage"] for e in events if e.custom_metadata]
    assert [(r["input_tokens"], r["output_tokens"], r["estimated"]) for r in records] == [
        (80, 20, False)
    ] * 4
    assert [r["invocation_tokens"] for r in records] == [100, 200, 300, 400]


@pytest.mark.parametrize("backend", sorted(BACKENDS))
async def test_session_and_cost_limits_end_the_loop_on_every_backend(
    backend: str, server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    model, reply = BACKENDS[backend](server, monkeypatch)
    name = model.split(":")[-1]
    for _ in range(10):
        server.reply(reply)
    # 80 in + 20 out at 1,000 and 5,000 a million tokens: 0.18 a call. The session limit (250
    # tokens) stops the loop after three calls, before the cost limit (0.6, four calls) would.
    price = ModelPrice(input_per_million=1000, output_per_million=5000)
    budget = Budget(max_tokens_per_session=250, max_cost=0.6, prices={name: price})
    events = await _loop(model, budget)
    assert len(server.requests) == 3
    [error] = [e for e in events if e.error_code]
    assert error.error_code == "BUDGET_EXCEEDED"
    assert error.error_message is not None
    assert error.error_message.startswith(
        "Token budget reached: this session used 300 tokens, its limit is 250"
        " (Budget.max_tokens_per_session)"
    )
    records = [e.custom_metadata["yadk_usage"] for e in events if e.custom_metadata]
    assert [round(r["session_cost"], 6) for r in records] == [0.18, 0.36, 0.54]

    for _ in range(10):
        server.reply(reply)
    cost_only = Budget(max_cost=0.5, prices={name: price})
    events = await _loop(model, cost_only)
    [error] = [e for e in events if e.error_code]
    assert error.error_message is not None
    assert error.error_message.startswith(
        "Cost budget reached: this session cost 0.54, its limit is 0.5 (Budget.max_cost)"
    )
    assert len(server.requests) == 6  # three more calls: 0.54 >= 0.5 stops the fourth


async def test_a_backend_that_reports_no_usage_is_estimated_and_still_stopped(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    model, reply = _openai(server, monkeypatch)
    del reply["usage"]  # some OpenAI-compatible servers report nothing
    for _ in range(30):
        server.reply(reply)
    events = await _loop(model, Budget(max_tokens_per_invocation=120))
    records = [e.custom_metadata["yadk_usage"] for e in events if e.custom_metadata]
    assert records and all(r["estimated"] for r in records)
    assert len(server.requests) == len(records) < 30
    assert records[-1]["invocation_tokens"] >= 120 > records[-2]["invocation_tokens"]
    [error] = [e for e in events if e.error_code]
    assert error.error_code == "BUDGET_EXCEEDED"
