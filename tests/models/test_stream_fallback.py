"""A server asked to stream that answers one plain JSON body instead (old llama.cpp/vLLM
configurations, proxies): every backend reads it as the whole, non-streamed answer."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from yadk.errors import ModelError
from yadk.models import AnthropicLlm, Gemini, LlmRequest, LlmResponse, OpenAIChat
from yadk.types import Content, FunctionCall, Part, UserContent

if TYPE_CHECKING:
    from tests.models.conftest import FakeServer

CHAT = {
    "id": "c1",
    "object": "chat.completion",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": "Hello!",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                    }
                ],
            },
            "finish_reason": "tool_calls",
        }
    ],
    "usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17},
}
GEMINI = {
    "candidates": [
        {
            "content": {
                "role": "model",
                "parts": [
                    {"text": "Hello!"},
                    {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
                ],
            },
            "finishReason": "STOP",
        }
    ],
    "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 5, "totalTokenCount": 17},
}
MESSAGE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [
        {"type": "text", "text": "Hello!"},
        {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}},
    ],
    "stop_reason": "tool_use",
    "usage": {"input_tokens": 12, "output_tokens": 5},
}
USAGE = {"prompt_token_count": 12, "candidates_token_count": 5, "total_token_count": 17}


def backends(url: str) -> dict[str, Any]:
    return {
        "openai": (OpenAIChat("m", base_url=url, retries=0), CHAT, "call_1"),
        "gemini": (Gemini("gemini-2.5-flash", api_key="k", base_url=url, retries=0), GEMINI, None),
        "anthropic": (
            AnthropicLlm("claude-sonnet-4-5", api_key="k", base_url=url, retries=0),
            MESSAGE,
            "call_1",
        ),
    }


async def stream(llm: Any) -> list[LlmResponse]:
    request = LlmRequest(contents=[UserContent("hi")])
    return [r async for r in llm.generate_content_async(request, stream=True)]


def expected(call_id: str | None) -> Content:
    return Content(
        role="model",
        parts=[
            Part(text="Hello!"),
            Part(
                function_call=FunctionCall(id=call_id, name="get_weather", args={"city": "Paris"})
            ),
        ],
    )


@pytest.mark.parametrize("backend", ["openai", "gemini", "anthropic"])
@pytest.mark.parametrize(
    "content_type",
    ["application/json", "application/json; charset=utf-8", "text/plain", ""],
)
async def test_a_plain_json_answer_to_a_stream_request(
    server: FakeServer, backend: str, content_type: str
) -> None:
    llm, answer, call_id = backends(server.url)[backend]
    # Written in two pieces without a length, as a server that ignores `stream: true` may.
    raw = json.dumps(answer).encode()
    server.reply(chunks=[b"\n", raw[:20], raw[20:]], content_type=content_type)
    responses = await stream(llm)
    assert server.requests[0].body.get("stream", True) is True
    [final] = responses
    assert final.partial is None
    assert final.content == expected(call_id)
    assert final.usage_metadata == USAGE
    assert final.finish_reason == "STOP"


async def test_gemini_json_array_of_chunks(server: FakeServer) -> None:
    """streamGenerateContent without ``alt=sse`` answers a JSON array of chunks."""
    first = {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hel"}]}}]}
    server.reply(chunks=[json.dumps([first, GEMINI]).encode()], content_type="application/json")
    llm = Gemini("gemini-2.5-flash", api_key="k", base_url=server.url, retries=0)
    responses = await stream(llm)
    assert [r.partial for r in responses] == [True, True, None]
    assert responses[-1].content is not None
    assert responses[-1].content.parts[0] == Part(text="Hel" + "Hello!")


async def test_an_error_body_in_json_is_reported(server: FakeServer) -> None:
    server.reply(
        chunks=[b'{"error": {"message": "stream not supported"}}'], content_type="application/json"
    )
    with pytest.raises(ModelError, match="the server reported an error: stream not supported"):
        await stream(OpenAIChat("m", base_url=server.url, retries=0))


async def test_a_json_body_that_is_not_an_object(server: FakeServer) -> None:
    server.reply(chunks=[b'"just a string"'], content_type="application/json")
    with pytest.raises(ModelError, match="expected a JSON object in the answer, got str"):
        await stream(OpenAIChat("m", base_url=server.url, retries=0))


async def test_sse_without_a_content_type_still_streams(server: FakeServer) -> None:
    chunk = {"choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}]}
    server.reply(chunks=[f"data: {json.dumps(chunk)}\n\n".encode()], content_type="")
    responses = await stream(OpenAIChat("m", base_url=server.url, retries=0))
    assert [r.partial for r in responses] == [True, None]
