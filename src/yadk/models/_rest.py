"""HTTP for the REST model backends: a JSON POST on a worker thread, retries, clear errors.

Only the standard library is used (``http.client`` via ``_transport``, on a worker thread through
``asyncio.to_thread``), so the backends add no dependency. Request headers (which carry API keys)
never appear in a message or a log line.
"""

from __future__ import annotations

import asyncio
import http
import http.client
import json
import logging
import os
import re
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from yadk.errors import ModelError
from yadk.models._switch import check_allow_model_requests
from yadk.models._transport import Reply
from yadk.models._transport import post as send

__all__ = [
    "CONTINUE_TEXT",
    "EMPTY_CONTENTS_TEXT",
    "HttpSettings",
    "api_error_message",
    "camel_case",
    "camel_keys",
    "is_openapi_schema",
    "post_json",
    "settings_for",
    "snake_case",
    "snake_keys",
]

logger = logging.getLogger("yadk.models")

# What google-adk sends when a request would otherwise end without a user turn; kept identical
# so a yadk agent and an ADK agent ask the model the same thing.
EMPTY_CONTENTS_TEXT = "Handle the requests as specified in the System Instruction."
CONTINUE_TEXT = (
    "Continue processing previous requests as instructed. Exit or provide a summary if no more"
    " outputs are needed."
)

_RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
_MAX_RETRY_AFTER = 30.0

Hint = Callable[[int, str], str]


@dataclass(frozen=True)
class HttpSettings:
    """Timeout and retry policy; ``None`` fields fall back to the environment, then defaults."""

    timeout: float
    retries: int
    retry_delay: float

    @classmethod
    def resolve(
        cls,
        timeout: float | None = None,
        retries: int | None = None,
        retry_delay: float | None = None,
    ) -> HttpSettings:
        return cls(
            timeout=timeout if timeout is not None else _env_number("YADK_MODEL_TIMEOUT", 60.0),
            retries=retries if retries is not None else int(_env_number("YADK_MODEL_RETRIES", 2)),
            retry_delay=retry_delay if retry_delay is not None else 1.0,
        )


