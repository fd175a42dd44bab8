"""One model call over HTTP: a JSON POST, or an SSE stream of JSON events, on ``httpx``.

Both go through the same door (``_open``): retries after HTTP 408, 429 and 5xx and after
connection failures (a refused or dropped connection), waiting ``retry_delay`` seconds doubled
each time with jitter (so many clients do not retry in step), or the server's ``Retry-After``;
an agent's ``http_options.retry_options`` (``HttpSettings.retry_options``) set the number of
attempts, the waits and the statuses instead.
The whole call, retries and streaming included, must finish within ``HttpSettings.deadline``,
and no answer may grow past ``HttpSettings.max_response_bytes``: the body is read chunk by chunk,
counted, and never held whole when it is too big. Cancelling the task that awaits a call closes
its connection at once (the server sees the disconnect). Every failure is a ``ModelError`` naming
the service and saying what to do; request headers (API keys) never reach a message or a log.
"""

from __future__ import annotations

import asyncio
import http
import json
import logging
import os
import re
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx

from yadk.errors import ModelError
from yadk.models._client import in_flight
from yadk.models._rest import HttpSettings, api_error_message, retry_after, snippet
from yadk.models._sse import SseDecoder
from yadk.models._switch import check_allow_model_requests

__all__ = ["Call", "Hint", "WholeAnswer", "post_json", "stream_json"]

logger = logging.getLogger("yadk.models")

# Failures before any answer arrived: the request can be sent again as it is.
_RETRY_ERRORS = (httpx.NetworkError, httpx.ConnectTimeout, httpx.RemoteProtocolError)
# What a kept-alive connection the server has just closed looks like when it is reused: sent
# again at once on a new connection, once per call, without counting as a retry.
_STALE_ERRORS = (httpx.WriteError, httpx.ReadError, httpx.RemoteProtocolError)
_T = TypeVar("_T")

Hint = Callable[[int, str], str]


@dataclass(frozen=True)
class Call:
    """One model call: where it goes, what it sends, and how its failures are reported.

    ``service`` names the backend and model in messages; ``hint(status, api_message)`` adds the
    backend's advice for an HTTP error (e.g. which variable holds the API key).
    """

    client: httpx.AsyncClient
    url: str
    body: dict[str, Any]
    headers: Mapping[str, str]
    settings: HttpSettings
    service: str
    hint: Hint
    # Request authorisation beyond the headers (OAuth tokens refreshed on 401), or None.
    auth: httpx.Auth | None = None
    # POST by default; DELETE for a resource a backend manages (Gemini's cachedContents).
    method: str = "POST"


@dataclass(frozen=True)
class WholeAnswer:
    """A whole (non-streamed) answer from a server asked to stream that answered one JSON
    object instead, as many OpenAI-compatible servers and proxies do."""

    data: dict[str, Any]


async def post_json(call: Call) -> dict[str, Any]:
    """POST the body as JSON and return the decoded JSON object of the answer."""
    deadline_at = _deadline_at(call)
    with in_flight(call.client):
        response = await _open(call, deadline_at)
        try:
            body = bytearray()
            async for chunk in _chunks(call, response, deadline_at):
                body += chunk
        finally:
            await response.aclose()
    return _object(call, bytes(body), f"the server answered HTTP {response.status_code} with")


async def stream_json(call: Call) -> AsyncIterator[dict[str, Any] | WholeAnswer]:
    """POST the body and yield the JSON object of each server-sent event, until ``[DONE]`` or
    the end of the stream.

    A server that ignores the request to stream answers JSON instead of ``text/event-stream``
    (by its content type, or by its first byte when it names neither): one object is yielded as
    a ``WholeAnswer``; an array (Gemini's streamGenerateContent without ``alt=sse``) yields its
    objects as events.
    """
    deadline_at = _deadline_at(call)
    with in_flight(call.client):
        response = await _open(call, deadline_at)
        try:
            chunks = _chunks(call, response, deadline_at)
            first = b""
            async for first in chunks:
                if first.strip():
                    break
            if _is_json(response.headers.get("content-type", ""), first):
                body = bytearray(first)
                async for chunk in chunks:
                    body += chunk
                for item in _whole(call, bytes(body), response.status_code):
                    yield item
                return
            decoder = SseDecoder()
            pending = [first] if first else []
            async for chunk in _chain(pending, chunks):
                for event in decoder.feed(chunk):
                    if event.data == "[DONE]":
                        return
                    yield _object(
                        call, event.data.encode("utf-8"), "the stream carried an event with"
                    )
        finally:
            await response.aclose()


