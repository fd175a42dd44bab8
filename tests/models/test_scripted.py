"""ScriptedModel: turns in order, ``when`` and ``agent`` filters, delays, files, exhaustion."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from yadk.errors import ModelError
from yadk.models import LlmRequest, LlmResponse, ScriptedModel
from yadk.types import Content, ModelContent, Part, UserContent


def request(*texts: str, agent: str = "agent") -> LlmRequest:
    return LlmRequest(agent_name=agent, contents=[UserContent(t) for t in texts])


async def answer(model: ScriptedModel, llm_request: LlmRequest) -> LlmResponse:
    [response] = [r async for r in model.generate_content_async(llm_request)]
    return response


async def test_turns_play_in_order_with_text_and_calls() -> None:
    model = ScriptedModel(
        [
            {"text": "Hi! Your name?"},
            {
                "text": "Saving.",
                "function_calls": [
                    {"name": "remember", "args": {"name": "Alex"}},
                    {"name": "noop"},
                ],
            },
        ]
    )
    first = await answer(model, request("hello"))
    second = await answer(model, request("Alex"))
    assert first == LlmResponse(content=ModelContent("Hi! Your name?"), turn_complete=True)
    assert second.content == ModelContent(
        [
            Part(text="Saving."),
            Part.from_function_call(name="remember", args={"name": "Alex"}),
            Part.from_function_call(name="noop", args={}),
        ]
    )
    assert model.remaining == 0


async def test_when_matches_the_latest_user_text() -> None:
    model = ScriptedModel(
        [
            {"when": "(?i)review", "text": "Reviewing."},
            {"text": "Anything else."},
        ]
    )
    # The first unused turn whose `when` matches: "hello" skips the review turn.
    assert (await answer(model, request("hello"))).content == ModelContent("Anything else.")
    tool_turn = request("Please REVIEW this")
    tool_turn.contents.append(
        Content(role="user", parts=[Part.from_function_response(name="t", response={"ok": 1})])
    )
    # Function responses are not user text: the latest user words are still "Please REVIEW".
    assert (await answer(model, tool_turn)).content == ModelContent("Reviewing.")


async def test_when_ignores_the_dynamic_instruction_block() -> None:
    model = ScriptedModel([{"when": "^order 66$", "text": "ok"}])
    llm_request = request("order 66")
    llm_request.contents.append(
        UserContent(
            "The text between <<<BEGIN_SYSTEM_INSTRUCTION>>> and <<<END_SYSTEM_INSTRUCTION>>>"
            " below is your own system instruction"
        )
    )
    assert (await answer(model, llm_request)).content == ModelContent("ok")


async def test_agent_filter() -> None:
    model = ScriptedModel(
        [
            {"agent": "reviewer", "text": "from reviewer"},
            {"agent": "greeter", "text": "from greeter"},
        ]
    )
    assert (await answer(model, request("x", agent="greeter"))).content == ModelContent(
        "from greeter"
    )
    assert (await answer(model, request("x", agent="reviewer"))).content == ModelContent(
        "from reviewer"
    )


async def test_delay_is_awaited_without_blocking_the_loop() -> None:
    # A minute's delay: had it blocked the loop, both calls would be done (a minute later)
    # before this coroutine ran again.
    model = ScriptedModel([{"text": "slow", "delay": 60}, {"text": "also slow", "delay": 60}])
    calls = [asyncio.ensure_future(answer(model, request(x))) for x in "ab"]
    for _ in range(10):
        await asyncio.sleep(0)
    assert [c.done() for c in calls] == [False, False]
    for c in calls:
        c.cancel()
    await asyncio.gather(*calls, return_exceptions=True)
    quick = ScriptedModel([{"text": "soon", "delay": 0.001}])
    assert content_text(await answer(quick, request("c"))) == "soon"


def content_text(response: LlmResponse) -> str:
    assert response.content is not None
    return "".join(p.text or "" for p in response.content.parts)


async def test_exhausted_script() -> None:
    model = ScriptedModel([{"text": "one"}, {"when": "never", "text": "two"}], name="demo")
    await answer(model, request("first"))
    with pytest.raises(ModelError) as caught:
        await answer(model, request("second message", agent="helper"))
    assert caught.value.message == (
        "demo: script exhausted: 1 of 2 turns used and none of the rest matches agent 'helper'"
        " and the user message 'second message'. Add a turn to the script (or check its"
        " 'when:'/'agent:' filters)."
    )


async def test_requests_are_recorded_and_reset() -> None:
    model = ScriptedModel([{"text": "a"}, {"text": "b"}])
    first, second = request("one"), request("two")
    await answer(model, first)
    await answer(model, second)
    assert model.requests == [first, second]
    model.reset()
    assert model.requests == []
    assert model.remaining == 2


def test_invalid_turns_in_python() -> None:
    with pytest.raises(ModelError) as caught:
        ScriptedModel([{"txt": "typo"}])
    assert caught.value.message == (
        "Invalid scripted model turns: turn 1: txt: Extra inputs are not permitted"
    )


@pytest.mark.parametrize(
    "name, text",
    [
        ("turns.yaml", "turns:\n  - text: Hello\n  - function_calls: [{name: f, args: {x: 1}}]\n"),
        (
            "turns.json",
            '{"turns": [{"text": "Hello"}, {"function_calls": [{"name": "f", "args": {"x": 1}}]}]}',
        ),
    ],
)
async def test_from_file(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    model = ScriptedModel.from_file(path)
    assert model.model == f"scripted:{path}"
    assert (await answer(model, request("hi"))).content == ModelContent("Hello")
    assert (await answer(model, request("go"))).content == ModelContent(
        [Part.from_function_call(name="f", args={"x": 1})]
    )


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "- text: hi\n",
            "{path} must be a mapping with a 'turns:' list, e.g. 'turns: [{{text: Hello}}]'.",
        ),
        (
            "turns: 3\n",
            "{path} must be a mapping with a 'turns:' list, e.g. 'turns: [{{text: Hello}}]'.",
        ),
        ("", "{path} must be a mapping with a 'turns:' list, e.g. 'turns: [{{text: Hello}}]'."),
        (
            "turns:\n  - txt: hi\n",
            "{path}: Invalid scripted model turns: turn 1: txt: Extra inputs are not permitted",
        ),
        (
            "turns:\n  - when: '(unclosed'\n    text: x\n",
            (
                "{path}: Invalid scripted model turns: turn 1: when: 'when' is not a valid"
                " regular expression: missing ), unterminated subpattern at position 0"
            ),
        ),
        (
            "turns:\n  - function_calls: [{args: {}}]\n",
            "{path}: Invalid scripted model turns: turn 1: function_calls.0.name: Field required",
        ),
        (
            "turns:\n  - delay: soon\n",
            (
                "{path}: Invalid scripted model turns: turn 1: delay: Input should be a valid number, unable"
                " to parse string as a number"
            ),
        ),
    ],
    ids=[
        "list",
        "turns-not-list",
        "empty-file",
        "unknown-key",
        "bad-regex",
        "call-without-name",
        "bad-delay",
    ],
)
def test_from_file_errors(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "script.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ModelError) as caught:
        ScriptedModel.from_file(path)
    message = caught.value.message
    if expected.startswith("{path}:"):
        assert message == expected.format(path=path)
    else:
        assert message == "Scripted model file " + expected.format(path=path)


def test_from_file_unreadable_and_invalid_yaml(tmp_path: Path) -> None:
    missing = tmp_path / "missing.yaml"
    with pytest.raises(ModelError) as caught:
        ScriptedModel.from_file(missing)
    assert caught.value.message == (
        f"Cannot read scripted model file {missing}: No such file or directory"
    )
    broken = tmp_path / "broken.yaml"
    broken.write_text("turns: [a\n", encoding="utf-8")
    with pytest.raises(ModelError) as caught:
        ScriptedModel.from_file(broken)
    assert caught.value.message == (
        f"{broken}:2:1: scripted model file is not valid YAML: expected ',' or ']', but got"
        " '<stream end>'"
    )


def test_turn_validation_shapes() -> None:
    data: dict[str, Any] = {"text": "t", "function_calls": [], "when": None, "agent": None}
    model = ScriptedModel([data])
    assert model.turns[0].delay == 0.0
    assert model.turns[0].to_content() == ModelContent("t")
