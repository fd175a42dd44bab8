"""AgentTool: an agent called as a tool: declaration, request, result, state and artifacts.

Declarations and requests were captured from google-adk 2.13.0 with the same agents.
"""

from __future__ import annotations

from typing import Any

import pytest
from _multi_agent import Conversation, authors, call, contents, requests_of, say, user
from pydantic import BaseModel, Field

from yadk import LlmAgent, SequentialAgent
from yadk.errors import AgentDefinitionError
from yadk.models import ScriptedModel
from yadk.tools import AgentTool, ToolContext
from yadk.types import Part


class Inner(BaseModel):
    """Inner doc."""

    x: int


class Question(BaseModel):
    """Question doc."""

    question: str = Field(description="the q")
    inner: Inner | None = None
    tags: list[str] = []


class Answer(BaseModel):
    answer: str


QUESTION_SCHEMA = {
    "$defs": {
        "Inner": {
            "description": "Inner doc.",
            "properties": {"x": {"title": "X", "type": "integer"}},
            "required": ["x"],
            "title": "Inner",
            "type": "object",
        }
    },
    "description": "Question doc.",
    "properties": {
        "question": {"description": "the q", "title": "Question", "type": "string"},
        "inner": {"anyOf": [{"$ref": "#/$defs/Inner"}, {"type": "null"}], "default": None},
        "tags": {"default": [], "items": {"type": "string"}, "title": "Tags", "type": "array"},
    },
    "required": ["question"],
    "title": "Question",
    "type": "object",
}


@pytest.mark.parametrize(
    ("agent", "expected"),
    [
        (
            LlmAgent(name="plain", model="scripted"),
            {
                "name": "plain",
                "description": "",
                "parameters": {
                    "type": "object",
                    "properties": {"request": {"type": "string"}},
                    "required": ["request"],
                },
            },
        ),
        (
            LlmAgent(
                name="typed", description="Typed one.", model="scripted", input_schema=Question
            ),
            {"name": "typed", "description": "Typed one.", "parameters": QUESTION_SCHEMA},
        ),
        (
            SequentialAgent(
                name="seq",
                description="Seq desc",
                sub_agents=[LlmAgent(name="first", model="scripted", input_schema=Question)],
            ),
            {"name": "seq", "description": "Seq desc", "parameters": QUESTION_SCHEMA},
        ),
    ],
    ids=["request string", "input_schema", "first sub-agent's input_schema"],
)
def test_declaration_matches_adk(agent: Any, expected: dict[str, Any]) -> None:
    assert AgentTool(agent).declaration().to_dict() == expected


def remember(fact: str, tool_context: ToolContext) -> str:
    """Remember."""
    tool_context.state["fact"] = fact
    tool_context.state["temp:scratch"] = 1
    return "ok"


class SmallQuestion(BaseModel):
    question: str
    n: int = 1


