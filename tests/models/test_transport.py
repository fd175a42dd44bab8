"""The HTTP layer under the backends: kept-alive connections, dropped connections, proxies."""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING, Any

import pytest

from yadk.errors import ModelError
from yadk.models import LlmRequest, OpenAIChat
from yadk.models._transport import post
from yadk.types import UserContent

if TYPE_CHECKING:
    from tests.models.conftest import FakeServer

ANSWER = {"choices": [{"message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]}


async def ask(model: OpenAIChat) -> str:
    [response] = [
        r async for r in model.generate_content_async(LlmRequest(contents=[UserContent("hi")]))
    ]
    assert response.content is not None
    return response.content.parts[0].text or ""


async def test_connection_is_reused(keepalive_server: FakeServer) -> None:
    for _ in range(3):
        keepalive_server.reply(ANSWER)
    model = OpenAIChat("m", base_url=keepalive_server.url, retries=0)
    assert [await ask(model) for _ in range(3)] == ["ok", "ok", "ok"]
    ports = {r.client_port for r in keepalive_server.requests}
    assert len(keepalive_server.requests) == 3
    assert len(ports) == 1


async def test_dropped_idle_connection_is_replaced(keepalive_server: FakeServer) -> None:
    keepalive_server.reply(ANSWER, drop_connection=True)
    keepalive_server.reply(ANSWER)
    model = OpenAIChat("m", base_url=keepalive_server.url, retries=0)
    assert await ask(model) == "ok"
    assert await ask(model) == "ok"
    first, second = keepalive_server.requests
    assert first.client_port != second.client_port


async def test_http_1_0_server_closes_each_connection(server: FakeServer) -> None:
    server.reply(ANSWER)
    server.reply(ANSWER)
    model = OpenAIChat("m", base_url=server.url, retries=0)
    assert [await ask(model), await ask(model)] == ["ok", "ok"]
    assert len({r.client_port for r in server.requests}) == 2


def test_proxy_from_environment(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    # The fake server plays the proxy: urllib sends it the absolute URL of the real target.
    monkeypatch.setenv("HTTP_PROXY", server.url)
    server.reply(ANSWER)
    reply = post(
        "http://llm.example/v1/chat/completions", b"{}", {"Content-Type": "application/json"}, 5
    )
    assert reply.status == 200
    assert server.requests[0].path == "http://llm.example/v1/chat/completions"


async def test_loopback_never_uses_the_proxy(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        dead = probe.getsockname()[1]
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{dead}")
    server.reply(ANSWER)
    assert await ask(OpenAIChat("m", base_url=server.url, retries=0)) == "ok"
    assert server.requests[0].path == "/chat/completions"


async def test_unsupported_scheme(server: FakeServer) -> None:
    model: Any = OpenAIChat("m", base_url="ftp://files.example/v1", retries=0)
    with pytest.raises(ModelError) as caught:
        await ask(model)
    assert caught.value.message == (
        "OpenAI-compatible model 'm' at ftp://files.example/v1: cannot connect to"
        " ftp://files.example: unsupported URL 'ftp://files.example/v1/chat/completions'"
        " (expected http:// or https://). Is the server running and reachable?"
    )
