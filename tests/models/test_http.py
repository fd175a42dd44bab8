"""The HTTP layer under the backends, against a real loopback server: pooling, proxies, retries,
concurrency, cancellation, the call deadline and the response size cap."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import ssl
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import certifi
import httpx
import pytest

from yadk.errors import ModelError
from yadk.models import LlmRequest, OpenAIChat, _client, override_allow_model_requests
from yadk.models._client import SHARDS, client_for, close_clients, in_flight
from yadk.models._http import Call, _backoff
from yadk.models._rest import HttpSettings, RetryOptions
from yadk.types import UserContent

if TYPE_CHECKING:
    from tests.models.conftest import FakeServer

ANSWER = {"choices": [{"message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]}
SERVICE = "OpenAI-compatible model 'm'"


def local(server: FakeServer, **kw: Any) -> OpenAIChat:
    kw.setdefault("retries", 0)
    return OpenAIChat("m", base_url=server.url, **kw)


async def ask(model: OpenAIChat) -> str:
    [response] = [
        r async for r in model.generate_content_async(LlmRequest(contents=[UserContent("hi")]))
    ]
    assert response.content is not None
    return response.content.parts[0].text or ""


async def failure(model: OpenAIChat) -> str:
    with pytest.raises(ModelError) as caught:
        await ask(model)
    return caught.value.message


async def test_connection_is_reused(keepalive_server: FakeServer) -> None:
    for _ in range(3):
        keepalive_server.reply(ANSWER)
    model = local(keepalive_server)
    assert [await ask(model) for _ in range(3)] == ["ok", "ok", "ok"]
    assert len({r.client_port for r in keepalive_server.requests}) == 1


async def test_dropped_idle_connection_is_replaced(keepalive_server: FakeServer) -> None:
    keepalive_server.reply(ANSWER, drop_connection=True)
    keepalive_server.reply(ANSWER)
    model = local(keepalive_server)
    assert await ask(model) == "ok"
    assert await ask(model) == "ok"
    first, second = keepalive_server.requests
    assert first.client_port != second.client_port


@pytest.mark.slow
async def test_proxy_from_environment(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    # The fake server plays the proxy: it receives the absolute URL of the real target.
    monkeypatch.setenv("HTTP_PROXY", server.url)
    server.reply(ANSWER)
    assert await ask(OpenAIChat("m", base_url="http://llm.example/v1", retries=0)) == "ok"
    assert server.requests[0].path == "http://llm.example/v1/chat/completions"


async def test_loopback_never_uses_the_proxy(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        dead = probe.getsockname()[1]
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{dead}")
    server.reply(ANSWER)
    assert await ask(local(server)) == "ok"
    assert server.requests[0].path == "/chat/completions"


async def test_unsupported_scheme(server: FakeServer) -> None:
    model = OpenAIChat("m", base_url="ftp://files.example/v1", retries=0)
    assert await failure(model) == (
        "OpenAI-compatible model 'm' at ftp://files.example/v1: unsupported URL"
        " 'ftp://files.example/v1/chat/completions' (expected http:// or https://). Check the"
        " base URL."
    )


async def test_connection_reset_is_retried(server: FakeServer) -> None:
    server.reply(reset=True)
    server.reply(reset=True)
    server.reply(ANSWER)
    assert await ask(local(server, retries=1, retry_delay=0)) == "ok"
    assert len(server.requests) == 3


async def test_a_reset_is_sent_again_once_even_without_retries(server: FakeServer) -> None:
    # What a kept-alive connection closed by the server looks like: one free second try.
    server.reply(reset=True)
    server.reply(ANSWER)
    assert await ask(local(server)) == "ok"
    assert len(server.requests) == 2


async def test_connection_reset_without_retries(server: FakeServer) -> None:
    server.reply(reset=True)
    server.reply(reset=True)
    server.reply(ANSWER)
    message = await failure(local(server))
    assert message.startswith(
        f"{SERVICE} at {server.url}: the connection to {server.url} broke before an answer"
        " arrived: "
    )
    assert message.endswith(". Is the server running and reachable?")
    assert len(server.requests) == 2


def test_backoff_doubles_with_jitter() -> None:
    call = Call(
        client=httpx.AsyncClient(),
        url="http://x",
        body={},
        headers={},
        settings=HttpSettings(timeout=1, retries=3, retry_delay=1.0),
        service="s",
        hint=lambda status, message: "",
    )
    for attempt, base in ((1, 1.0), (2, 2.0), (3, 4.0)):
        delays = {_backoff(call, attempt) for _ in range(50)}
        assert all(0.5 * base <= d < 1.5 * base for d in delays)
        assert len(delays) > 40  # jittered, not in step


async def test_64_concurrent_calls_are_at_the_server_at_once(server: FakeServer) -> None:
    # No reply goes out before all 64 requests are in: calls made one after another (or a few
    # at a time) would leave the barrier short, and it breaks after its timeout. How long 64
    # calls take is measured by bench/bench_backends.py.
    together = threading.Barrier(64, timeout=60)
    for _ in range(64):
        server.reply(ANSWER, together=together)
    model = local(server)
    answers = await asyncio.gather(*(ask(model) for _ in range(64)))
    assert answers == ["ok"] * 64
    assert not together.broken


async def test_cancelling_a_call_closes_its_connection(server: FakeServer) -> None:
    server.reply(ANSWER, delay=10)
    task = asyncio.create_task(ask(local(server)))
    while not server.requests:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # The server sees the client go while it still holds the answer back (for 10 s).
    assert await asyncio.to_thread(server.disconnected.wait, 5)
    assert server.disconnects == 1


def drip(total: int) -> Iterator[bytes]:
    body = json.dumps(ANSWER).encode()
    body += b" " * max(0, total - len(body))
    for i in range(len(body)):
        yield body[i : i + 1]


@pytest.mark.slow
async def test_a_dripping_server_hits_the_deadline(server: FakeServer) -> None:
    server.reply(chunks=drip(1000), interval=0.05, content_type="application/json")
    message = await failure(local(server, timeout=5, deadline=0.6))
    assert message == (
        f"{SERVICE} at {server.url}: the call did not finish within its deadline of 0.6 s."
        " Set YADK_MODEL_DEADLINE (seconds) to allow longer calls, or pass deadline= to the model."
    )
    assert await asyncio.to_thread(server.disconnected.wait, 5)  # cut mid-drip (50 s long)


@pytest.mark.slow
async def test_deadline_covers_retries(server: FakeServer) -> None:
    for _ in range(5):
        server.reply(status=503, body={"error": {"message": "busy"}}, headers={"Retry-After": "30"})
    message = await failure(local(server, retries=4, deadline=1.0))
    assert "did not finish within its deadline of 1 s" in message
    assert len(server.requests) <= 1  # no retry after the 30 s the server asked to wait


def huge(total: int, size: int = 1 << 16) -> Iterator[bytes]:
    chunk = b"x" * size
    for _ in range(total // size):
        yield chunk


CAP_MESSAGE = (
    f"{SERVICE} at {{url}}: the answer is larger than 1048576 bytes, the response size cap. Set"
    " YADK_MODEL_MAX_RESPONSE_BYTES to accept more, or pass max_response_bytes= to the model."
)


async def test_a_huge_body_hits_the_size_cap(server: FakeServer) -> None:
    # 300 MB announced by no Content-Length: read in chunks, stopped past the cap.
    server.reply(chunks=huge(300 * 1024 * 1024), content_type="application/json")
    message = await failure(local(server, max_response_bytes=1024 * 1024))
    assert message == CAP_MESSAGE.format(url=server.url)
    assert await asyncio.to_thread(server.disconnected.wait, 10)
    assert server.bytes_sent < 100 * 1024 * 1024


async def test_a_declared_huge_body_fails_before_reading(server: FakeServer) -> None:
    server.reply(
        chunks=[b"{}"], headers={"Content-Length": str(300 * 1024 * 1024)}, content_type="x/y"
    )
    message = await failure(local(server, max_response_bytes=1024 * 1024))
    assert message == CAP_MESSAGE.format(url=server.url)


async def test_settings_from_the_environment(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("YADK_MODEL_DEADLINE", "0.4")
    monkeypatch.setenv("YADK_MODEL_MAX_RESPONSE_BYTES", "10")
    model = local(server)
    assert (model.settings.deadline, model.settings.max_response_bytes) == (0.4, 10)
    server.reply(ANSWER)
    assert "larger than 10 bytes" in await failure(model)


async def test_injected_transport() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=ANSWER)

    model = OpenAIChat("m", base_url="http://mock/v1", transport=httpx.MockTransport(handler))
    with override_allow_model_requests(True):
        assert await ask(model) == "ok"
    assert str(seen[0].url) == "http://mock/v1/chat/completions"
    assert json.loads(seen[0].content)["messages"] == [{"role": "user", "content": "hi"}]


async def test_injected_client_is_used_and_left_open() -> None:
    async with httpx.AsyncClient(
        transport=httpx.MockTransport(lambda request: httpx.Response(200, json=ANSWER)),
        headers={"X-Team": "blue"},
    ) as client:
        model = OpenAIChat("m", base_url="http://mock/v1", http_client=client)
        with override_allow_model_requests(True):
            assert await ask(model) == "ok"
            assert await ask(model) == "ok"
        assert not client.is_closed


async def test_switch_still_forbids_requests_with_an_injected_client() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=ANSWER)

    model = OpenAIChat("m", base_url="http://mock/v1", transport=httpx.MockTransport(handler))
    message = await failure(model)
    assert message.startswith("Real model requests are disabled")
    assert seen == []


async def test_shared_clients_per_loop_closed_with_it() -> None:
    first = await client_for()
    assert await client_for() is first  # nothing in flight: the same warm pool
    busy = []
    with contextlib.ExitStack() as stack:
        for _ in range(SHARDS):
            client = await client_for()
            busy.append(client)
            stack.enter_context(in_flight(client))
        assert len({id(c) for c in busy}) == SHARDS  # each call took the least busy shard
        assert (await client_for()) is first
    transport = httpx.MockTransport(lambda request: httpx.Response(200))
    own = await client_for(transport)
    assert await client_for(transport) is own
    await close_clients()
    assert all(c.is_closed for c in [*busy, own])
    assert await client_for() is not first


async def test_the_event_loop_runs_while_a_call_waits_for_its_answer(server: FakeServer) -> None:
    # The server holds the answer back for a minute, until this coroutine releases it: a call
    # that blocked the loop would be done (a minute later) before the coroutine ran again.
    server.reply(ANSWER, delay=60)
    call = asyncio.ensure_future(ask(local(server)))
    while not server.requests:
        await asyncio.sleep(0.01)
    assert not call.done()
    server.release.set()
    assert await call == "ok"


# --- generate_content_config.http_options.retry_options (google-genai's HttpRetryOptions) -----

BUSY = {"error": {"message": "busy"}}


async def ask_with(model: OpenAIChat, config: dict[str, Any]) -> str:
    request = LlmRequest(contents=[UserContent("hi")], config=config)
    [response] = [r async for r in model.generate_content_async(request)]
    assert response.content is not None
    return response.content.parts[0].text or ""


def retrying(**options: Any) -> dict[str, Any]:
    return {"http_options": {"retry_options": options}}


async def test_retry_options_attempts_replace_the_models_retries(server: FakeServer) -> None:
    for _ in range(3):
        server.reply(BUSY, status=503)
    server.reply(ANSWER)
    config = retrying(attempts=4, initial_delay=0, jitter=0)
    assert await ask_with(local(server, retries=0), config) == "ok"
    assert len(server.requests) == 4


async def test_retry_options_give_up_after_the_attempts(server: FakeServer) -> None:
    for _ in range(3):
        server.reply(BUSY, status=503)
    server.reply(ANSWER)
    with pytest.raises(ModelError) as caught:
        await ask_with(local(server, retries=5), retrying(attempts=2, initial_delay=0, jitter=0))
    assert caught.value.message.startswith(
        f"{SERVICE} at {server.url}: HTTP 503 Service Unavailable (after 2 attempts): busy."
    )
    assert len(server.requests) == 2


@pytest.mark.parametrize("attempts", [0, 1])
async def test_retry_options_zero_or_one_attempt_means_no_retry(
    server: FakeServer, attempts: int
) -> None:
    server.reply(BUSY, status=503)
    server.reply(ANSWER)
    with pytest.raises(ModelError):
        await ask_with(local(server, retries=3), retrying(attempts=attempts, initial_delay=0))
    assert len(server.requests) == 1


async def test_retry_options_default_to_five_attempts(server: FakeServer) -> None:
    for _ in range(5):
        server.reply(BUSY, status=500)
    server.reply(ANSWER)
    with pytest.raises(ModelError) as caught:
        await ask_with(local(server), retrying(initial_delay=0, jitter=0))
    assert "(after 5 attempts)" in caught.value.message
    assert len(server.requests) == 5


async def test_retry_options_status_codes(server: FakeServer) -> None:
    server.reply(BUSY, status=418)
    server.reply(ANSWER)
    config = retrying(attempts=3, initial_delay=0, jitter=0, http_status_codes=[418])
    assert await ask_with(local(server), config) == "ok"
    server.reply(BUSY, status=503)  # not in the list: not retried
    server.reply(ANSWER)
    with pytest.raises(ModelError) as caught:
        await ask_with(local(server), config)
    assert "HTTP 503" in caught.value.message
    assert len(server.requests) == 3


def _waits(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The waits the retries announced ("retrying in 0.2 s"), in order."""
    return [
        r.getMessage().rsplit("retrying in ", 1)[1]
        for r in caplog.records
        if r.name == "yadk.models" and "retrying in " in r.getMessage()
    ]


