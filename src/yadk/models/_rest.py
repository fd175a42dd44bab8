"""What the REST backends share: HTTP settings, API error bodies, fixed texts.

Request headers (which carry API keys) never appear in a message or a log line.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from yadk._case import snake_case
from yadk.errors import ModelError
from yadk.types import Content, Part

__all__ = [
    "CONTINUE_TEXT",
    "EMPTY_CONTENTS_TEXT",
    "HttpSettings",
    "RetryOptions",
    "api_error_message",
    "code_parts_as_text",
    "is_openapi_schema",
    "retry_after",
    "settings_for",
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
# google-genai's defaults for the HttpRetryOptions fields left unset.
_GENAI_ATTEMPTS = 5
_GENAI_INITIAL_DELAY = 1.0
_GENAI_MAX_DELAY = 60.0
_GENAI_EXP_BASE = 2.0
_GENAI_JITTER = 1.0
_GENAI_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
# yadk's own retry statuses (529: Anthropic overloaded).
DEFAULT_RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504, 529})
DEFAULT_DEADLINE = 600.0
DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True)
class RetryOptions:
    """google-genai's ``HttpRetryOptions`` as an agent's ``generate_content_config.http_options.
    retry_options`` gives them, with google-genai's defaults for the fields left unset.

    ``attempts`` counts the first try (0 and 1 both mean no retry); retry ``n`` (from 1) waits
    ``min(initial_delay * exp_base ** (n - 1) + uniform(0, jitter), max_delay)`` seconds, the
    formula google-genai uses; ``http_status_codes`` are the statuses worth another try.
    """

    attempts: int = _GENAI_ATTEMPTS
    initial_delay: float = _GENAI_INITIAL_DELAY
    max_delay: float = _GENAI_MAX_DELAY
    exp_base: float = _GENAI_EXP_BASE
    jitter: float = _GENAI_JITTER
    http_status_codes: frozenset[int] = _GENAI_STATUSES

    def delay(self, retry: int) -> float:
        """Seconds to wait before retry number ``retry`` (1 for the first retry)."""
        try:
            grown = self.initial_delay * self.exp_base ** (retry - 1)
        except OverflowError:
            return self.max_delay
        return max(0.0, min(grown + random.uniform(0.0, self.jitter), self.max_delay))

    @classmethod
    def from_config(cls, value: Any) -> RetryOptions:
        """The options of a ``retry_options`` mapping (snake_case or camelCase keys); a
        ``ModelError`` naming the field for a wrong value or an unknown key."""
        where = "generate_content_config.http_options.retry_options"
        if not isinstance(value, Mapping):
            raise ModelError(f"{where} must be a mapping, got {type(value).__name__}.")
        fields: dict[str, Any] = {}
        for key, item in value.items():
            name = snake_case(str(key))
            if name not in _RETRY_FIELDS:
                raise ModelError(
                    f"{where}: unknown field {key!r}; expected one of"
                    f" {', '.join(_RETRY_FIELDS)} (google-genai's HttpRetryOptions)."
                )
            if item is not None:
                fields[name] = _retry_field(where, name, item)
        if fields.get("attempts") == 0:
            fields["attempts"] = 1  # as google-genai: no retry
        return cls(**fields)


_RETRY_FIELDS = (
    "attempts",
    "initial_delay",
    "max_delay",
    "exp_base",
    "jitter",
    "http_status_codes",
)


def _retry_field(where: str, name: str, item: Any) -> Any:
    if name == "http_status_codes":
        if not isinstance(item, list) or not all(
            isinstance(code, int) and not isinstance(code, bool) and 100 <= code <= 599
            for code in item
        ):
            raise ModelError(f"{where}.{name} must be a list of HTTP status codes, got {item!r}.")
        return frozenset(item) if item else _GENAI_STATUSES
    if name == "attempts":
        if not isinstance(item, int) or isinstance(item, bool) or item < 0:
            raise ModelError(f"{where}.{name} must be a whole number >= 0, got {item!r}.")
        return item
    if not isinstance(item, (int, float)) or isinstance(item, bool) or item < 0:
        raise ModelError(f"{where}.{name} must be a number >= 0 (seconds), got {item!r}.")
    return float(item)


@dataclass(frozen=True)
class HttpSettings:
    """How one model call may use the network; ``None`` arguments of ``resolve`` fall back to
    the environment, then to the defaults.

    ``timeout`` bounds the connection and each read (a silent server); ``deadline`` bounds the
    whole call, retries and streaming included (a server that drips); ``max_response_bytes``
    bounds the answer's size (a runaway body is never read into memory whole).

    Without ``retry_options`` a call is tried ``retries`` more times after HTTP 408, 429 or 5xx,
    waiting ``retry_delay`` seconds doubled each time, with jitter; an agent's ``retry_options``
    (google-genai's ``HttpRetryOptions``) replace that policy for its calls.
    """

    timeout: float
    retries: int
    retry_delay: float
    deadline: float = DEFAULT_DEADLINE
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    retry_options: RetryOptions | None = None

    @property
    def max_retries(self) -> int:
        """How many times a failed call may be sent again."""
        if self.retry_options is not None:
            return self.retry_options.attempts - 1
        return self.retries

    def retries_status(self, status: int) -> bool:
        """Whether an answer with HTTP ``status`` is worth another try."""
        if self.retry_options is not None:
            return status in self.retry_options.http_status_codes
        return status in DEFAULT_RETRY_STATUSES

    def backoff(self, retry: int) -> float:
        """Seconds to wait before retry number ``retry`` (1 for the first)."""
        if self.retry_options is not None:
            return self.retry_options.delay(retry)
        # Jitter in [0.5, 1.5) of the doubled delay: clients that failed together retry apart.
        return self.retry_delay * 2.0 ** (retry - 1) * (0.5 + random.random())

    def retry_after_cap(self) -> float:
        """The longest wait a ``Retry-After`` header may ask for."""
        if self.retry_options is not None:
            return min(_MAX_RETRY_AFTER, self.retry_options.max_delay)
        return _MAX_RETRY_AFTER

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


def retry_after(headers: Mapping[str, str], *, cap: float = _MAX_RETRY_AFTER) -> float | None:
    """Seconds a ``Retry-After`` header asks to wait (at most ``cap``), or None."""
    value = next((v for k, v in headers.items() if k.lower() == "retry-after"), None)
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:  # an HTTP date: not worth parsing, fall back to backoff
        return None
    return min(max(seconds, 0.0), cap)


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
    """``settings`` with the timeout and retry options of ``http_options`` in the request
    config, if any."""
    options = config.get("http_options") or config.get("httpOptions")
    if not isinstance(options, dict):
        return settings
    timeout_ms = options.get("timeout")
    if isinstance(timeout_ms, (int, float)) and timeout_ms > 0:
        settings = replace(settings, timeout=timeout_ms / 1000)  # google-genai counts ms
    retry = options.get("retry_options", options.get("retryOptions"))
    if retry is not None:
        settings = replace(settings, retry_options=RetryOptions.from_config(retry))
    return settings


def code_parts_as_text(content: Content) -> Content:
    """``content`` with Gemini's code-execution parts as text, for models that have no such
    parts (google-adk's wording for Claude: ``Code:```python ...``` and
    ``Execution Result:```code_output ...```)."""
    if not any(p.executable_code or p.code_execution_result for p in content.parts):
        return content
    parts = []
    for part in content.parts:
        if part.executable_code is not None:
            part = Part(text=f"Code:```python\n{part.executable_code.code or ''}\n```")
        elif part.code_execution_result is not None:
            output = part.code_execution_result.output or ""
            part = Part(text=f"Execution Result:```code_output\n{output}\n```")
        parts.append(part)
    return Content(role=content.role, parts=parts)
