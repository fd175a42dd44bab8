"""Gemini over REST against a loopback server: the exact body sent, answers, and failures."""

from __future__ import annotations

import json
import logging
import socket
from typing import TYPE_CHECKING, Any

import pytest

from yadk.errors import ModelError
from yadk.models import Gemini, LlmRequest, LlmResponse
from yadk.models._gemini import parse_response
from yadk.tools import FunctionTool
from yadk.types import Content, ModelContent, Part, UserContent

if TYPE_CHECKING:
    from tests.models.conftest import FakeServer

MODEL = "gemini-2.5-flash"
SERVICE = f"Gemini model {MODEL!r}"
KEY_HINT = (
    "Set GOOGLE_API_KEY (or GEMINI_API_KEY) to a Gemini API key from"
    " https://aistudio.google.com/apikey."
)


def get_weather(city: str, unit: str = "C") -> dict[str, Any]:
    """Current weather for a city."""
    return {"city": city, "temp": 21, "unit": unit}


def text_answer(text: str, **extra: Any) -> dict[str, Any]:
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}
        ],
        **extra,
    }


def model(server: FakeServer, name: str = MODEL, **kw: Any) -> Gemini:
    kw.setdefault("retries", 0)
    return Gemini(name, api_key="test-key", base_url=server.url + "/v1beta", **kw)


async def generate(llm: Gemini, request: LlmRequest) -> LlmResponse:
    responses = [r async for r in llm.generate_content_async(request)]
    assert len(responses) == 1
    return responses[0]


async def test_text_round_trip(server: FakeServer) -> None:
    server.reply(
        text_answer(
            "Hello!",
            usageMetadata={"promptTokenCount": 3, "candidatesTokenCount": 2, "totalTokenCount": 5},
            modelVersion=MODEL,
        )
    )
    request = LlmRequest(system_instruction="Be brief.", contents=[UserContent("hi")])

    response = await generate(model(server), request)

    assert response == LlmResponse(
        content=ModelContent("Hello!"),
        finish_reason="STOP",
        usage_metadata={
            "prompt_token_count": 3,
            "candidates_token_count": 2,
            "total_token_count": 5,
        },
        model_version=MODEL,
    )
    [sent] = server.requests
    assert sent.path == "/v1beta/models/gemini-2.5-flash:generateContent"
    assert sent.headers["x-goog-api-key"] == "test-key"
    assert sent.headers["content-type"] == "application/json"
    assert sent.body == {
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
    }


async def test_history_tools_and_media_in_the_body(server: FakeServer) -> None:
    server.reply(text_answer("It is 21 C."))
    request = LlmRequest(
        contents=[
            UserContent(
                [
                    Part(text="Weather here?"),
                    Part.from_bytes(data=b"\x89PNG", mime_type="image/png"),
                ]
            ),
            ModelContent(
                [
                    Part(text="I should call the tool.", thought=True),
                    Part.from_function_call(name="get_weather", args={"city": "Paris"}),
                ]
            ),
            Content(
                role="user",
                parts=[Part.from_function_response(name="get_weather", response={"temp": 21})],
            ),
        ],
    )
    request.append_tools([FunctionTool(get_weather)])

    await generate(model(server), request)

    assert server.bodies[0] == {
        "contents": [
            {
                "role": "user",
                "parts": [
                    {"text": "Weather here?"},
                    {"inlineData": {"mimeType": "image/png", "data": "iVBORw=="}},
                ],
            },
            {
                "role": "model",
                "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}],
            },
            {
                "role": "user",
                "parts": [{"functionResponse": {"name": "get_weather", "response": {"temp": 21}}}],
            },
        ],
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "get_weather",
                        "description": "Current weather for a city.",
                        "parametersJsonSchema": {
                            "properties": {
                                "city": {"title": "City", "type": "string"},
                                "unit": {"default": "C", "title": "Unit", "type": "string"},
                            },
                            "required": ["city"],
                            "title": "get_weatherParams",
                            "type": "object",
                        },
                    }
                ]
            }
        ],
    }