async def test_round_trip_matches_adk() -> None:
    scripted = ScriptedModel(
        [
            call("root", "helper", request="what is 2+2"),
            call("helper", "remember", fact="four"),
            say("helper", "It is 4."),
            call("root", "typed", question="why", n=3),
            say("typed", '{"answer": "because"}'),
            say("root", "done: 4"),
        ]
    )
    helper = LlmAgent(
        name="helper",
        description="Answers maths.",
        instruction="Help. user={u}",
        model=scripted,
        tools=[remember],
        output_key="helper_out",
    )
    typed = LlmAgent(
        name="typed",
        description="Typed one.",
        instruction="Typed.",
        model=scripted,
        input_schema=SmallQuestion,
        output_schema=Answer,
    )
    root = LlmAgent(
        name="root",
        instruction="Use tools.",
        model=scripted,
        tools=[AgentTool(agent=helper), AgentTool(typed)],
    )
    chat = Conversation(root, state={"u": "U1"})
    events = await chat.send("go")

    assert authors(events) == [
        ("root", None, "helper(request='what is 2+2')"),
        ("root", None, "helper->{'result': 'It is 4.'}"),
        ("root", None, "typed(question='why', n=3)"),
        ("root", None, "typed->{'answer': 'because'}"),
        ("root", None, "done: 4"),
    ]
    # State written inside the wrapped agent rides on the caller's function-response event.
    assert events[1].actions.state_delta == {"fact": "four", "helper_out": "It is 4."}
    assert (await chat.stored()).state == {"u": "U1", "fact": "four", "helper_out": "It is 4."}

    helper_first, helper_second = requests_of(scripted, "helper")
    assert helper_first.system_instruction == (
        'Help. user=U1\n\nYou are an agent. Your internal name is "helper". The description about'
        ' you is "Answers maths.".'
    )
    assert contents(helper_first) == [user("what is 2+2")]
    assert len(contents(helper_second)) == 3
    (typed_request,) = requests_of(scripted, "typed")
    assert contents(typed_request) == [user('{"question":"why","n":3}')]
    root_last = requests_of(scripted, "root")[-1]
    assert contents(root_last)[1:] == [
        {
            "role": "model",
            "parts": [{"function_call": {"name": "helper", "args": {"request": "what is 2+2"}}}],
        },
        {
            "role": "user",
            "parts": [
                {"function_response": {"name": "helper", "response": {"result": "It is 4."}}}
            ],
        },
        {
            "role": "model",
            "parts": [{"function_call": {"name": "typed", "args": {"question": "why", "n": 3}}}],
        },
        {
            "role": "user",
            "parts": [{"function_response": {"name": "typed", "response": {"answer": "because"}}}],
        },
    ]


async def test_skip_summarization_ends_the_callers_turn_with_the_result() -> None:
    scripted = ScriptedModel([call("root", "helper", request="hi"), say("helper", "Hello!")])
    helper = LlmAgent(name="helper", model=scripted)
    root = LlmAgent(
        name="root", model=scripted, tools=[AgentTool(agent=helper, skip_summarization=True)]
    )
    events = await Conversation(root).send("go")
    assert authors(events) == [
        ("root", None, "helper(request='hi')"),
        ("root", None, "helper->{'result': 'Hello!'}"),
    ]
    assert events[-1].actions.skip_summarization is True
    assert events[-1].is_final_response()


@pytest.mark.parametrize(
    ("args", "request_text"),
    [
        ({"request": "plain words"}, "plain words"),
        ({"b": 2, "a": "é"}, '{"a": "é", "b": 2}'),
    ],
)
async def test_request_text_sent_to_the_agent(args: dict[str, Any], request_text: str) -> None:
    scripted = ScriptedModel(
        [call("root", "helper", **args), say("helper", "ok"), say("root", "k")]
    )
    root = LlmAgent(
        name="root", model=scripted, tools=[AgentTool(LlmAgent(name="helper", model=scripted))]
    )
    await Conversation(root).send("go")
    assert contents(requests_of(scripted, "helper")[0]) == [user(request_text)]


@pytest.mark.parametrize(
    ("wrapped_turn", "result"),
    [
        (
            {"text": "not json"},
            {
                "error_type": "INTERNAL_ERROR",
                "error_prefix": "Agent 'typed' answered with text that does not match its"
                " output_schema Answer:",
            },
        ),
        ({"text": '```json\n{"answer": "fenced"}\n```'}, {"answer": "fenced"}),
    ],
)
async def test_output_schema_result(wrapped_turn: dict[str, Any], result: dict[str, Any]) -> None:
    scripted = ScriptedModel(
        [call("root", "typed", question="q"), {"agent": "typed", **wrapped_turn}, say("root", "k")]
    )
    typed = LlmAgent(name="typed", model=scripted, input_schema=SmallQuestion, output_schema=Answer)
    root = LlmAgent(name="root", model=scripted, tools=[AgentTool(typed)])
    events = await Conversation(root).send("go")
    response = events[1].get_function_responses()[0].response
    if "error_prefix" in result:
        assert response["error_type"] == result["error_type"]
        assert response["error"].startswith(result["error_prefix"])
    else:
        assert response == result


