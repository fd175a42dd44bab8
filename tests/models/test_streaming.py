"""Streaming over SSE from a loopback server: partial text as it arrives, tool calls assembled
from their pieces, usage on the final event, cancellation mid-stream, the SSE decoder itself."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

import pytest
from tests.models.conftest import sse

from yadk import LlmAgent, Runner
from yadk.agents import RunConfig
from yadk.errors import ModelError
from yadk.events import Event
from yadk.models import Gemini, LlmRequest, LlmResponse, OpenAIChat
from yadk.models._sse import SseDecoder, SseEvent
from yadk.types import Content, FunctionCall, Part, UserContent

if TYPE_CHECKING:
    from tests.models.conftest import FakeServer


def get_weather(city: str) -> dict[str, Any]:
    """Current weather for a city."""
    return {"city": city, "temp_c": 21}


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "c1",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


OPENAI_USAGE = {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}
USAGE = {"prompt_token_count": 12, "candidates_token_count": 5, "total_token_count": 17}


async def collect(llm: Any, request: LlmRequest | None = None) -> list[LlmResponse]:
    request = request or LlmRequest(contents=[UserContent("hi")])
    return [r async for r in llm.generate_content_async(request, stream=True)]


def texts(responses: list[LlmResponse]) -> list[tuple[bool, str]]:
    out = []
    for r in responses:
        assert r.content is not None
        out.append((bool(r.partial), "".join(p.text or "" for p in r.content.parts)))
    return out


async def test_openai_streams_text(server: FakeServer) -> None:
    server.reply(
        chunks=sse(
            chunk({"role": "assistant", "content": ""}),
            chunk({"content": "Hel"}),
            chunk({"content": "lo!"}),
            chunk({}, "stop"),
            {"id": "c1", "choices": [], "usage": OPENAI_USAGE},
            done=True,
        )
    )
    llm = OpenAIChat("m", base_url=server.url, retries=0)
    responses = await collect(llm)
    assert texts(responses) == [(True, "Hel"), (True, "lo!"), (False, "Hello!")]
    final = responses[-1]
    # No turn_complete: google-adk's backends set it only in live mode.
    assert (final.finish_reason, final.usage_metadata, final.turn_complete) == (
        "STOP",
        USAGE,
        None,
    )
    body = server.requests[0].body
    assert (body["stream"], body["stream_options"]) == (True, {"include_usage": True})


async def test_openai_assembles_tool_calls_from_pieces(server: FakeServer) -> None:
    server.reply(
        chunks=sse(
            chunk({"role": "assistant", "content": "Checking."}),
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "call_a",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": ""},
                        }
                    ]
                }
            ),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"ci'}}]}),
            chunk(
                {
                    "tool_calls": [
                        {"index": 1, "id": "call_b", "function": {"name": "get_weather"}},
                        {"index": 0, "function": {"arguments": 'ty": "Paris"}'}},
                    ]
                }
            ),
            chunk({"tool_calls": [{"index": 1, "function": {"arguments": '{"city": "Rome"}'}}]}),
            chunk({}, "tool_calls"),
            done=True,
        )
    )
    responses = await collect(OpenAIChat("m", base_url=server.url, retries=0))
    assert [r.partial for r in responses] == [True, None]
    final = responses[-1]
    assert final.content == Content(
        role="model",
        parts=[
            Part(text="Checking."),
            Part(
                function_call=FunctionCall(id="call_a", name="get_weather", args={"city": "Paris"})
            ),
            Part(
                function_call=FunctionCall(id="call_b", name="get_weather", args={"city": "Rome"})
            ),
        ],
    )


async def test_openai_stream_error_event(server: FakeServer) -> None:
    server.reply(chunks=sse(chunk({"content": "Hi"}), {"error": {"message": "upstream died"}}))
    llm = OpenAIChat("m", base_url=server.url, retries=0)
    with pytest.raises(ModelError) as caught:
        await collect(llm)
    assert caught.value.message == (
        f"OpenAI-compatible model 'm' at {server.url}: the server reported an error: upstream died"
    )


async def test_openai_stream_that_ends_without_an_answer(server: FakeServer) -> None:
    server.reply(chunks=[b": keep-alive\n\n"])
    with pytest.raises(ModelError, match="the stream ended without an answer"):
        await collect(OpenAIChat("m", base_url=server.url, retries=0))


def gemini_chunk(parts: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    candidate.update(extra)
    return {"candidates": [candidate], "modelVersion": "gemini-2.5-flash"}


async def test_gemini_streams_over_sse(server: FakeServer) -> None:
    usage = {"promptTokenCount": 12, "candidatesTokenCount": 5, "totalTokenCount": 17}
    server.reply(
        chunks=[
            line.replace(b"\n\n", b"\r\n\r\n")
            for line in sse(
                gemini_chunk([{"text": "Thinking...", "thought": True}]),
                gemini_chunk([{"text": "Hel"}]),
                gemini_chunk([{"text": "lo!"}]),
                gemini_chunk(
                    [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}],
                    finishReason="STOP",
                )
                | {"usageMetadata": usage},
            )
        ]
    )
    llm = Gemini("gemini-2.5-flash", api_key="k", base_url=server.url, retries=0)
    responses = await collect(llm)
    assert server.requests[0].path == "/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    assert [r.partial for r in responses] == [True, True, True, None]
    final = responses[-1]
    assert final.content == Content(
        role="model",
        parts=[
            Part(text="Thinking...", thought=True),
            Part(text="Hello!"),
            Part(function_call=FunctionCall(name="get_weather", args={"city": "Paris"})),
        ],
    )
    assert final.usage_metadata == USAGE
    assert final.finish_reason == "STOP"


async def test_gemini_stream_blocked_prompt(server: FakeServer) -> None:
    server.reply(chunks=sse({"promptFeedback": {"blockReason": "SAFETY"}}))
    llm = Gemini("gemini-2.5-flash", api_key="k", base_url=server.url, retries=0)
    [final] = await collect(llm)
    assert (final.error_code, final.error_message) == (
        "SAFETY",
        "Gemini blocked the prompt (SAFETY).",
    )


async def test_stream_errors_before_the_first_event_are_retried(server: FakeServer) -> None:
    server.reply(status=503, body={"error": {"message": "busy"}})
    server.reply(chunks=sse(chunk({"content": "ok"}), chunk({}, "stop"), done=True))
    llm = OpenAIChat("m", base_url=server.url, retries=1, retry_delay=0)
    assert texts(await collect(llm)) == [(True, "ok"), (False, "ok")]


async def test_cancelling_a_stream_closes_the_connection(server: FakeServer) -> None:
    server.reply(chunks=sse(*(chunk({"content": "word "}) for _ in range(200))), interval=0.05)
    llm = OpenAIChat("m", base_url=server.url, retries=0)
    first = asyncio.Event()

    async def consume() -> None:
        async for _ in llm.generate_content_async(
            LlmRequest(contents=[UserContent("hi")]), stream=True
        ):
            first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # The server sees the client go while the stream still had 10 s to run.
    assert await asyncio.to_thread(server.disconnected.wait, 5)


@pytest.mark.slow
async def test_a_slow_stream_hits_the_deadline(server: FakeServer) -> None:
    server.reply(chunks=sse(*(chunk({"content": "x"}) for _ in range(100))), interval=0.05)
    llm = OpenAIChat("m", base_url=server.url, retries=0, deadline=1.0)
    received: list[LlmResponse] = []
    with pytest.raises(ModelError, match="did not finish within its deadline of 1 s"):
        async for response in llm.generate_content_async(
            LlmRequest(contents=[UserContent("hi")]), stream=True
        ):
            received.append(response)
    assert len(received) < 60  # the whole stream takes 5 s


async def test_runner_streams_partial_events_and_stores_only_final_ones(
    server: FakeServer,
) -> None:
    server.reply(
        chunks=sse(
            chunk(
                {
                    "tool_calls": [
                        {"index": 0, "id": "c", "function": {"name": "get_weather"}},
                    ]
                }
            ),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city":"Paris"}'}}]}),
            chunk({}, "tool_calls"),
            done=True,
        )
    )
    server.reply(
        chunks=sse(
            chunk({"content": "21 °C "}),
            chunk({"content": "in Paris."}),
            chunk({}, "stop"),
            {"choices": [], "usage": OPENAI_USAGE},
            done=True,
        )
    )
    agent = LlmAgent(
        name="forecaster",
        model=OpenAIChat("m", base_url=server.url, retries=0),
        tools=[get_weather],
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
    ]
    rows = [(e.partial, e.text, [c.name for c in e.get_function_calls()]) for e in events]
    assert rows == [
        (None, "Weather in Paris?", []),
        (None, "", ["get_weather"]),
        (None, "", []),
        (True, "21 °C ", []),
        (True, "in Paris.", []),
        (None, "21 °C in Paris.", []),
    ]
    assert events[-1].usage_metadata == USAGE
    stored = await runner.session_service.get_session(
        app_name="app", user_id="u", session_id=session.id
    )
    assert stored is not None
    assert [e.partial for e in stored.events] == [None] * 4
    assert stored.events[-1].usage_metadata == USAGE
    second_request = server.requests[1].body
    assert second_request["messages"][-1]["role"] == "tool"
    assert json.loads(second_request["messages"][-1]["content"]) == {"city": "Paris", "temp_c": 21}


@pytest.mark.parametrize(
    "pieces, expected",
    [
        ([b"data: a\n\n"], [SseEvent("message", "a")]),
        ([b"data: a\r\n\r\n"], [SseEvent("message", "a")]),
        (
            [b"data: a\r\rdata: b\r\r", b"data: c"],
            [SseEvent("message", "a"), SseEvent("message", "b")],
        ),
        ([b"data: a\r", b"\n\r", b"\n"], [SseEvent("message", "a")]),
        ([b"da", b'ta: {"x"', b": 1}\n", b"\n"], [SseEvent("message", '{"x": 1}')]),
        ([b"data: one\ndata: two\n\n"], [SseEvent("message", "one\ntwo")]),
        ([b"event: ping\ndata:\n\n"], [SseEvent("ping", "")]),
        ([b": comment\nid: 7\nretry: 10\ndata:x\n\n"], [SseEvent("message", "x")]),
        ([b"event: lonely\n\n", b"data: after\n\n"], [SseEvent("message", "after")]),
        ([b"\xef\xbb\xbfdata: bom\n\n"], [SseEvent("message", "bom")]),
        ([b"data: caf\xc3", b"\xa9\n\n"], [SseEvent("message", "café")]),
        ([b"data: unfinished\n"], []),
    ],
    ids=[
        "lf",
        "crlf",
        "cr",
        "crlf-split",
        "split-anywhere",
        "multi-line",
        "named-empty",
        "ignored-fields",
        "event-without-data",
        "bom",
        "utf8-split",
        "unterminated-dropped",
    ],
)
def test_sse_decoder(pieces: list[bytes], expected: list[SseEvent]) -> None:
    decoder = SseDecoder()
    events = [event for piece in pieces for event in decoder.feed(piece)]
    assert events == expected


@pytest.mark.parametrize("streaming", [True, False])
async def test_cancelling_an_invocation_closes_the_model_request(
    server: FakeServer, streaming: bool
) -> None:
    if streaming:
        server.reply(chunks=sse(*(chunk({"content": "word "}) for _ in range(200))), interval=0.05)
    else:
        server.reply({"choices": []}, delay=10)
    agent = LlmAgent(name="talker", model=OpenAIChat("m", base_url=server.url, retries=0))
    runner = Runner(app_name="app", agent=agent)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    seen: list[Event] = []

    async def invoke() -> None:
        async for event in runner.run_async(
            user_id="u",
            session_id=session.id,
            new_message="Talk to me.",
            run_config=RunConfig(streaming=streaming),
        ):
            seen.append(event)

    task = asyncio.create_task(invoke())
    while not (seen[1:] if streaming else server.requests):
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # The server sees the client go while the answer was still 10 s away.
    assert await asyncio.to_thread(server.disconnected.wait, 5)