def _env_number(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if value < 0:
        raise ModelError(f"{name}={raw!r} is not a valid number; use e.g. {name}={default:g}.")
    return value


async def post_json(
    url: str,
    body: dict[str, Any],
    *,
    headers: Mapping[str, str],
    settings: HttpSettings,
    service: str,
    hint: Hint,
) -> dict[str, Any]:
    """POST ``body`` as JSON and return the decoded JSON object; every failure is a ModelError.

    ``service`` names the backend and model in messages; ``hint(status, api_message)`` adds the
    backend's advice for an HTTP error (e.g. which variable holds the API key).
    """
    check_allow_model_requests(f"the request to {service}")
    payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
    all_headers = {"Content-Type": "application/json", "User-Agent": "yadk", **headers}
    attempt = 0
    while True:
        attempt += 1
        logger.debug("POST %s (%s, attempt %d)", url, service, attempt)
        reply = await asyncio.to_thread(_post, url, payload, all_headers, settings.timeout, service)
        if reply.status < 400:
            return _decode(reply, service)
        if reply.status in _RETRY_STATUSES and attempt <= settings.retries:
            delay = _retry_after(reply.headers)
            if delay is None:
                delay = settings.retry_delay * 2 ** (attempt - 1)
            logger.info("%s: HTTP %d, retrying in %.1f s", service, reply.status, delay)
            await asyncio.sleep(delay)
            continue
        raise ModelError(_http_error_message(reply, service, hint, attempt))


def _post(url: str, payload: bytes, headers: dict[str, str], timeout: float, service: str) -> Reply:
    try:
        return send(url, payload, headers, timeout)
    except TimeoutError:
        raise ModelError(_timeout_message(service, timeout)) from None
    except (OSError, http.client.HTTPException) as exc:
        raise ModelError(_connect_message(service, url, exc)) from None


def _decode(reply: Reply, service: str) -> dict[str, Any]:
    try:
        data = json.loads(reply.body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ModelError(
            f"{service}: the server answered HTTP {reply.status} with a body that is not JSON:"
            f" {_snippet(reply.body)!r}. Check that the base URL points at the API itself."
        ) from None
    if not isinstance(data, dict):
        raise ModelError(
            f"{service}: expected a JSON object in the answer, got {type(data).__name__}:"
            f" {_snippet(reply.body)!r}."
        )
    return data


def _retry_after(headers: Mapping[str, str]) -> float | None:
    value = next((v for k, v in headers.items() if k.lower() == "retry-after"), None)
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:  # an HTTP date: not worth parsing, fall back to backoff
        return None
    return min(max(seconds, 0.0), _MAX_RETRY_AFTER)


def api_error_message(body: bytes) -> str:
    """The human message inside an API error body (Google, OpenAI, vLLM, Ollama shapes)."""
    try:
        data: Any = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return _snippet(body) or "(empty body)"
    if isinstance(data, list) and data:
        data = data[0]
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
        for candidate in (error, data.get("message"), data.get("detail")):
            if isinstance(candidate, str) and candidate:
                return candidate
    return _snippet(body) or "(empty body)"


def _http_error_message(reply: Reply, service: str, hint: Hint, attempts: int) -> str:
    try:
        phrase = http.HTTPStatus(reply.status).phrase
    except ValueError:
        phrase = "error"
    api_message = api_error_message(reply.body).strip()
    tries = f" (after {attempts} attempts)" if attempts > 1 else ""
    message = f"{service}: HTTP {reply.status} {phrase}{tries}: {_sentence(api_message)}"
    advice = hint(reply.status, api_message)
    return f"{message} {advice}" if advice else message


def _timeout_message(service: str, timeout: float) -> str:
    return (
        f"{service}: no answer within {timeout:g} s. Set YADK_MODEL_TIMEOUT (seconds) to wait"
        " longer, or pass timeout= to the model."
    )


def _connect_message(service: str, url: str, reason: object) -> str:
    parts = urllib.parse.urlsplit(url)
    where = f"{parts.scheme}://{parts.netloc}"
    detail = getattr(reason, "strerror", None) or str(reason) or type(reason).__name__
    return f"{service}: cannot connect to {where}: {detail}. Is the server running and reachable?"


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?")) else text + "."


def _snippet(body: bytes, limit: int = 200) -> str:
    text = " ".join(body.decode("utf-8", errors="replace").split())
    return text if len(text) <= limit else text[:limit] + "..."


_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])([A-Z])")


def snake_case(key: str) -> str:
    """``maxOutputTokens`` -> ``max_output_tokens`` (snake_case keys are returned unchanged)."""
    return _CAMEL_BOUNDARY.sub(r"_\1", key).lower()


def camel_case(key: str) -> str:
    """``max_output_tokens`` -> ``maxOutputTokens``."""
    head, *rest = key.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


def snake_keys(value: Any) -> Any:
    """A copy of ``value`` whose mapping keys (at every depth) are snake_case."""
    if isinstance(value, dict):
        return {snake_case(str(k)): snake_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [snake_keys(v) for v in value]
    return value


def camel_keys(value: Any) -> Any:
    """A copy of ``value`` whose mapping keys (at every depth) are camelCase."""
    if isinstance(value, dict):
        return {camel_case(str(k)): camel_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [camel_keys(v) for v in value]
    return value


def is_openapi_schema(schema: Any) -> bool:
    """True for a Gemini OpenAPI-style schema (upper-case ``type`` values, e.g. ``OBJECT``)."""
    if isinstance(schema, dict):
        kind = schema.get("type")
        if isinstance(kind, str) and kind.isupper():
            return True
        return any(is_openapi_schema(v) for v in schema.values())
    if isinstance(schema, list):
        return any(is_openapi_schema(v) for v in schema)
    return False


def settings_for(settings: HttpSettings, config: dict[str, Any]) -> HttpSettings:
    """``settings`` with the timeout of ``http_options`` in the request config, if any."""
    options = config.get("http_options") or config.get("httpOptions")
    timeout_ms = options.get("timeout") if isinstance(options, dict) else None
    if isinstance(timeout_ms, (int, float)) and timeout_ms > 0:
        return replace(settings, timeout=timeout_ms / 1000)  # google-genai counts milliseconds
    return settings