async def test_invalid_arguments_are_a_bad_request_the_model_sees() -> None:
    scripted = ScriptedModel([call("root", "typed", n="many"), say("root", "sorry")])
    typed = LlmAgent(name="typed", model=scripted, input_schema=SmallQuestion)
    root = LlmAgent(name="root", model=scripted, tools=[AgentTool(typed)])
    events = await Conversation(root).send("go")
    response = events[1].get_function_responses()[0].response
    assert response["error_type"] == "BAD_REQUEST"
    assert response["error"].startswith(
        "Invalid arguments for agent 'typed' (input_schema SmallQuestion): 2 validation errors"
    )
    assert requests_of(scripted, "typed") == []


async def test_a_failing_agent_returns_its_error_message() -> None:
    scripted = ScriptedModel([call("root", "helper", request="hi"), say("root", "it failed")])
    # The helper's own model has no turns left: its model error becomes the tool result.
    helper = LlmAgent(name="helper", model=ScriptedModel([], name="empty"))
    root = LlmAgent(name="root", model=scripted, tools=[AgentTool(helper)])
    events = await Conversation(root).send("go")
    result = events[1].get_function_responses()[0].response["result"]
    assert result.startswith("empty: script exhausted: 0 of 0 turns used")
    assert authors(events)[-1] == ("root", None, "it failed")


async def test_pipeline_as_a_tool_returns_the_last_stage_and_keeps_every_write() -> None:
    scripted = ScriptedModel(
        [
            call("root", "pipe", request="topic"),
            say("one", "first"),
            say("two", "second"),
            say("root", "k"),
        ]
    )
    pipe = SequentialAgent(
        name="pipe",
        description="Two stages.",
        sub_agents=[
            LlmAgent(name="one", model=scripted, output_key="k1"),
            LlmAgent(name="two", model=scripted, instruction="After {k1}.", output_key="k2"),
        ],
    )
    root = LlmAgent(name="root", model=scripted, tools=[AgentTool(pipe)])
    chat = Conversation(root)
    events = await chat.send("go")
    assert events[1].get_function_responses()[0].response == {"result": "second"}
    assert requests_of(scripted, "two")[0].system_instruction.startswith("After first.")
    assert (await chat.stored()).state == {"k1": "first", "k2": "second"}


async def test_artifacts_are_the_callers() -> None:
    async def draw(name: str, tool_context: ToolContext) -> str:
        """Draws."""
        await tool_context.save_artifact(name, Part(text="a picture"))
        return f"saved {name}; have {await tool_context.list_artifacts()}"

    scripted = ScriptedModel(
        [
            call("root", "painter", request="draw"),
            call("painter", "draw", name="pic.txt"),
            say("painter", "drawn"),
            say("root", "k"),
        ]
    )
    painter = LlmAgent(name="painter", model=scripted, tools=[draw])
    root = LlmAgent(name="root", model=scripted, tools=[AgentTool(painter)])
    chat = Conversation(root)
    events = await chat.send("go")
    assert events[1].actions.artifact_delta == {"pic.txt": 0}
    painter_result = requests_of(scripted, "painter")[1].contents[-1].parts[0]
    assert painter_result.function_response is not None
    assert painter_result.function_response.response == {
        "result": "saved pic.txt; have ['pic.txt']"
    }
    stored = await chat.stored()
    saved = await chat.runner.artifact_service.load_artifact(
        app_name="app", user_id="u", session_id=stored.id, filename="pic.txt"
    )
    assert saved == Part(text="a picture")


def test_only_agents_can_be_wrapped() -> None:
    with pytest.raises(AgentDefinitionError, match="AgentTool needs an agent"):
        AgentTool("helper")  # type: ignore[arg-type]