@pytest.mark.parametrize(
    "contents, expected",
    [
        (
            [],
            [
                {
                    "role": "user",
                    "parts": [
                        {"text": "Handle the requests as specified in the System Instruction."}
                    ],
                }
            ],
        ),
        (
            [UserContent("hi"), ModelContent("Hello")],
            [
                {"role": "user", "parts": [{"text": "hi"}]},
                {"role": "model", "parts": [{"text": "Hello"}]},
                {
                    "role": "user",
                    "parts": [
                        {
                            "text": "Continue processing previous requests as instructed. Exit or"
                            " provide a summary if no more outputs are needed."
                        }
                    ],
                },
            ],
        ),
        (
            [ModelContent([Part(text="only a thought", thought=True)]), UserContent("go")],
            [{"role": "user", "parts": [{"text": "go"}]}],
        ),
        (
            [Content(parts=[Part(text="no role")])],
            [{"role": "user", "parts": [{"text": "no role"}]}],
        ),
    ],
    ids=["empty", "ends-with-model", "thought-only-content-dropped", "missing-role-is-user"],
)
def test_contents_on_the_wire(contents: list[Content], expected: list[dict[str, Any]]) -> None:
    body = Gemini(MODEL).request_body(LlmRequest(contents=contents))
    assert body["contents"] == expected


SCHEMA = {
    "type": "object",
    "properties": {"firstName": {"type": "string"}},
    "required": ["firstName"],
}
OPENAPI_SCHEMA = {"type": "OBJECT", "properties": {"first_name": {"type": "STRING"}}}


@pytest.mark.parametrize(
    "config, generation, top_level",
    [
        (
            {
                "temperature": 0.2,
                "top_p": 0.9,
                "top_k": 40,
                "max_output_tokens": 256,
                "candidate_count": 1,
                "stop_sequences": ["END"],
                "seed": 7,
                "presence_penalty": 0.5,
            },
            {
                "temperature": 0.2,
                "topP": 0.9,
                "topK": 40,
                "maxOutputTokens": 256,
                "candidateCount": 1,
                "stopSequences": ["END"],
                "seed": 7,
                "presencePenalty": 0.5,
            },
            {},
        ),
        ({"maxOutputTokens": 5, "topP": 1}, {"maxOutputTokens": 5, "topP": 1}, {}),
        (
            {"response_mime_type": "application/json", "response_schema": SCHEMA},
            {"responseMimeType": "application/json", "responseJsonSchema": SCHEMA},
            {},
        ),
        ({"response_schema": OPENAPI_SCHEMA}, {"responseSchema": OPENAPI_SCHEMA}, {}),
        ({"response_json_schema": SCHEMA}, {"responseJsonSchema": SCHEMA}, {}),
        (
            {"thinking_config": {"thinking_budget": 0, "include_thoughts": False}},
            {"thinkingConfig": {"thinkingBudget": 0, "includeThoughts": False}},
            {},
        ),
        (
            {
                "safety_settings": [
                    {"category": "HARM_CATEGORY_HATE_SPEECH", "threshold": "BLOCK_NONE"}
                ],
                "tool_config": {"function_calling_config": {"mode": "ANY"}},
                "labels": {"team_name": "core"},
                "cached_content": "cachedContents/abc",
            },
            {},
            {
                "safetySettings": [
                    {"category": "HARM_CATEGORY_HATE_SPEECH", "threshold": "BLOCK_NONE"}
                ],
                "toolConfig": {"functionCallingConfig": {"mode": "ANY"}},
                "labels": {"team_name": "core"},
                "cachedContent": "cachedContents/abc",
            },
        ),
        ({"http_options": {"timeout": 5000}, "temperature": None}, {}, {}),
    ],
    ids=[
        "sampling",
        "camel-case-input",
        "json-schema",
        "openapi-schema",
        "response-json-schema",
        "thinking",
        "top-level",
        "client-only",
    ],
)
def test_config_mapping(
    config: dict[str, Any], generation: dict[str, Any], top_level: dict[str, Any]
) -> None:
    body = Gemini(MODEL).request_body(LlmRequest(contents=[UserContent("hi")], config=config))
    assert body.get("generationConfig", {}) == generation
    assert {k: v for k, v in body.items() if k not in ("contents", "generationConfig")} == top_level


async def test_http_options_timeout_applies(server: FakeServer) -> None:
    server.reply(text_answer("late"), delay=5)
    request = LlmRequest(contents=[UserContent("hi")], config={"http_options": {"timeout": 200}})
    with pytest.raises(ModelError) as caught:
        await generate(model(server, timeout=60), request)
    assert caught.value.message == (
        f"{SERVICE}: no answer within 0.2 s. Set YADK_MODEL_TIMEOUT (seconds) to wait longer,"
        " or pass timeout= to the model."
    )


