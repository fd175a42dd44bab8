"""Invocations always end, as google-adk 2.13 ends them.

Observed with google-adk 2.13.0 (the same trees, a free model, /opt/adkvenv):
- ``LoopAgent(sub_agents=[])`` returns at once with no events.
- ``max_llm_calls`` reached inside a ``LoopAgent`` without ``max_iterations``: the invocation
  ends (``LlmCallsLimitExceededError``); no model is called again.
- a sub-agent whose model raises ends a ``SequentialAgent``/``LoopAgent``: later agents never run.
- a model *answer* that carries an ``error_code`` (e.g. SAFETY) does not: the next agent runs.
yadk ends those invocations with one error event instead of an exception (``raise_errors=True``
raises), as for every other failure.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

import pytest

from yadk import LlmAgent, LoopAgent, ParallelAgent, Runner, SequentialAgent
from yadk.agents import RunConfig
from yadk.errors import ModelCallLimitError
from yadk.events import Event
from yadk.models import BaseLlm, LlmRequest, LlmResponse, ScriptedModel
from yadk.types import ModelContent


class Counting(BaseLlm):
    """Answers ``text`` (or fails, or answers with an error code) and counts its calls."""

    def __init__(self, text: str = "ok", *, fail: bool = False, error_code: str | None = None):
        self.model = "counting"
        self.text = text
        self.fail = fail
        self.error_code = error_code
        self.calls = 0

    async def generate_content_async(  # type: ignore[override]
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.calls += 1
        if self.fail:
            raise RuntimeError("backend down")
        if self.error_code:
            yield LlmResponse(error_code=self.error_code, error_message="blocked")
        else:
            yield LlmResponse(content=ModelContent(self.text))


async def run(agent: object, config: RunConfig | None = None) -> list[Event]:
    runner = Runner(app_name="app", agent=agent)  # type: ignore[arg-type]
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = runner.run_async(
        user_id="u", session_id=session.id, new_message="go", run_config=config
    )
    return [e async for e in events][1:]  # without the user's message


def errors(events: list[Event]) -> list[tuple[str, str | None]]:
    return [(e.author, e.error_code) for e in events if e.error_code]


async def test_empty_loop_returns_at_once() -> None:
    assert await asyncio.wait_for(run(LoopAgent(name="loop", sub_agents=[])), 5) == []


async def test_call_limit_ends_an_endless_loop_with_one_error_event() -> None:
    a1 = Counting()
    events = await asyncio.wait_for(
        run(
            LoopAgent(name="loop", sub_agents=[LlmAgent(name="a1", model=a1)]),
            RunConfig(max_llm_calls=5),
        ),
        10,
    )
    assert a1.calls == 5
    assert [e.text for e in events[:5]] == ["ok"] * 5
    assert errors(events) == [("a1", "MODEL_CALL_LIMIT")]
    assert events[-1].error_message == (
        "The invocation reached its limit of 5 model calls (RunConfig.max_llm_calls) when agent"
        " 'a1' asked for one more, so it ended. A tool the model keeps calling, or a LoopAgent"
        " without max_iterations whose agents never call exit_loop, usually causes this; if the"
        " task really needs more calls, raise RunConfig(max_llm_calls=...) (0 means no limit)."
    )


async def test_call_limit_ends_nested_agents_too() -> None:
    inner, after = Counting("inner"), Counting("after")
    tree = SequentialAgent(
        name="seq",
        sub_agents=[
            LoopAgent(
                name="outer",
                sub_agents=[
                    SequentialAgent(name="s", sub_agents=[LlmAgent(name="a1", model=inner)])
                ],
            ),
            LlmAgent(name="a2", model=after),
        ],
    )
    events = await asyncio.wait_for(run(tree, RunConfig(max_llm_calls=4)), 10)
    assert (inner.calls, after.calls) == (4, 0)
    assert errors(events) == [("a1", "MODEL_CALL_LIMIT")]


async def test_call_limit_in_parallel_branches_is_one_error_event() -> None:
    def looping(name: str) -> LoopAgent:
        return LoopAgent(name=f"loop_{name}", sub_agents=[LlmAgent(name=name, model=Counting())])

    tree = ParallelAgent(name="par", sub_agents=[looping("b1"), looping("b2")])
    events = await asyncio.wait_for(run(tree, RunConfig(max_llm_calls=6)), 10)
    assert len([e for e in events if e.text == "ok"]) == 6
    assert [code for _, code in errors(events)] == ["MODEL_CALL_LIMIT"]


@pytest.mark.parametrize("workflow", [SequentialAgent, LoopAgent])
async def test_a_failing_model_ends_the_workflow(workflow: type) -> None:
    broken, next_one = Counting(fail=True), Counting()
    tree = workflow(
        name="wf",
        sub_agents=[LlmAgent(name="a1", model=broken), LlmAgent(name="a2", model=next_one)],
    )
    events = await asyncio.wait_for(run(tree), 10)
    assert (broken.calls, next_one.calls) == (1, 0)
    assert errors(events) == [("a1", "MODEL_ERROR")]
    assert "backend down" in (events[-1].error_message or "")


async def test_an_exhausted_script_ends_the_sequence() -> None:
    scripted = ScriptedModel(turns=[])
    later = Counting()
    tree = SequentialAgent(
        name="wf",
        sub_agents=[LlmAgent(name="a1", model=scripted), LlmAgent(name="a2", model=later)],
    )
    events = await run(tree)
    assert errors(events) == [("a1", "MODEL_ERROR")] and later.calls == 0


async def test_an_answer_with_an_error_code_does_not_end_the_sequence() -> None:
    blocked, next_one = Counting(error_code="SAFETY"), Counting("next")
    tree = SequentialAgent(
        name="wf",
        sub_agents=[LlmAgent(name="a1", model=blocked), LlmAgent(name="a2", model=next_one)],
    )
    events = await run(tree)
    assert [(e.author, e.error_code, e.text) for e in events] == [
        ("a1", "SAFETY", ""),
        ("a2", None, "next"),
    ]


async def test_raise_errors_raises_the_limit() -> None:
    loop = LoopAgent(name="loop", sub_agents=[LlmAgent(name="a1", model=Counting())])
    with pytest.raises(ModelCallLimitError):
        await run(loop, RunConfig(max_llm_calls=2, raise_errors=True))


def test_default_limit_is_google_adks() -> None:
    assert RunConfig().max_llm_calls == 500
