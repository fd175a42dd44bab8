"""OpenAI-compatible Chat Completions against a loopback server: messages, tools, answers, errors."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

import pytest

from yadk.errors import ModelError
from yadk.models import LlmRequest, LlmResponse, OpenAIChat
from yadk.models._openai import parse_response
from yadk.models._openai_wire import to_messages
from yadk.tools import FunctionTool
from yadk.types import Content, FunctionCall, FunctionResponse, ModelContent, Part, UserContent

if TYPE_CHECKING:
    from tests.models.conftest import FakeServer

CONTINUE = (
    "Continue processing previous requests as instructed. Exit or provide a summary if no more"
    " outputs are needed."
)


def get_weather(city: str) -> dict[str, Any]:
    """Current weather for a city."""
    return {"city": city, "temp": 21}


def completion(message: dict[str, Any], finish: str = "stop", **extra: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        **extra,
    }


def local(server: FakeServer, name: str = "llama3", **kw: Any) -> OpenAIChat:
    kw.setdefault("retries", 0)
    return OpenAIChat(name, base_url=server.url + "/v1", **kw)


async def generate(llm: OpenAIChat, request: LlmRequest) -> LlmResponse:
    responses = [r async for r in llm.generate_content_async(request)]
    assert len(responses) == 1
    return responses[0]


def call(name: str, args: dict[str, Any], id: str | None = None) -> Part:
    return Part(function_call=FunctionCall(id=id, name=name, args=args))


def result(name: str, response: dict[str, Any], id: str | None = None) -> Part:
    return Part(function_response=FunctionResponse(id=id, name=name, response=response))


async def test_text_round_trip(server: FakeServer) -> None:
    server.reply(
        completion(
            {"role": "assistant", "content": "Hello!"},
            usage={"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11},
        )
    )
    request = LlmRequest(system_instruction="Be brief.", contents=[UserContent("hi")])
    request.append_tools([FunctionTool(get_weather)])

    response = await generate(local(server), request)

    assert response == LlmResponse(
        content=ModelContent("Hello!"),
        finish_reason="STOP",
        usage_metadata={
            "prompt_token_count": 9,
            "candidates_token_count": 2,
            "total_token_count": 11,
        },
    )
    [sent] = server.requests
    assert sent.path == "/v1/chat/completions"
    assert "authorization" not in sent.headers
    assert sent.body == {
        "model": "llama3",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "hi"},
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": "Current weather for a city.",
                    "parameters": {
                        "properties": {"city": {"title": "City", "type": "string"}},
                        "required": ["city"],
                        "title": "get_weatherParams",
                        "type": "object",
                    },
                },
            }
        ],
    }


@pytest.mark.parametrize(
    "contents, expected",
    [
        (
            [UserContent("hi"), ModelContent("Hello"), UserContent("bye")],
            [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "Hello"},
                {"role": "user", "content": "bye"},
            ],
        ),
        (
            [
                UserContent("weather?"),
                ModelContent([Part(text="Checking."), call("get_weather", {"city": "Paris"})]),
                Content(role="user", parts=[result("get_weather", {"temp": 21})]),
            ],
            [
                {"role": "user", "content": "weather?"},
                {
                    "role": "assistant",
                    "content": "Checking.",
                    "tool_calls": [
                        {
                            "id": "call_0",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "call_0", "content": '{"temp": 21}'},
            ],
        ),
        (
            [
                ModelContent([call("f", {}, id="call_abc")]),
                Content(role="user", parts=[result("f", {"ok": True}, id="call_abc")]),
            ],
            [
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": "call_abc",
                            "type": "function",
                            "function": {"name": "f", "arguments": "{}"},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "call_abc", "content": '{"ok": true}'},
            ],
        ),
        (
            [
                ModelContent([call("f", {"n": 1}), call("g", {}), call("f", {"n": 2})]),
                Content(
                    role="user",
                    parts=[result("g", {"r": "g"}), result("f", {"r": 1}), result("f", {"r": 2})],
                ),
            ],
            [
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": "call_0",
                            "type": "function",
                            "function": {"name": "f", "arguments": '{"n": 1}'},
                        },
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "g", "arguments": "{}"},
                        },
                        {
                            "id": "call_2",
                            "type": "function",
                            "function": {"name": "f", "arguments": '{"n": 2}'},
                        },
                    ],
                },
                {"role": "tool", "tool_call_id": "call_1", "content": '{"r": "g"}'},
                {"role": "tool", "tool_call_id": "call_0", "content": '{"r": 1}'},
                {"role": "tool", "tool_call_id": "call_2", "content": '{"r": 2}'},
            ],
        ),
        (
            [
                UserContent("go"),
                Content(role="user", parts=[result("lost", {"v": "é"})]),
            ],
            [
                {"role": "user", "content": "go"},
                {"role": "user", "content": 'Tool `lost` returned: {"v": "é"}'},
            ],
        ),
        (
            [ModelContent([call("f", {})]), UserContent("never mind")],
            [
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": "call_0",
                            "type": "function",
                            "function": {"name": "f", "arguments": "{}"},
                        }
                    ],
                },
                {
                    "role": "tool",
                    "tool_call_id": "call_0",
                    "content": '{"error": "No result was recorded for this call of `f`."}',
                },
                {"role": "user", "content": "never mind"},
            ],
        ),
        (
            [
                ModelContent([call("f", {})]),
                Content(role="user", parts=[result("f", {"v": 1}), Part(text="and now?")]),
            ],
            [
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": "call_0",
                            "type": "function",
                            "function": {"name": "f", "arguments": "{}"},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "call_0", "content": '{"v": 1}'},
                {"role": "user", "content": "and now?"},
            ],
        ),
        (
            [UserContent("hi"), ModelContent([Part(text="hmm", thought=True), Part(text="Hello")])],
            [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "Hello"},
                {"role": "user", "content": CONTINUE},
            ],
        ),
        (
            [],
            [
                {
                    "role": "user",
                    "content": "Handle the requests as specified in the System Instruction.",
                }
            ],
        ),
        (
            [UserContent(["For context:", "[helper] said: done"])],
            [{"role": "user", "content": "For context:\n[helper] said: done"}],
        ),
        (
            [
                UserContent(
                    [
                        Part(text="What is this?"),
                        Part.from_bytes(data=b"\x89PNG", mime_type="image/png"),
                        Part.from_bytes(data=b"a,b", mime_type="text/csv"),
                    ]
                )
            ],
            [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "What is this?"},
                        {
                            "type": "image_url",
                            "image_url": {"url": "data:image/png;base64,iVBORw=="},
                        },
                        {"type": "text", "text": "a,b"},
                    ],
                }
            ],
        ),
    ],
    ids=[
        "text",
        "generated-call-id",
        "provider-call-id",
        "parallel-calls-paired-by-name-in-order",
        "orphan-response-as-text",
        "unanswered-call-gets-error-result",
        "tool-result-before-user-text",
        "thoughts-dropped-and-continue",
        "empty",
        "multi-text-joined",
        "inline-image-and-text",
    ],
)
def test_messages(contents: list[Content], expected: list[dict[str, Any]]) -> None:
    assert to_messages(contents) == expected


def test_unsupported_inline_data() -> None:
    contents = [UserContent([Part.from_bytes(data=b"%PDF", mime_type="application/pdf")])]
    with pytest.raises(ModelError) as caught:
        to_messages(contents)
    assert caught.value.message == (
        "OpenAI-compatible models accept images and text inline, not application/pdf data;"
        " convert it to text first or use a Gemini model."
    )


SCHEMA = {"title": "Weather Report", "type": "object", "properties": {"temp": {"type": "number"}}}


@pytest.mark.parametrize(
    "config, expected",
    [
        (
            {
                "temperature": 0.1,
                "top_p": 0.5,
                "max_output_tokens": 64,
                "stop_sequences": ["END"],
                "seed": 3,
            },
            {"temperature": 0.1, "top_p": 0.5, "max_tokens": 64, "stop": ["END"], "seed": 3},
        ),
        (
            {"maxOutputTokens": 8, "presencePenalty": 0.2},
            {"max_tokens": 8, "presence_penalty": 0.2},
        ),
        (
            {"response_mime_type": "application/json", "response_schema": SCHEMA},
            {
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"name": "Weather_Report", "schema": SCHEMA},
                }
            },
        ),
        (
            {"response_schema": {"type": "OBJECT", "properties": {"temp": {"type": "NUMBER"}}}},
            {
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {
                        "name": "response",
                        "schema": {"type": "object", "properties": {"temp": {"type": "number"}}},
                    },
                }
            },
        ),
        ({"response_mime_type": "application/json"}, {"response_format": {"type": "json_object"}}),
        ({"response_mime_type": "text/plain"}, {}),
        (
            {
                "top_k": 5,
                "thinking_config": {"thinking_budget": 0},
                "temperature": 0,
                "reasoning_effort": "low",
            },
            {"temperature": 0, "reasoning_effort": "low"},
        ),
        ({"http_options": {"timeout": 1000}, "seed": None}, {}),
    ],
    ids=[
        "sampling",
        "camel-case-input",
        "json-schema",
        "openapi-schema",
        "json-mode",
        "text-mode",
        "gemini-only-dropped",
        "client-only",
    ],
)
def test_config_mapping(config: dict[str, Any], expected: dict[str, Any]) -> None:
    body = OpenAIChat("m").request_body(LlmRequest(contents=[UserContent("hi")], config=config))
    assert {k: v for k, v in body.items() if k not in ("model", "messages")} == expected


def test_gemini_only_keys_are_reported(caplog: pytest.LogCaptureFixture) -> None:
    from yadk.models import _openai_wire as _openai

    _openai._warned.discard("safety_settings")
    request = LlmRequest(contents=[UserContent("hi")], config={"safety_settings": []})
    with caplog.at_level(logging.WARNING, logger="yadk.models"):
        OpenAIChat("m").request_body(request)
        OpenAIChat("m").request_body(request)
    assert caplog.messages == [
        (
            "generate_content_config key 'safety_settings' has no Chat Completions equivalent; it is"
            " not sent to OpenAI-compatible models"
        )
    ]


@pytest.mark.parametrize(
    "answer, expected",
    [
        (
            completion(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "f", "arguments": '{"a": [1]}'},
                        },
                        {"id": "", "type": "function", "function": {"name": "g", "arguments": ""}},
                        {"type": "function", "function": {"name": "h", "arguments": {"x": 1}}},
                    ],
                },
                finish="tool_calls",
            ),
            LlmResponse(
                content=ModelContent(
                    [call("f", {"a": [1]}, id="call_1"), call("g", {}), call("h", {"x": 1})]
                ),
                finish_reason="STOP",
            ),
        ),
        (
            completion({"role": "assistant", "content": "42", "reasoning_content": "6 times 7"}),
            LlmResponse(
                content=ModelContent([Part(text="6 times 7", thought=True), Part(text="42")]),
                finish_reason="STOP",
            ),
        ),
        (
            completion(
                {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
                }
            ),
            LlmResponse(content=ModelContent("ab"), finish_reason="STOP"),
        ),
        (
            completion({"role": "assistant", "content": "cut"}, finish="length"),
            LlmResponse(content=ModelContent("cut"), finish_reason="MAX_TOKENS"),
        ),
        (
            completion({"role": "assistant", "content": ""}, finish="length"),
            LlmResponse(
                error_code="MAX_TOKENS",
                error_message="The model returned no content (finish reason length).",
                finish_reason="MAX_TOKENS",
            ),
        ),
        (
            completion({"role": "assistant", "content": None}, finish="content_filter"),
            LlmResponse(
                error_code="SAFETY",
                error_message="The model returned no content (finish reason content_filter).",
                finish_reason="SAFETY",
            ),
        ),
        (
            completion(
                {"role": "assistant", "function_call": {"name": "legacy", "arguments": '{"k": 2}'}},
                finish="function_call",
                usage={
                    "prompt_tokens": 5,
                    "completion_tokens": 7,
                    "total_tokens": 12,
                    "completion_tokens_details": {"reasoning_tokens": 4},
                    "prompt_tokens_details": {"cached_tokens": 0},
                },
            ),
            LlmResponse(
                content=ModelContent([call("legacy", {"k": 2})]),
                finish_reason="STOP",
                usage_metadata={
                    "prompt_token_count": 5,
                    "candidates_token_count": 7,
                    "total_token_count": 12,
                    "thoughts_token_count": 4,
                },
            ),
        ),
    ],
    ids=[
        "tool-calls",
        "reasoning",
        "content-list",
        "length-with-text",
        "length-empty",
        "content-filter",
        "legacy-function-call",
    ],
)
def test_parse_response(answer: dict[str, Any], expected: LlmResponse) -> None:
    assert parse_response(answer) == expected


@pytest.mark.parametrize(
    "answer, expected",
    [
        (
            completion(
                {
                    "role": "assistant",
                    "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": '{"a": '}}],
                }
            ),
            (
                "M: the model called tool 'f' with arguments that are not a JSON object: '{\"a\": '."
                " Try again, or use a model that supports tool calling."
            ),
        ),
        (
            completion(
                {
                    "role": "assistant",
                    "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "[1]"}}],
                }
            ),
            (
                "M: the model called tool 'f' with arguments that are not a JSON object: '[1]'."
                " Try again, or use a model that supports tool calling."
            ),
        ),
        (
            {"error": {"message": "upstream overloaded", "code": 502}},
            "M: the server reported an error: upstream overloaded",
        ),
        ({"choices": []}, 'M: the answer has no choices: {"choices": []}'),
    ],
    ids=["bad-json-arguments", "non-object-arguments", "error-in-200", "no-choices"],
)
def test_parse_failures(answer: dict[str, Any], expected: str) -> None:
    with pytest.raises(ModelError) as caught:
        parse_response(answer, "M")
    assert caught.value.message == expected


@pytest.mark.parametrize(
    "status, body, expected",
    [
        (
            401,
            {
                "error": {
                    "message": "Incorrect API key provided: sk-****.",
                    "type": "invalid_request_error",
                }
            },
            (
                "HTTP 401 Unauthorized: Incorrect API key provided: sk-****. Set OPENAI_API_KEY to a"
                " valid key for {base}."
            ),
        ),
        (
            404,
            {
                "error": {
                    "message": 'model "llama3" not found, try pulling it first',
                    "type": "api_error",
                }
            },
            (
                'HTTP 404 Not Found: model "llama3" not found, try pulling it first. Check the model'
                " name 'llama3' (for Ollama: `ollama pull llama3`) and that OPENAI_BASE_URL ({base})"
                " ends with the API path, e.g. /v1."
            ),
        ),
        (
            400,
            {
                "object": "error",
                "message": "max_tokens is too large",
                "type": "BadRequestError",
                "code": 400,
            },
            (
                "HTTP 400 Bad Request: max_tokens is too large. `yadk inspect` shows the request the"
                " agent builds."
            ),
        ),
        (
            429,
            {"error": {"message": "Rate limit reached", "type": "requests"}},
            (
                "HTTP 429 Too Many Requests: Rate limit reached. Rate limit or quota exceeded: wait"
                " and retry, or check your quota."
            ),
        ),
        (
            500,
            {"detail": "boom"},
            (
                "HTTP 500 Internal Server Error: boom. The server failed; check its logs or try again"
                " later."
            ),
        ),
        (
            500,
            {"error": "plain string error"},
            (
                "HTTP 500 Internal Server Error: plain string error. The server failed; check its logs"
                " or try again later."
            ),
        ),
    ],
    ids=[
        "unauthorized",
        "ollama-not-found",
        "vllm-bad-request",
        "rate-limit",
        "detail",
        "string-error",
    ],
)
async def test_http_errors(server: FakeServer, status: int, body: Any, expected: str) -> None:
    server.reply(body, status=status)
    with pytest.raises(ModelError) as caught:
        await generate(local(server), LlmRequest(contents=[UserContent("hi")]))
    base = server.url + "/v1"
    service = f"OpenAI-compatible model 'llama3' at {base}"
    assert caught.value.message == f"{service}: " + expected.format(base=base)


async def test_malformed_json(server: FakeServer) -> None:
    server.reply(raw=b'{"choices": [')
    with pytest.raises(ModelError) as caught:
        await generate(local(server), LlmRequest(contents=[UserContent("hi")]))
    assert caught.value.message == (
        f"OpenAI-compatible model 'llama3' at {server.url}/v1: the server answered HTTP 200 with"
        " a body that is not JSON: '{\"choices\": ['. Check that the base URL points at the API"
        " itself."
    )


async def test_wrong_shape(server: FakeServer) -> None:
    server.reply({"choices": [{"message": {"tool_calls": [{"id": "x"}]}}]})
    with pytest.raises(ModelError) as caught:
        await generate(local(server), LlmRequest(contents=[UserContent("hi")]))
    assert caught.value.message == (
        f"OpenAI-compatible model 'llama3' at {server.url}/v1: the answer does not have the chat"
        " completion shape (KeyError: 'function')."
    )


async def test_key_and_base_url_from_environment(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/v1/")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    server.reply(completion({"role": "assistant", "content": "ok"}))
    await generate(OpenAIChat("gpt-4o-mini", retries=0), LlmRequest(contents=[UserContent("hi")]))
    [sent] = server.requests
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer sk-test"


async def test_official_api_needs_a_key(server: FakeServer) -> None:
    with pytest.raises(ModelError) as caught:
        await generate(OpenAIChat("gpt-4o-mini"), LlmRequest(contents=[UserContent("hi")]))
    assert caught.value.message == (
        "OpenAI model 'gpt-4o-mini': no API key. Set OPENAI_API_KEY, or set OPENAI_BASE_URL to a"
        " local server such as Ollama (http://localhost:11434/v1)."
    )


def test_service_name_hides_credentials_in_the_url() -> None:
    llm = OpenAIChat("m", base_url="https://user:secret@llm.example/v1")
    assert llm._service == "OpenAI-compatible model 'm' at https://llm.example/v1"
    with pytest.raises(ModelError, match="needs a name"):
        OpenAIChat("")


async def test_retry_after_header(server: FakeServer) -> None:
    server.reply({"error": {"message": "busy"}}, status=429, headers={"Retry-After": "0"})
    server.reply(completion({"role": "assistant", "content": "ok"}))
    # The server's Retry-After: 0 wins over the 30 s backoff this model would otherwise wait.
    response = await asyncio.wait_for(
        generate(
            local(server, retries=1, retry_delay=30), LlmRequest(contents=[UserContent("hi")])
        ),
        timeout=5,
    )
    assert response.content == ModelContent("ok")
    assert len(server.requests) == 2
