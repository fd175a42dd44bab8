"""What the REST backends share: HTTP settings, API error bodies, key casing, fixed texts.

Request headers (which carry API keys) never appear in a message or a log line.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from yadk.errors import ModelError

__all__ = [
    "CONTINUE_TEXT",
    "EMPTY_CONTENTS_TEXT",
    "HttpSettings",
    "api_error_message",
    "camel_case",
    "camel_keys",
    "is_openapi_schema",
    "retry_after",
    "settings_for",
    "snake_case",
    "snake_keys",
    "snippet",
]

# What google-adk sends when a request would otherwise end without a user turn; kept identical
# so a yadk agent and an ADK agent ask the model the same thing.
EMPTY_CONTENTS_TEXT = "Handle the requests as specified in the System Instruction."
CONTINUE_TEXT = (
    "Continue processing previous requests as instructed. Exit or provide a summary if no more"
    " outputs are needed."
)

_MAX_RETRY_AFTER = 30.0
DEFAULT_DEADLINE = 600.0
DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True)
class HttpSettings:
    """How one model call may use the network; ``None`` arguments of ``resolve`` fall back to
    the environment, then to the defaults.

    ``timeout`` bounds the connection and each read (a silent server); ``deadline`` bounds the
    whole call, retries and streaming included (a server that drips); ``max_response_bytes``
    bounds the answer's size (a runaway body is never read into memory whole).
    """

    timeout: float
    retries: int
    retry_delay: float
    deadline: float = DEFAULT_DEADLINE
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES

    @classmethod
    def resolve(
        cls,
        timeout: float | None = None,
        retries: int | None = None,
        retry_delay: float | None = None,
        *,
        deadline: float | None = None,
        max_response_bytes: int | None = None,
    ) -> HttpSettings:
        if deadline is None:
            deadline = _env_number("YADK_MODEL_DEADLINE", DEFAULT_DEADLINE)
        if max_response_bytes is None:
            max_response_bytes = int(
                _env_number("YADK_MODEL_MAX_RESPONSE_BYTES", DEFAULT_MAX_RESPONSE_BYTES)
            )
        return cls(
            timeout=timeout if timeout is not None else _env_number("YADK_MODEL_TIMEOUT", 60.0),
            retries=retries if retries is not None else int(_env_number("YADK_MODEL_RETRIES", 2)),
            retry_delay=retry_delay if retry_delay is not None else 1.0,
            deadline=deadline,
            max_response_bytes=max_response_bytes,
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


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds a ``Retry-After`` header asks to wait (at most 30), or None."""
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
        return snippet(body) or "(empty body)"
    if isinstance(data, list) and data:
        data = data[0]
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
        for candidate in (error, data.get("message"), data.get("detail")):
            if isinstance(candidate, str) and candidate:
                return candidate
    return snippet(body) or "(empty body)"


def snippet(body: bytes, limit: int = 200) -> str:
    """``body`` as one short line of text, for messages."""
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