async def test_thought_signatures_go_back(server: FakeServer) -> None:
    call = {"name": "lookup", "args": {"key": "signature-test"}}
    server.reply(
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [{"functionCall": call, "thoughtSignature": "c2lnbmVk"}],
                    },
                    "finishReason": "STOP",
                }
            ]
        }
    )
    llm = model(server, "gemini-3-flash-preview")
    first = await generate(llm, LlmRequest(contents=[UserContent("go")]))
    assert first.content == ModelContent([Part.from_function_call(**call)])

    history = [
        UserContent("go"),
        first.content,
        Content(role="user", parts=[Part.from_function_response(name="lookup", response={"v": 1})]),
        ModelContent([Part.from_function_call(name="lookup", args={"key": "never-seen"})]),
    ]
    body = llm.request_body(LlmRequest(contents=history))
    assert body["contents"][1]["parts"] == [{"functionCall": call, "thoughtSignature": "c2lnbmVk"}]
    # A Gemini 3 call whose signature is unknown carries the documented skip value.
    assert body["contents"][3]["parts"] == [
        {
            "functionCall": {"name": "lookup", "args": {"key": "never-seen"}},
            "thoughtSignature": "skip_thought_signature_validator",
        }
    ]
    older = Gemini(MODEL).request_body(LlmRequest(contents=history))
    assert older["contents"][3]["parts"] == [
        {"functionCall": {"name": "lookup", "args": {"key": "never-seen"}}}
    ]


