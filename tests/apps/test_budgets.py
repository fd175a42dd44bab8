"""Token budgets: limits checked before each model call, usage kept on the session."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from yadk import Runner
from yadk._usage import session_usage
from yadk.agents import LlmAgent, ParallelAgent, RunConfig
from yadk.apps import App, Budget, ModelPrice
from yadk.errors import BudgetExceededError
from yadk.events import Event
from yadk.models import BaseLlm, LlmRequest, LlmResponse, ScriptedModel
from yadk.sessions import SqliteSessionService
from yadk.types import Content, FunctionCall, Part


class Looping(BaseLlm):
    """A model that calls ``ping`` forever, reporting ``usage`` (or nothing) for each call."""

    def __init__(self, usage: dict[str, int] | None, *, model: str = "looping") -> None:
        self.model = model
        self.usage = usage
        self.calls = 0

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        self.calls += 1
        call = Part(function_call=FunctionCall(name="ping", args={}))
        yield LlmResponse(content=Content(role="model", parts=[call]), usage_metadata=self.usage)


def ping() -> dict[str, Any]:
    """Check again."""
    return {"status": "not yet"}


USAGE = {"prompt_token_count": 70, "candidates_token_count": 30, "total_token_count": 100}


async def _run(runner: Runner, session_id: str, **kw: Any) -> list[Event]:
    return [
        e
        async for e in runner.run_async(user_id="u", session_id=session_id, new_message="go", **kw)
    ]


async def _runner(model: BaseLlm, budget: Budget | None, **kw: Any) -> tuple[Runner, str]:
    agent = LlmAgent(name="poller", model=model, tools=[ping])
    runner = Runner(app=App(name="app", root_agent=agent, budget=budget), **kw)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    return runner, session.id


def _errors(events: list[Event]) -> list[tuple[str | None, str | None]]:
    return [(e.error_code, e.error_message) for e in events if e.error_code]


async def test_the_invocation_limit_stops_before_the_call_that_would_cross_it() -> None:
    model = Looping(USAGE)
    runner, sid = await _runner(model, Budget(max_tokens_per_invocation=300))

    events = await _run(runner, sid)

    assert model.calls == 3
    assert _errors(events) == [
        (
            "BUDGET_EXCEEDED",
            "Token budget reached: this invocation used 300 tokens, its limit is 300"
            " (Budget.max_tokens_per_invocation); it ended before the next model call (agent"
            " 'poller' was about to call model 'looping'). Raise the limit if the task needs"
            " more, or look for a tool the model keeps calling.",
        )
    ]
    assert events[-1].author == "poller"


async def test_a_backend_without_usage_is_estimated_and_said_so() -> None:
    model = Looping(None)
    runner, sid = await _runner(model, Budget(max_tokens_per_invocation=50))

    events = await _run(runner, sid)

    records = [e.custom_metadata["yadk_usage"] for e in events if e.custom_metadata]
    assert records and all(r["estimated"] for r in records)
    assert all(r["input_tokens"] > 0 and r["output_tokens"] > 0 for r in records)
    assert records[-1]["invocation_tokens"] >= 50
    assert _errors(events)[0][0] == "BUDGET_EXCEEDED"
    usage = session_usage(events)
    assert usage.estimated
    assert usage.describe()[0].endswith("(estimated in part)")


async def test_the_session_limit_counts_earlier_invocations_read_back_from_sqlite(
    tmp_path: Path,
) -> None:
    db = tmp_path / "sessions.db"
    budget = Budget(max_tokens_per_session=250)
    runner, sid = await _runner(
        Looping(USAGE), budget, session_service=SqliteSessionService(str(db))
    )
    first = await _run(runner, sid)
    assert _errors(first)[0][1] is not None
    assert _errors(first)[0][1].startswith(  # type: ignore[union-attr]
        "Token budget reached: this session used 300 tokens, its limit is 250"
    )

    # A new process (a new runner on the same file): the session is spent, no call is sent.
    model = Looping(USAGE)
    again, _ = await _runner(model, budget, session_service=SqliteSessionService(str(db)))
    second = await _run(again, sid)
    assert model.calls == 0
    assert [e.error_code for e in second] == [None, "BUDGET_EXCEEDED"]
    session = await again.session_service.get_session(app_name="app", user_id="u", session_id=sid)
    assert session is not None
    usage = session_usage(session.events)
    assert [i.total_tokens for i in usage.invocations] == [300]
    assert usage.total_tokens == 300


async def test_usage_reported_without_a_budget_counts_toward_a_later_one() -> None:
    model = Looping(USAGE)
    agent = LlmAgent(name="poller", model=model, tools=[ping])
    runner = Runner(app_name="app", agent=agent)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = await _run(runner, session.id, run_config=RunConfig(max_llm_calls=2))
    assert all(not e.custom_metadata for e in events)  # no budget, nothing recorded
    calls = model.calls

    limited = RunConfig(budget=Budget(max_tokens_per_session=200))
    events = await _run(runner, session.id, run_config=limited)

    assert model.calls == calls  # 2 x 100 reported tokens already: no call
    assert _errors(events)[0][1].startswith(  # type: ignore[union-attr]
        "Token budget reached: this session used 200 tokens, its limit is 200"
    )


async def test_max_cost_prices_each_model_and_stops_at_the_limit() -> None:
    model = Looping(USAGE, model="m-1")
    prices = {"m-1": ModelPrice(input_per_million=1000, output_per_million=2000)}
    # 70 in + 30 out = 0.07 + 0.06 = 0.13 a call: after four calls 0.52 >= 0.5.
    runner, sid = await _runner(model, Budget(max_cost=0.5, prices=prices))

    events = await _run(runner, sid)

    assert model.calls == 4
    assert _errors(events) == [
        (
            "BUDGET_EXCEEDED",
            "Cost budget reached: this session cost 0.52, its limit is 0.5 (Budget.max_cost);"
            " the invocation ended before the next model call (agent 'poller' was about to call"
            " model 'm-1'). Start a new session or raise the limit.",
        )
    ]
    usage = session_usage(events)
    assert usage.cost == pytest.approx(0.52)
    assert usage.describe() == [
        "session: 400 tokens (280 in, 120 out), cost 0.52",
        f"  #1 {events[0].invocation_id}: 4 model calls, 400 tokens (280 in, 120 out), cost 0.52",
    ]


async def test_max_cost_without_a_price_for_the_model_says_how_to_add_one() -> None:
    model = Looping(USAGE, model="m-2")
    prices = {"m-1": ModelPrice(input_per_million=1, output_per_million=1)}
    runner, sid = await _runner(model, Budget(max_cost=1, prices=prices))

    events = await _run(runner, sid)

    assert model.calls == 0
    assert _errors(events) == [
        (
            "BUDGET_EXCEEDED",
            "Budget.max_cost is set but Budget.prices has no price for model 'm-2' (priced:"
            " m-1), so the cost of the call cannot be counted; agent 'poller' was about to call"
            " model 'm-2'. Add prices={'m-2': ModelPrice(input_per_million=...,"
            " output_per_million=...)}, or a '*' price for every other model.",
        )
    ]


async def test_a_star_price_prices_every_other_model() -> None:
    model = Looping(USAGE, model="anything")
    star = {"*": ModelPrice(input_per_million=0, output_per_million=10_000)}
    runner, sid = await _runner(model, Budget(max_cost=0.6, prices=star))
    await _run(runner, sid)
    assert model.calls == 2  # 0.3 a call


async def test_the_run_config_budget_replaces_the_apps() -> None:
    model = Looping(USAGE)
    runner, sid = await _runner(model, Budget(max_tokens_per_invocation=100))
    events = await _run(
        runner, sid, run_config=RunConfig(budget=Budget(max_tokens_per_invocation=500))
    )
    assert model.calls == 5
    assert _errors(events)[0][1].startswith(  # type: ignore[union-attr]
        "Token budget reached: this invocation used 500 tokens"
    )


async def test_raise_errors_raises_the_budget_error() -> None:
    budget = Budget(max_tokens_per_invocation=100)
    runner, sid = await _runner(Looping(USAGE), None)
    with pytest.raises(BudgetExceededError, match="this invocation used 100 tokens"):
        await _run(runner, sid, run_config=RunConfig(raise_errors=True, budget=budget))


async def test_parallel_branches_share_one_budget_and_end_with_one_error() -> None:
    left, right = Looping(USAGE), Looping(USAGE)
    agent = ParallelAgent(
        name="both",
        sub_agents=[
            LlmAgent(name="left", model=left, tools=[ping]),
            LlmAgent(name="right", model=right, tools=[ping]),
        ],
    )
    budget = Budget(max_tokens_per_invocation=400)
    runner = Runner(app=App(name="app", root_agent=agent, budget=budget))
    session = await runner.session_service.create_session(app_name="app", user_id="u")

    events = await _run(runner, session.id)

    assert left.calls + right.calls == 4
    assert [code for code, _ in _errors(events)] == ["BUDGET_EXCEEDED"]


async def test_no_budget_records_nothing_and_a_text_answer_is_free_of_metadata() -> None:
    agent = LlmAgent(name="helper", model=ScriptedModel(turns=[{"text": "hi"}]))
    runner = Runner(app_name="app", agent=agent)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = await _run(runner, session.id)
    assert [e.custom_metadata for e in events] == [None, None]
    assert session_usage(events).invocations == []


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_tokens_per_invocation": 0},
        {"max_tokens_per_session": -1},
        {"max_cost": 0},
        {"max_tokens": 5},
        {"prices": {"m": {"input_per_million": -1, "output_per_million": 1}}},
    ],
    ids=["zero-invocation", "negative-session", "zero-cost", "unknown-key", "negative-price"],
)
def test_budget_fields_are_checked(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        Budget(**kwargs)


def test_the_docs_example_builds() -> None:
    text = (Path(__file__).parents[2] / "docs" / "apps.md").read_text(encoding="utf-8")
    section = text.split("## Token budgets", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict[str, Any] = {}
    exec(compile(code, "docs/apps.md", "exec"), namespace)
    assert namespace["runner"].app.budget.max_cost == 0.5
    assert namespace["one_off"].budget.max_tokens_per_invocation == 5_000


def test_an_estimate_counts_four_characters_a_token_and_is_stable() -> None:
    from yadk._usage import call_usage
    from yadk.types import ModelContent, UserContent

    history = [UserContent("12345678"), ModelContent("abcdefgh")]
    request = LlmRequest(system_instruction="abcd", contents=history)
    response = LlmResponse(content=ModelContent("xyz"))
    first = call_usage(request, response)
    history.append(UserContent("1234"))  # the next call: one content more, the rest measured
    second = call_usage(request, response)
    assert (first.input_tokens, first.output_tokens, first.estimated) == (5, 1, True)
    assert (second.input_tokens, second.output_tokens) == (6, 1)
