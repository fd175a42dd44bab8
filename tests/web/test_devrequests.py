"""The Request panel's data: what each model call of a turn received, and its token usage."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

from yadk import LlmAgent, Runner
from yadk.config import load_agent_with_sources
from yadk.models import BaseLlm, LlmRequest, LlmResponse
from yadk.serve._devrequests import RequestRecorder, instruction_segments
from yadk.sessions import InMemorySessionService
from yadk.types import ModelContent


async def _turn(runner: Runner, session_id: str, text: str) -> None:
    async for _ in runner.run_async(user_id="u", session_id=session_id, new_message=text):
        pass


async def test_every_model_call_of_a_turn_is_recorded_as_sent(desk: Path) -> None:
    loaded = load_agent_with_sources(desk)
    recorder = RequestRecorder()
    recorder.instrument(loaded.agent)
    recorder.instrument(loaded.agent)  # idempotent: one record per call, not two
    runner = Runner(app_name="desk", agent=loaded.agent, session_service=InMemorySessionService())
    session = await runner.session_service.create_session(app_name="desk", user_id="u")

    await _turn(runner, session.id, "hello, my name is Ada")

    [brief] = recorder.invocations("desk", "u", session.id)
    assert [(c["index"], c["model"], c["contents"]) for c in brief["calls"]] == [
        (1, "scripted:scripted.yaml", 2),  # the message and the instruction block
        (2, "scripted:scripted.yaml", 4),  # plus the tool call and its result
    ]
    assert "request" not in brief["calls"][0]
    turn = recorder.invocation("desk", "u", session.id, brief["invocationId"])
    assert turn is not None
    assert [c["index"] for c in turn["calls"]] == [1, 2]  # the tool call, then the answer
    first, second = turn["calls"]
    assert first["agent"] == "desk"
    request = first["request"]
    assert request["model"] == "scripted:scripted.yaml"
    assert {t["name"] for t in request["tools"]} >= {"remember_visitor", "load_skill"}
    assert first["systemSegments"][0] == {
        "kind": "static",
        "text": "You work at the front desk of the Lighthouse Library.",
    }
    assert all(s["kind"] == "dynamic" for s in first["systemSegments"][1:])
    # The templated instruction travels in contents, in a marked block, before the user's turn.
    [marked] = first["dynamicContentIndexes"]
    assert "The visitor is called ." in request["contents"][marked]["parts"][0]["text"]
    assert request["contents"][-1] == {"role": "user", "parts": [{"text": "hello, my name is Ada"}]}
    # The second call sees the tool's result and the state it wrote.
    contents = second["request"]["contents"]
    assert contents[-2]["parts"][0]["function_response"]["name"] == "remember_visitor"
    assert second["dynamicContentIndexes"] == [len(contents) - 1]
    assert (
        "The visitor is called Ada."
        in contents[second["dynamicContentIndexes"][0]]["parts"][0]["text"]
    )
    assert turn["tempState"] == {"temp:last_tool": "remember_visitor"}
    assert recorder.invocations("desk", "u", "other") == []


class _Counting(BaseLlm):
    model = "counting"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        yield LlmResponse(
            content=ModelContent("ok"),
            usage_metadata={"prompt_token_count": 12, "candidates_token_count": 1},
        )


async def test_usage_is_the_models_own_and_a_callback_answer_is_not_a_model_call() -> None:
    def answer_for_the_model(callback_context: object, llm_request: LlmRequest) -> LlmResponse:
        return LlmResponse(content=ModelContent("from a callback"))

    agent = LlmAgent(name="a", model=_Counting(), instruction="Say ok.")
    blocked = LlmAgent(name="b", model=_Counting(), before_model_callback=answer_for_the_model)
    recorder = RequestRecorder(keep=2)
    for root in (agent, blocked):
        recorder.instrument(root)
    sessions = InMemorySessionService()
    runner = Runner(app_name="app", agent=agent, session_service=sessions)
    session = await sessions.create_session(app_name="app", user_id="u")
    for text in ("one", "two", "three"):
        await _turn(runner, session.id, text)
    briefs = recorder.invocations("app", "u", session.id)
    assert len(briefs) == 2  # keep=2: the oldest turn was dropped
    turns = [recorder.invocation("app", "u", session.id, b["invocationId"]) for b in briefs]
    assert recorder.invocation("app", "u", session.id, "e-unknown") is None
    assert briefs[-1]["calls"][0]["usage"] == {
        "prompt_token_count": 12,
        "candidates_token_count": 1,
    }
    assert turns[-1] is not None
    assert turns[-1]["calls"][0]["usage"] == {"prompt_token_count": 12, "candidates_token_count": 1}
    assert turns[-1]["calls"][0]["request"]["contents"][-1]["parts"] == [{"text": "three"}]
    assert turns[-1]["calls"][0]["systemSegments"] == [
        {"kind": "dynamic", "text": 'Say ok.\n\nYou are an agent. Your internal name is "a".'}
    ]

    runner_b = Runner(app_name="app", agent=blocked, session_service=sessions)
    other = await sessions.create_session(app_name="app", user_id="u")
    await _turn(runner_b, other.id, "hi")
    assert recorder.invocations("app", "u", other.id) == []


def test_instruction_segments() -> None:
    assert instruction_segments("", "") == []
    assert instruction_segments("G\n\nS\n\nI", "S") == [
        {"kind": "dynamic", "text": "G\n\n"},
        {"kind": "static", "text": "S"},
        {"kind": "dynamic", "text": "\n\nI"},
    ]
    assert instruction_segments("only", "missing") == [{"kind": "dynamic", "text": "only"}]