@pytest.mark.parametrize(
    "answer, expected",
    [
        (
            {
                "candidates": [
                    {
                        "content": {
                            "role": "model",
                            "parts": [
                                {"text": "Let me check.", "thought": True},
                                {"text": "Checking."},
                                {"functionCall": {"name": "f", "args": {"a": 1}, "id": "c1"}},
                                {"functionCall": {"name": "g"}},
                                {"executableCode": {"code": "print(1)"}},
                            ],
                        },
                        "finishReason": "STOP",
                    }
                ]
            },
            LlmResponse(
                content=ModelContent(
                    [
                        Part(text="Let me check.", thought=True),
                        Part(text="Checking."),
                        {"function_call": {"name": "f", "args": {"a": 1}, "id": "c1"}},
                        {"function_call": {"name": "g"}},
                        {"executable_code": {"code": "print(1)"}},
                    ]
                ),
                finish_reason="STOP",
            ),
        ),
        (
            {"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 4}},
            LlmResponse(
                error_code="SAFETY",
                error_message="Gemini blocked the prompt (SAFETY).",
                usage_metadata={"prompt_token_count": 4},
            ),
        ),
        (
            {"promptFeedback": {"blockReason": "OTHER", "blockReasonMessage": "Not allowed."}},
            LlmResponse(error_code="OTHER", error_message="Not allowed."),
        ),
        (
            {"candidates": [{"finishReason": "MAX_TOKENS"}]},
            LlmResponse(
                error_code="MAX_TOKENS",
                error_message="Gemini returned no content (finish reason MAX_TOKENS).",
                finish_reason="MAX_TOKENS",
            ),
        ),
        (
            {
                "candidates": [
                    {
                        "finishReason": "MALFORMED_FUNCTION_CALL",
                        "finishMessage": "Malformed function call: print(",
                    }
                ]
            },
            LlmResponse(
                error_code="MALFORMED_FUNCTION_CALL",
                error_message="Malformed function call: print(",
                finish_reason="MALFORMED_FUNCTION_CALL",
            ),
        ),
        (
            {"candidates": [{"content": {"role": "model"}, "finishReason": "STOP"}]},
            LlmResponse(content=ModelContent([]), finish_reason="STOP"),
        ),
        ({}, LlmResponse(content=ModelContent([]))),
        (
            {
                "candidates": [
                    {
                        "content": {
                            "role": "model",
                            "parts": [
                                {"inlineData": {"mimeType": "image/png", "data": "iVBORw=="}}
                            ],
                        },
                        "finishReason": "STOP",
                    }
                ]
            },
            LlmResponse(
                content=ModelContent([Part.from_bytes(data=b"\x89PNG", mime_type="image/png")]),
                finish_reason="STOP",
            ),
        ),
    ],
    ids=[
        "parts",
        "blocked",
        "blocked-with-message",
        "max-tokens-empty",
        "finish-message",
        "no-parts",
        "empty",
        "inline-data",
    ],
)
def test_parse_response(answer: dict[str, Any], expected: LlmResponse) -> None:
    assert parse_response(answer) == expected


API_KEY_INVALID = {
    "error": {
        "code": 400,
        "message": "API key not valid. Please pass a valid API key.",
        "status": "INVALID_ARGUMENT",
    }
}


@pytest.mark.parametrize(
    "status, reply, expected",
    [
        (
            400,
            {"body": API_KEY_INVALID},
            (
                f"{SERVICE}: HTTP 400 Bad Request: API key not valid. Please pass a valid API key."
                f" {KEY_HINT} Check that the key is valid and the Generative Language API is enabled"
                " for its project."
            ),
        ),
        (
            400,
            {"body": {"error": {"code": 400, "message": "Invalid JSON payload received"}}},
            (
                f"{SERVICE}: HTTP 400 Bad Request: Invalid JSON payload received. `yadk inspect`"
                " shows the request the agent builds."
            ),
        ),
        (
            403,
            {"body": {"error": {"code": 403, "message": "Permission denied"}}},
            (
                f"{SERVICE}: HTTP 403 Forbidden: Permission denied. {KEY_HINT} Check that the key is"
                " valid and the Generative Language API is enabled for its project."
            ),
        ),
        (
            404,
            {"body": {"error": {"code": 404, "message": "models/gemini-2.5-flash is not found"}}},
            (
                f"{SERVICE}: HTTP 404 Not Found: models/gemini-2.5-flash is not found. Check the"
                f" model name {MODEL!r} (see https://ai.google.dev/gemini-api/docs/models) and"
                " YADK_GEMINI_BASE_URL."
            ),
        ),
        (
            429,
            {"body": {"error": {"code": 429, "message": "Resource has been exhausted"}}},
            (
                f"{SERVICE}: HTTP 429 Too Many Requests: Resource has been exhausted. Rate limit or"
                " quota exceeded: wait and retry, or check your quota."
            ),
        ),
        (
            500,
            {"body": {"error": {"code": 500, "message": "An internal error has occurred."}}},
            (
                f"{SERVICE}: HTTP 500 Internal Server Error: An internal error has occurred. The"
                " Gemini service failed; try again later."
            ),
        ),
        (
            502,
            {"raw": b"<html>\n  Bad gateway\n</html>"},
            (
                f"{SERVICE}: HTTP 502 Bad Gateway: <html> Bad gateway </html>. The Gemini service"
                " failed; try again later."
            ),
        ),
        (
            200,
            {"raw": b"not json at all"},
            (
                f"{SERVICE}: the server answered HTTP 200 with a body that is not JSON: 'not json at"
                " all'. Check that the base URL points at the API itself."
            ),
        ),
        (
            200,
            {"body": [1, 2]},
            f"{SERVICE}: expected a JSON object in the answer, got list: '[1, 2]'.",
        ),
        (
            200,
            {"body": {"candidates": [{"content": {"parts": [{"functionCall": {}}]}}]}},
            f"{SERVICE}: the answer does not have the generateContent shape (KeyError: 'name').",
        ),
    ],
    ids=[
        "bad-key",
        "bad-request",
        "forbidden",
        "not-found",
        "rate-limit",
        "server-error",
        "html-error",
        "malformed-json",
        "not-an-object",
        "wrong-shape",
    ],
)
async def test_errors(
    server: FakeServer, status: int, reply: dict[str, Any], expected: str
) -> None:
    server.reply(status=status, **reply)
    with pytest.raises(ModelError) as caught:
        await generate(model(server), LlmRequest(contents=[UserContent("hi")]))
    assert caught.value.message == expected


async def test_retries_transient_failures(server: FakeServer) -> None:
    server.reply(status=503, body={"error": {"message": "overloaded"}})
    server.reply(status=429, body={"error": {"message": "slow down"}}, headers={"Retry-After": "0"})
    server.reply(text_answer("finally"))
    response = await generate(
        model(server, retries=2, retry_delay=0), LlmRequest(contents=[UserContent("hi")])
    )
    assert response.content == ModelContent("finally")
    assert len(server.requests) == 3
    assert server.bodies[0] == server.bodies[2]


async def test_gives_up_after_retries(server: FakeServer) -> None:
    for _ in range(2):
        server.reply(status=503, body={"error": {"message": "The model is overloaded."}})
    server.reply(text_answer("too late"))
    with pytest.raises(ModelError) as caught:
        await generate(
            model(server, retries=1, retry_delay=0), LlmRequest(contents=[UserContent("hi")])
        )
    assert caught.value.message == (
        f"{SERVICE}: HTTP 503 Service Unavailable (after 2 attempts): The model is overloaded."
        " The Gemini service failed; try again later."
    )
    assert len(server.requests) == 2


async def test_400_is_not_retried(server: FakeServer) -> None:
    server.reply(status=400, body={"error": {"message": "bad"}})
    with pytest.raises(ModelError):
        await generate(
            model(server, retries=3, retry_delay=0), LlmRequest(contents=[UserContent("hi")])
        )
    assert len(server.requests) == 1


async def test_timeout(server: FakeServer) -> None:
    server.reply(text_answer("late"), delay=5)
    with pytest.raises(ModelError) as caught:
        await generate(model(server, timeout=0.2), LlmRequest(contents=[UserContent("hi")]))
    assert caught.value.message == (
        f"{SERVICE}: no answer within 0.2 s. Set YADK_MODEL_TIMEOUT (seconds) to wait longer,"
        " or pass timeout= to the model."
    )


async def test_connection_refused(server: FakeServer) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    llm = Gemini(MODEL, api_key="k", base_url=f"http://127.0.0.1:{port}/v1beta", retries=0)
    with pytest.raises(ModelError) as caught:
        await generate(llm, LlmRequest(contents=[UserContent("hi")]))
    assert caught.value.message == (
        f"{SERVICE}: cannot connect to http://127.0.0.1:{port}: Connection refused. Is the"
        " server running and reachable?"
    )


async def test_missing_key_fails_before_sending(server: FakeServer) -> None:
    with pytest.raises(ModelError) as caught:
        await generate(Gemini(MODEL), LlmRequest(contents=[UserContent("hi")]))
    assert caught.value.message == f"{SERVICE}: no API key. {KEY_HINT}"


@pytest.mark.parametrize(
    "env, expected_key",
    [
        ({"GOOGLE_API_KEY": "google"}, "google"),
        ({"GEMINI_API_KEY": "gemini"}, "gemini"),
        ({"GOOGLE_API_KEY": "google", "GEMINI_API_KEY": "gemini"}, "google"),
        ({}, None),
    ],
)
@pytest.mark.slow
async def test_key_and_base_url_from_environment(
    server: FakeServer,
    monkeypatch: pytest.MonkeyPatch,
    env: dict[str, str],
    expected_key: str | None,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("YADK_GEMINI_BASE_URL", server.url + "/proxy/v1beta/")
    server.reply(text_answer("ok"))
    await generate(Gemini(MODEL, retries=0), LlmRequest(contents=[UserContent("hi")]))
    [sent] = server.requests
    assert sent.path == "/proxy/v1beta/models/gemini-2.5-flash:generateContent"
    assert sent.headers.get("x-goog-api-key") == expected_key


async def test_key_never_logged_or_reported(
    server: FakeServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    server.reply(status=401, body={"error": {"message": "denied"}})
    llm = Gemini(MODEL, api_key="sk-secret-123", base_url=server.url, retries=0)
    with pytest.raises(ModelError) as caught:
        await generate(llm, LlmRequest(contents=[UserContent("hi")]))
    assert "sk-secret-123" not in caught.value.message
    assert "sk-secret-123" not in repr(llm)
    assert "POST" in caplog.text
    assert "sk-secret-123" not in caplog.text


def test_model_name_prefix_and_url() -> None:
    llm = Gemini("models/gemini-2.0-flash")
    assert llm.model == "gemini-2.0-flash"
    assert llm.url == (
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent"
    )
    with pytest.raises(ModelError, match="needs a name"):
        Gemini("")


REPORTED = {
    "avgLogprobs": -0.25,
    "logprobsResult": {
        "topCandidates": [{"candidates": [{"token": "Hi", "logProbability": -0.25}]}],
        "chosenCandidates": [{"token": "Hi", "logProbability": -0.25}],
    },
    "citationMetadata": {
        "citations": [{"startIndex": 0, "endIndex": 2, "uri": "https://example.com/a"}]
    },
}


@pytest.mark.parametrize("stream", [False, True])
async def test_model_version_logprobs_and_citations_are_kept(
    server: FakeServer, stream: bool
) -> None:
    answer = text_answer("Hi", modelVersion="gemini-2.5-flash-001")
    answer["candidates"][0].update(REPORTED)
    if stream:
        server.reply(chunks=[f"data: {json.dumps(answer)}\r\n\r\n".encode()])
    else:
        server.reply(answer)
    responses = [
        r
        async for r in model(server).generate_content_async(
            LlmRequest(contents=[UserContent("hi")]), stream=stream
        )
    ]
    final = responses[-1]
    assert final.model_version == "gemini-2.5-flash-001"
    assert final.avg_logprobs == -0.25
    assert final.citation_metadata == {
        "citations": [{"start_index": 0, "end_index": 2, "uri": "https://example.com/a"}]
    }
    if not stream:  # log probabilities are per chunk when streamed: kept whole answers only
        assert final.logprobs_result == {
            "top_candidates": [{"candidates": [{"token": "Hi", "log_probability": -0.25}]}],
            "chosen_candidates": [{"token": "Hi", "log_probability": -0.25}],
        }
