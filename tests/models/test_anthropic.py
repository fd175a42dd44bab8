"""Anthropic Messages API against a loopback server: the body, history and tools both ways,
answers, streaming, usage and errors."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from yadk import LlmAgent, Runner
from yadk.agents import RunConfig
from yadk.errors import ModelError
from yadk.models import AnthropicLlm, LlmRequest, LlmResponse, resolve_model
from yadk.models._anthropic_wire import parse_message, to_messages
from yadk.tools import FunctionTool
from yadk.types import Blob, Content, FunctionCall, FunctionResponse, Part, UserContent

if TYPE_CHECKING:
    from tests.models.conftest import FakeServer

MODEL = "claude-sonnet-4-5"
CONTINUE = (
    "Continue processing previous requests as instructed. Exit or provide a summary if no more"
    " outputs are needed."
)
USAGE = {"input_tokens": 20, "output_tokens": 7}
MAPPED_USAGE = {"prompt_token_count": 20, "candidates_token_count": 7, "total_token_count": 27}


def get_weather(city: str) -> dict[str, Any]:
    """Current weather for a city."""
    return {"city": city, "temp_c": 21}


def message(*content: dict[str, Any], stop: str = "end_turn") -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": list(content),
        "stop_reason": stop,
        "usage": USAGE,
    }


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def local(server: FakeServer, **kw: Any) -> AnthropicLlm:
    kw.setdefault("retries", 0)
    return AnthropicLlm(MODEL, api_key="sk-ant-test", base_url=server.url, **kw)


async def generate(llm: AnthropicLlm, request: LlmRequest, stream: bool = False) -> LlmResponse:
    responses = [r async for r in llm.generate_content_async(request, stream=stream)]
    return responses[-1]


def call(name: str, args: dict[str, Any], id: str | None = None) -> Part:
    return Part(function_call=FunctionCall(id=id, name=name, args=args))


def result(name: str, response: dict[str, Any], id: str | None = None) -> Part:
    return Part(function_response=FunctionResponse(id=id, name=name, response=response))


async def test_text_round_trip(server: FakeServer) -> None:
    server.reply(message(text("Hello!")))
    request = LlmRequest(
        system_instruction="Be brief.",
        contents=[UserContent("hi")],
        config={"temperature": 0.2, "maxOutputTokens": 100, "stop_sequences": ["END"]},
    )
    response = await generate(local(server), request)
    assert response.content == Content(role="model", parts=[Part(text="Hello!")])
    assert (response.finish_reason, response.usage_metadata) == ("STOP", MAPPED_USAGE)
    [sent] = server.requests
    assert sent.path == "/v1/messages"
    assert sent.headers["x-api-key"] == "sk-ant-test"
    assert sent.headers["anthropic-version"] == "2023-06-01"
    assert sent.body == {
        "model": MODEL,
        "max_tokens": 100,
        "temperature": 0.2,
        "stop_sequences": ["END"],
        "system": "Be brief.",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    }


async def test_tools_both_ways(server: FakeServer) -> None:
    server.reply(
        message(
            text("Checking."),
            {
                "type": "tool_use",
                "id": "toolu_9",
                "name": "get_weather",
                "input": {"city": "Paris"},
            },
            stop="tool_use",
        )
    )
    request = LlmRequest(contents=[UserContent("Weather in Paris?")])
    request.append_tools([FunctionTool(get_weather)])
    response = await generate(local(server), request)
    assert response.content == Content(
        role="model",
        parts=[Part(text="Checking."), call("get_weather", {"city": "Paris"}, "toolu_9")],
    )
    assert server.bodies[0]["tools"] == [
        {
            "name": "get_weather",
            "description": "Current weather for a city.",
            "input_schema": {
                "properties": {"city": {"title": "City", "type": "string"}},
                "required": ["city"],
                "title": "get_weatherParams",
                "type": "object",
            },
        }
    ]
    assert server.bodies[0]["max_tokens"] == 8192


@pytest.mark.parametrize(
    "contents, expected",
    [
        (
            [],
            [
                {
                    "role": "user",
                    "content": [
                        text("Handle the requests as specified in the System Instruction.")
                    ],
                }
            ],
        ),
        (
            [
                UserContent("Weather?"),
                Content(
                    role="model",
                    parts=[
                        Part(text="Let me look."),
                        call("get_weather", {"city": "Rome"}, "toolu_1"),
                    ],
                ),
                Content(role="user", parts=[result("get_weather", {"temp_c": 20}, "toolu_1")]),
            ],
            [
                {"role": "user", "content": [text("Weather?")]},
                {
                    "role": "assistant",
                    "content": [
                        text("Let me look."),
                        {
                            "type": "tool_use",
                            "id": "toolu_1",
                            "name": "get_weather",
                            "input": {"city": "Rome"},
                        },
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "toolu_1",
                            "content": '{"temp_c": 20}',
                        }
                    ],
                },
            ],
        ),
        (
            [
                UserContent("Two cities"),
                Content(
                    role="model",
                    parts=[call("get_weather", {"city": "A"}), call("get_weather", {"city": "B"})],
                ),
                Content(role="user", parts=[result("get_weather", {"t": 1})]),
                UserContent("and?"),
            ],
            [
                {"role": "user", "content": [text("Two cities")]},
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "toolu_0",
                            "name": "get_weather",
                            "input": {"city": "A"},
                        },
                        {
                            "type": "tool_use",
                            "id": "toolu_1",
                            "name": "get_weather",
                            "input": {"city": "B"},
                        },
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "toolu_0", "content": '{"t": 1}'},
                        {
                            "type": "tool_result",
                            "tool_use_id": "toolu_1",
                            "content": "No result was recorded for this call of `get_weather`.",
                            "is_error": True,
                        },
                        text("and?"),
                    ],
                },
            ],
        ),
        (
            [
                UserContent("hi"),
                Content(role="model", parts=[Part(text="plan", thought=True), Part(text="Hello")]),
            ],
            [
                {"role": "user", "content": [text("hi")]},
                {"role": "assistant", "content": [text("Hello")]},
                {"role": "user", "content": [text(CONTINUE)]},
            ],
        ),
        (
            [
                Content(
                    role="user",
                    parts=[
                        Part(text="see"),
                        Part(inline_data=Blob(mime_type="image/png", data=b"\x89PNG")),
                    ],
                )
            ],
            [
                {
                    "role": "user",
                    "content": [
                        text("see"),
                        {
                            "type": "image",
                            "source": {
                                "type": "base64",
                                "media_type": "image/png",
                                "data": "iVBORw==",
                            },
                        },
                    ],
                }
            ],
        ),
        (
            [Content(role="user", parts=[result("orphan", {"x": 1})])],
            [{"role": "user", "content": [text('Tool `orphan` returned: {"x": 1}')]}],
        ),
    ],
    ids=[
        "empty",
        "tool-round-trip",
        "unanswered-call",
        "thoughts-dropped",
        "image",
        "orphan-result",
    ],
)
def test_messages_on_the_wire(contents: list[Content], expected: list[dict[str, Any]]) -> None:
    assert to_messages(contents) == expected


@pytest.mark.parametrize(
    "answer, expected",
    [
        (
            message({"type": "thinking", "thinking": "hmm", "signature": "s"}, text("42")),
            LlmResponse(
                content=Content(
                    role="model", parts=[Part(text="hmm", thought=True), Part(text="42")]
                ),
                finish_reason="STOP",
                usage_metadata=MAPPED_USAGE,
                model_version=MODEL,
            ),
        ),
        (
            message(stop="max_tokens"),
            LlmResponse(
                error_code="MAX_TOKENS",
                error_message="The model returned no content (stop reason max_tokens).",
                finish_reason="MAX_TOKENS",
                usage_metadata=MAPPED_USAGE,
                model_version=MODEL,
            ),
        ),
        (
            message(text("I can't help with that."), stop="refusal")
            | {"usage": {"input_tokens": 5, "output_tokens": 1, "cache_read_input_tokens": 100}},
            LlmResponse(
                content=Content(role="model", parts=[Part(text="I can't help with that.")]),
                finish_reason="SAFETY",
                usage_metadata={
                    "prompt_token_count": 105,
                    "candidates_token_count": 1,
                    "total_token_count": 106,
                    "cached_content_token_count": 100,
                },
                model_version=MODEL,
            ),
        ),
    ],
    ids=["thinking", "cut-off", "refusal-with-cache"],
)
def test_parse_message(answer: dict[str, Any], expected: LlmResponse) -> None:
    assert parse_message(answer) == expected


def event(kind: str, **data: Any) -> bytes:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n".encode()


STREAM = [
    event(
        "message_start",
        message=message()
        | {"content": [], "stop_reason": None, "usage": {"input_tokens": 20, "output_tokens": 1}},
    ),
    event("content_block_start", index=0, content_block={"type": "text", "text": ""}),
    event("ping"),
    event("content_block_delta", index=0, delta={"type": "text_delta", "text": "Let me "}),
    event("content_block_delta", index=0, delta={"type": "text_delta", "text": "check."}),
    event("content_block_stop", index=0),
    event(
        "content_block_start",
        index=1,
        content_block={"type": "tool_use", "id": "toolu_7", "name": "get_weather", "input": {}},
    ),
    event("content_block_delta", index=1, delta={"type": "input_json_delta", "partial_json": ""}),
    event(
        "content_block_delta",
        index=1,
        delta={"type": "input_json_delta", "partial_json": '{"city": "Pa'},
    ),
    event(
        "content_block_delta", index=1, delta={"type": "input_json_delta", "partial_json": 'ris"}'}
    ),
    event("content_block_stop", index=1),
    event(
        "message_delta",
        delta={"stop_reason": "tool_use", "stop_sequence": None},
        usage={"output_tokens": 7},
    ),
    event("message_stop"),
]


async def test_streaming(server: FakeServer) -> None:
    server.reply(chunks=STREAM)
    llm = local(server)
    responses = [
        r
        async for r in llm.generate_content_async(
            LlmRequest(contents=[UserContent("Weather in Paris?")]), stream=True
        )
    ]
    assert server.bodies[0]["stream"] is True
    assert [
        (r.partial, r.content.parts[0].text if r.content else None) for r in responses[:-1]
    ] == [
        (True, "Let me "),
        (True, "check."),
    ]
    final = responses[-1]
    assert final.content == Content(
        role="model",
        parts=[Part(text="Let me check."), call("get_weather", {"city": "Paris"}, "toolu_7")],
    )
    assert final.usage_metadata == MAPPED_USAGE
    assert final.finish_reason == "STOP"


async def test_stream_error_event(server: FakeServer) -> None:
    server.reply(
        chunks=[
            STREAM[0],
            event("error", error={"type": "overloaded_error", "message": "Overloaded"}),
        ]
    )
    with pytest.raises(ModelError) as caught:
        await generate(local(server), LlmRequest(contents=[UserContent("hi")]), stream=True)
    assert caught.value.message == (
        f"Anthropic model {MODEL!r} at {server.url}: the server reported an error: Overloaded"
    )


async def test_overloaded_is_retried(server: FakeServer) -> None:
    server.reply(
        status=529,
        body={"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    )
    server.reply(message(text("ok")))
    response = await generate(
        local(server, retries=1, retry_delay=0), LlmRequest(contents=[UserContent("hi")])
    )
    assert response.content == Content(role="model", parts=[Part(text="ok")])


@pytest.mark.parametrize(
    "status, expected_tail",
    [
        (
            401,
            "HTTP 401 Unauthorized: invalid x-api-key. Set ANTHROPIC_API_KEY to a key from"
            " https://console.anthropic.com/settings/keys. Check that the key is valid and has"
            f" access to {MODEL!r}.",
        ),
        (
            404,
            f"HTTP 404 Not Found: invalid x-api-key. Check the model name {MODEL!r} (see"
            " https://docs.anthropic.com/en/docs/about-claude/models) and ANTHROPIC_BASE_URL.",
        ),
    ],
)
async def test_errors(server: FakeServer, status: int, expected_tail: str) -> None:
    server.reply(
        status=status,
        body={
            "type": "error",
            "error": {"type": "authentication_error", "message": "invalid x-api-key"},
        },
    )
    with pytest.raises(ModelError) as caught:
        await generate(local(server), LlmRequest(contents=[UserContent("hi")]))
    assert caught.value.message == f"Anthropic model {MODEL!r} at {server.url}: {expected_tail}"


async def test_missing_key_fails_before_sending(server: FakeServer) -> None:
    with pytest.raises(ModelError) as caught:
        await generate(AnthropicLlm(MODEL), LlmRequest(contents=[UserContent("hi")]))
    assert caught.value.message == (
        f"Anthropic model {MODEL!r}: no API key. Set ANTHROPIC_API_KEY to a key from"
        " https://console.anthropic.com/settings/keys."
    )


def test_names_resolve() -> None:
    assert isinstance(resolve_model("claude-haiku-4-5"), AnthropicLlm)
    llm = resolve_model("anthropic:claude-opus-4-1")
    assert isinstance(llm, AnthropicLlm)
    assert llm.model == "claude-opus-4-1"
    assert llm.url == "https://api.anthropic.com/v1/messages"


async def test_runner_end_to_end_from_the_environment(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-env")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    server.reply(chunks=STREAM)
    server.reply(
        chunks=[
            STREAM[0],
            event("content_block_start", index=0, content_block={"type": "text", "text": ""}),
            event("content_block_delta", index=0, delta={"type": "text_delta", "text": "21 °C."}),
            event("message_delta", delta={"stop_reason": "end_turn"}, usage={"output_tokens": 7}),
            event("message_stop"),
        ]
    )
    agent = LlmAgent(
        name="forecaster", model=MODEL, instruction="Report the weather.", tools=[get_weather]
    )
    runner = Runner(app_name="app", agent=agent)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = [
        e
        async for e in runner.run_async(
            user_id="u",
            session_id=session.id,
            new_message="Weather in Paris?",
            run_config=RunConfig(streaming=True),
        )
        if not e.partial
    ]
    assert [e.text for e in events] == ["Weather in Paris?", "Let me check.", "", "21 °C."]
    assert events[-1].usage_metadata == MAPPED_USAGE
    assert server.requests[0].headers["x-api-key"] == "sk-ant-env"
    second = server.bodies[1]
    assert second["system"].startswith("Report the weather.")
    assert second["messages"][1]["content"][1]["id"] == "toolu_7"
    assert second["messages"][2] == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_7",
                "content": '{"city": "Paris", "temp_c": 21}',
            }
        ],
    }