@pytest.mark.slow
async def test_retry_options_camel_case_and_waits(
    server: FakeServer, caplog: pytest.LogCaptureFixture
) -> None:
    server.reply(BUSY, status=429)
    server.reply(BUSY, status=429)
    server.reply(ANSWER)
    config = {"httpOptions": {"retryOptions": {"initialDelay": 0.2, "expBase": 2, "jitter": 0}}}
    with caplog.at_level(logging.INFO, logger="yadk.models"):
        assert await ask_with(local(server), config) == "ok"
    assert _waits(caplog) == ["0.2 s", "0.4 s"]
    assert len(server.requests) == 3


async def test_retry_after_is_capped_by_max_delay(
    server: FakeServer, caplog: pytest.LogCaptureFixture
) -> None:
    server.reply(BUSY, status=429, headers={"Retry-After": "20"})
    server.reply(ANSWER)
    with caplog.at_level(logging.INFO, logger="yadk.models"):
        assert await ask_with(local(server), retrying(max_delay=0.1)) == "ok"
    assert _waits(caplog) == ["0.1 s"]  # not the 20 s the server asked for


def test_retry_delays_follow_google_genai() -> None:
    options = RetryOptions(initial_delay=0.5, exp_base=3, max_delay=2, jitter=0)
    assert [options.delay(n) for n in (1, 2, 3, 4)] == [0.5, 1.5, 2.0, 2.0]
    jittered = RetryOptions(initial_delay=1, jitter=0.5)
    delays = {jittered.delay(2) for _ in range(50)}
    assert all(2.0 <= d <= 2.5 for d in delays)
    assert len(delays) > 40
    assert RetryOptions(initial_delay=1, exp_base=10.0, max_delay=7).delay(2000) == 7


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"attempts": "3"},
            "generate_content_config.http_options.retry_options.attempts must be a whole number"
            " >= 0, got '3'.",
        ),
        (
            {"initial_delay": -1},
            "generate_content_config.http_options.retry_options.initial_delay must be a number"
            " >= 0 (seconds), got -1.",
        ),
        (
            {"http_status_codes": [503, "429"]},
            "generate_content_config.http_options.retry_options.http_status_codes must be a list"
            " of HTTP status codes, got [503, '429'].",
        ),
        (
            {"atempts": 3},
            "generate_content_config.http_options.retry_options: unknown field 'atempts';"
            " expected one of attempts, initial_delay, max_delay, exp_base, jitter,"
            " http_status_codes (google-genai's HttpRetryOptions).",
        ),
        (3, "generate_content_config.http_options.retry_options must be a mapping, got int."),
    ],
)
async def test_wrong_retry_options_are_model_errors(
    server: FakeServer, options: Any, message: str
) -> None:
    with pytest.raises(ModelError) as caught:
        await ask_with(local(server), {"http_options": {"retry_options": options}})
    assert caught.value.message == message
    assert server.requests == []


async def test_clients_share_one_tls_context_for_the_certificate_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    default = _client._ssl_context(None, None)
    assert _client._ssl_context(None, None) is default  # built once, not per client
    assert default.verify_mode == ssl.CERT_REQUIRED and default.check_hostname
    asked: list[tuple[str | None, str | None]] = []

    def recording(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
        asked.append((cert_file, cert_dir))
        return default

    monkeypatch.setattr(_client, "_ssl_context", recording)
    monkeypatch.setenv("SSL_CERT_FILE", certifi.where())
    await _client._new_client(None).aclose()
    assert asked == [(certifi.where(), None)]  # the settings of the moment pick the context
