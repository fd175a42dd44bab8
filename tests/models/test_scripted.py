"""ScriptedModel: turns in order, ``when`` and ``agent`` filters, delays, files, exhaustion."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from yadk.config import validate_paths
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
    assert first == LlmResponse(content=ModelContent("Hi! Your name?"))
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
        ScriptedModel([{"txt": "typo"}, {"text": "ok"}, {"delay": "soon"}])
    assert caught.value.message == (
        "Invalid scripted model turns: turn 1: Unknown key `txt` in a scripted turn. Did you mean"
        " `text`?; turn 3: `delay` must be a number of seconds. See the scripted model format in"
        " docs/models.md."
    )


# (file text, line, column, rule, message, hint): the same problem, worded alike by a run
# (ScriptedModel.from_file) and by `yadk validate` (the config naming the file).
_FORMAT = "See the scripted model format in docs/models.md."
BAD_SCRIPTS = [
    (
        "- text: hi\n",
        1,
        1,
        "scripted-invalid",
        "A scripted model file must be a mapping with a `turns:` list.",
        "For example `turns: [{text: Hello}]`. " + _FORMAT,
    ),
    (
        "turns: 3\n",
        1,
        1,
        "scripted-invalid",
        "A scripted model file must be a mapping with a `turns:` list.",
        "For example `turns: [{text: Hello}]`. " + _FORMAT,
    ),
    (
        "turns: []\nturn: []\n",
        2,
        1,
        "unknown-key",
        "Unknown key `turn` in a scripted model file.",
        "Did you mean `turns`?",
    ),
    (
        "turns:\n  - txt: hi\n",
        2,
        5,
        "unknown-key",
        "Unknown key `txt` in a scripted turn.",
        "Did you mean `text`?",
    ),
    (
        "turns:\n  - when: '(unclosed'\n    text: x\n",
        2,
        11,
        "scripted-invalid",
        "`when` is not a valid regular expression: missing ), unterminated subpattern at"
        " position 0.",
        _FORMAT,
    ),
    (
        "turns:\n  - function_calls: [{args: {}}]\n",
        2,
        22,
        "missing-field",
        "A function call needs a `name` (a string).",
        _FORMAT,
    ),
    (
        "turns:\n  - function_calls: [{name: f, args: [1]}]\n",
        2,
        38,
        "wrong-type",
        "`args` must be a mapping with string keys.",
        _FORMAT,
    ),
    (
        "turns:\n  - delay: soon\n",
        2,
        12,
        "wrong-type",
        "`delay` must be a number of seconds.",
        _FORMAT,
    ),
    ("turns:\n  - text: 3\n", 2, 11, "wrong-type", "`text` must be a string.", _FORMAT),
    (
        "turns:\n  - hello\n",
        2,
        5,
        "scripted-invalid",
        "A turn must be a mapping such as `{text: Hello}`.",
        _FORMAT,
    ),
    (
        "turns:\n  - parts:\n      - {executable_cod: {}}\n",
        3,
        9,
        "scripted-invalid",
        "Not a part: executable_cod: Extra inputs are not permitted.",
        "A part is google-genai's shape, e.g. `{text: Hi}` or"
        " `{executable_code: {code: print(1), language: PYTHON}}`.",
    ),
]
BAD_SCRIPT_IDS = [
    "list",
    "turns-not-list",
    "unknown-top-key",
    "unknown-turn-key",
    "bad-regex",
    "call-without-name",
    "args-not-mapping",
    "bad-delay",
    "text-not-string",
    "turn-not-mapping",
    "bad-part",
]


@pytest.mark.parametrize(
    ("text", "line", "column", "rule", "message", "hint"), BAD_SCRIPTS, ids=BAD_SCRIPT_IDS
)
def test_a_bad_script_reads_alike_at_load_and_in_validate(
    tmp_path: Path, text: str, line: int, column: int, rule: str, message: str, hint: str
) -> None:
    script = tmp_path / "turns.yaml"
    script.write_text(text, encoding="utf-8")
    with pytest.raises(ModelError) as caught:
        ScriptedModel.from_file(script)
    assert caught.value.message == f"{script}:{line}:{column}: {message} {hint}"

    config = tmp_path / "root_agent.yaml"
    config.write_text("name: a\ninstruction: hi\nmodel: scripted:turns.yaml\n", encoding="utf-8")
    diagnostics = validate_paths([config])
    assert [(d.path, d.line, d.column, d.rule, d.message, d.hint) for d in diagnostics] == [
        (str(script), line, column, rule, message, hint)
    ]


def test_an_empty_script_file(tmp_path: Path) -> None:
    script = tmp_path / "turns.yaml"
    script.write_text("", encoding="utf-8")
    with pytest.raises(ModelError) as caught:
        ScriptedModel.from_file(script)
    assert caught.value.message == (
        f"{script}:1:1: A scripted model file must be a mapping with a `turns:` list."
        f" For example `turns: [{{text: Hello}}]`. {_FORMAT}"
    )


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


async def test_a_repeat_turn_is_never_used_up() -> None:
    from yadk.testing import ScriptedModel as Model
    from yadk.types import UserContent

    model = Model(turns=[{"when": "(?i)hi", "text": "Hello!"}, {"text": "Sorry?", "repeat": True}])
    answers = []
    for text in ("hi", "what", "hi", "and now"):
        request = LlmRequest(contents=[UserContent(text)])
        [response] = [r async for r in model.generate_content_async(request)]
        assert response.content is not None
        answers.append(response.content.parts[0].text)
    assert answers == ["Hello!", "Sorry?", "Sorry?", "Sorry?"]


def test_repeat_must_be_true_or_false(tmp_path: Path) -> None:
    script = tmp_path / "turns.yaml"
    script.write_text("turns:\n  - text: x\n    repeat: always\n")
    with pytest.raises(ModelError, match=r"turns.yaml:3:13: `repeat` must be true or false"):
        ScriptedModel.from_file(script)