def _is_json(content_type: str, first: bytes) -> bool:
    kind = content_type.split(";", 1)[0].strip().lower()
    if kind == "text/event-stream":
        return False
    if kind == "application/json" or kind.endswith("+json"):
        return True
    return first.lstrip()[:1] in (b"{", b"[")


def _whole(call: Call, raw: bytes, status: int) -> list[dict[str, Any] | WholeAnswer]:
    what = f"the server answered HTTP {status} with"
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        data = None
    if isinstance(data, list) and all(isinstance(item, dict) for item in data):
        return list(data)
    return [WholeAnswer(_object(call, raw, what))]


async def _chain(first: list[bytes], rest: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    for chunk in first:
        yield chunk
    async for chunk in rest:
        yield chunk


def _deadline_at(call: Call) -> float:
    check_allow_model_requests(f"the request to {call.service}")
    return asyncio.get_running_loop().time() + call.settings.deadline


async def _open(call: Call, deadline_at: float) -> httpx.Response:
    """Send the request until an answer with a status below 400 arrives; its body is unread."""
    scheme = urllib.parse.urlsplit(call.url).scheme
    if scheme not in ("http", "https"):
        raise ModelError(
            f"{call.service}: unsupported URL {call.url!r} (expected http:// or https://)."
            " Check the base URL."
        )
    request = call.client.build_request(
        call.method,
        call.url,
        content=(
            json.dumps(call.body, ensure_ascii=False).encode("utf-8")
            if call.method != "DELETE"
            else None
        ),
        headers={"Content-Type": "application/json", "User-Agent": "yadk", **call.headers},
        timeout=httpx.Timeout(call.settings.timeout, pool=None),
    )
    retries = call.settings.max_retries
    attempt = 0
    stale_retried = False
    while True:
        attempt += 1
        logger.debug("%s %s (%s, attempt %d)", call.method, call.url, call.service, attempt)
        try:
            auth = call.auth if call.auth is not None else httpx.USE_CLIENT_DEFAULT
            sending = call.client.send(request, stream=True, auth=auth)
            response = await _within(call, deadline_at, sending)
        except _RETRY_ERRORS as exc:
            if isinstance(exc, _STALE_ERRORS) and not stale_retried:
                stale_retried = True
                attempt -= 1
                continue
            if attempt <= retries:
                logger.info("%s: %s, retrying", call.service, _reason(exc))
                await _within(call, deadline_at, asyncio.sleep(_backoff(call, attempt)))
                continue
            raise ModelError(_connect_message(call, exc)) from None
        except httpx.TimeoutException:
            raise ModelError(_timeout_message(call)) from None
        except httpx.HTTPError as exc:
            raise ModelError(_connect_message(call, exc)) from None
        if response.status_code < 400:
            return response
        try:
            body = bytearray()
            async for chunk in _chunks(call, response, deadline_at):
                body += chunk
        finally:
            await response.aclose()
        if call.settings.retries_status(response.status_code) and attempt <= retries:
            delay = retry_after(response.headers, cap=call.settings.retry_after_cap())
            if delay is None:
                delay = _backoff(call, attempt)
            logger.info(
                "%s: HTTP %d, retrying in %.1f s", call.service, response.status_code, delay
            )
            await _within(call, deadline_at, asyncio.sleep(delay))
            continue
        raise ModelError(_http_error_message(call, response.status_code, bytes(body), attempt))


async def _chunks(call: Call, response: httpx.Response, deadline_at: float) -> AsyncIterator[bytes]:
    """The body's chunks as they arrive, each read under the deadline, counted against the cap."""
    cap = call.settings.max_response_bytes
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > cap and "content-encoding" not in response.headers:
        raise ModelError(_size_message(call))
    received = 0
    chunks = response.aiter_bytes()
    while True:
        try:
            chunk = await _within(call, deadline_at, anext(chunks, None))
        except httpx.TimeoutException:
            raise ModelError(_timeout_message(call)) from None
        except httpx.HTTPError as exc:
            raise ModelError(
                f"{call.service}: the connection broke while the answer was arriving"
                f" ({_reason(exc)}). Try again; if it keeps happening, check the server and any"
                " proxy in between."
            ) from None
        if chunk is None:
            return
        received += len(chunk)
        if received > cap:
            raise ModelError(_size_message(call))
        yield chunk


async def _within(call: Call, deadline_at: float, awaitable: Awaitable[_T]) -> _T:
    try:
        async with asyncio.timeout_at(deadline_at):
            return await awaitable
    except TimeoutError:
        raise ModelError(
            f"{call.service}: the call did not finish within its deadline of"
            f" {call.settings.deadline:g} s. Set YADK_MODEL_DEADLINE (seconds) to allow longer"
            " calls, or pass deadline= to the model."
        ) from None


def _backoff(call: Call, attempt: int) -> float:
    return call.settings.backoff(attempt)


def _object(call: Call, raw: bytes, what: str) -> dict[str, Any]:
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ModelError(
            f"{call.service}: {what} a body that is not JSON: {snippet(raw)!r}. Check that the"
            " base URL points at the API itself."
        ) from None
    if not isinstance(data, dict):
        raise ModelError(
            f"{call.service}: expected a JSON object in the answer, got {type(data).__name__}:"
            f" {snippet(raw)!r}."
        )
    return data


def _http_error_message(call: Call, status: int, body: bytes, attempts: int) -> str:
    try:
        phrase = http.HTTPStatus(status).phrase
    except ValueError:
        phrase = "error"
    api_message = api_error_message(body).strip()
    tries = f" (after {attempts} attempts)" if attempts > 1 else ""
    message = f"{call.service}: HTTP {status} {phrase}{tries}: {_sentence(api_message)}"
    advice = call.hint(status, api_message)
    return f"{message} {advice}" if advice else message


def _timeout_message(call: Call) -> str:
    return (
        f"{call.service}: no answer within {call.settings.timeout:g} s. Set YADK_MODEL_TIMEOUT"
        " (seconds) to wait longer, or pass timeout= to the model."
    )


def _size_message(call: Call) -> str:
    return (
        f"{call.service}: the answer is larger than {call.settings.max_response_bytes} bytes,"
        " the response size cap. Set YADK_MODEL_MAX_RESPONSE_BYTES to accept more, or pass"
        " max_response_bytes= to the model."
    )


def _connect_message(call: Call, exc: Exception) -> str:
    parts = urllib.parse.urlsplit(call.url)
    where = f"{parts.scheme}://{parts.netloc}"
    if isinstance(exc, (httpx.WriteError, httpx.ReadError, httpx.RemoteProtocolError)):
        return (
            f"{call.service}: the connection to {where} broke before an answer arrived:"
            f" {_reason(exc)}. Is the server running and reachable?"
        )
    return (
        f"{call.service}: cannot connect to {where}: {_reason(exc)}."
        " Is the server running and reachable?"
    )


_ERRNO = re.compile(r"^\[Errno -?\d+\]\s*")


def _reason(exc: BaseException) -> str:
    """The operating system's words for a failure (``Connection refused``) when there are any."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError) and seen.errno:
            return os.strerror(seen.errno)
        seen = seen.__cause__ or seen.__context__
    text = _ERRNO.sub("", str(exc)).rstrip(".")
    return text or type(exc).__name__


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?")) else text + "."
