"""Reading ``generate_content_config``: google-genai's GenerateContentConfig keys (camelCase
spellings made snake_case) with their JSON types, and inside ``http_options`` the HttpOptions and
HttpRetryOptions fields, each unknown key located with a did-you-mean."""

from __future__ import annotations

import json
import re
from typing import Any

from yadk.config._context import FileScope, did_you_mean
from yadk.config._dialect import (
    CONTENT_CONFIG_KEYS,
    HTTP_OPTIONS_KEYS,
    HTTP_OPTIONS_USED,
    RETRY_OPTIONS_KEYS,
)
from yadk.config._refs import LoaderBase
from yadk.config._yaml import KeyPath

__all__ = ["content_config", "snake"]

_CAMEL = re.compile(r"(?<!^)([A-Z])")
_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
    "string": (str,),
    "array": (list,),
    "object": (dict,),
}
_JSON_NAMES = {
    "boolean": "a boolean",
    "integer": "an integer",
    "number": "a number",
    "string": "a string",
    "array": "a list",
    "object": "a mapping",
}
_ELSEWHERE = {
    "system_instruction": "Set the system instruction with `instruction`, not in"
    " `generate_content_config`.",
    "tools": "Set tools with the agent's `tools` key, not in `generate_content_config`.",
}
_TIMEOUT_HINT = "google-genai counts the timeout in milliseconds, e.g. `timeout: 30000`."
_RETRY_HINT = (
    "Waits are seconds, e.g. `initial_delay: 1.0`; `attempts` counts the first try (0 and 1"
    " mean no retry)."
)
_GENAI_DOCS = {
    "generate_content_config": "See google-genai's GenerateContentConfig.",
    "http_options": "See google-genai's HttpOptions.",
    "retry_options": "See google-genai's HttpRetryOptions.",
}


def snake(key: Any) -> str:
    return _CAMEL.sub(r"_\1", str(key)).lower()


def content_config(
    reader: LoaderBase, scope: FileScope, at: KeyPath, value: Any
) -> dict[str, Any] | None:
    """``generate_content_config`` with camelCase keys made snake_case."""
    if not reader.expect(
        scope, at, value, dict, "a mapping of model settings", "e.g. `{temperature: 0.2}`."
    ):
        return None
    before = reader.errors
    result: dict[str, Any] = {}
    for key, item in _known(
        reader, scope, at, value, CONTENT_CONFIG_KEYS, "generate_content_config"
    ):
        name = snake(key)
        if name in _ELSEWHERE:
            reader.error(scope, (*at, key), "invalid-value", _ELSEWHERE[name], key=True)
            continue
        if name == "http_options" and isinstance(item, dict):
            result[name] = _http_options(reader, scope, (*at, key), item)
            continue
        result[name] = item
    return result if reader.errors == before else None


def _http_options(
    reader: LoaderBase, scope: FileScope, at: KeyPath, value: dict[Any, Any]
) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, item in _known(reader, scope, at, value, HTTP_OPTIONS_KEYS, "http_options"):
        name = snake(key)
        if name not in HTTP_OPTIONS_USED:
            reader.warn(
                scope,
                (*at, key),
                "setting-ignored",
                f"`{_dotted((*at, key))}` is not used by yadk's model backends.",
                "They use `timeout` and `retry_options`; set a base URL or headers on the"
                " model (`model_code` with `args`, or the provider's *_BASE_URL variable).",
            )
        elif name == "timeout" and item is not None and item <= 0:
            _below(reader, scope, (*at, key), item, "more than 0", _TIMEOUT_HINT)
        elif name == "retry_options" and isinstance(item, dict):
            item = _retry_options(reader, scope, (*at, key), item)
        result[name] = item
    return result


def _retry_options(
    reader: LoaderBase, scope: FileScope, at: KeyPath, value: dict[Any, Any]
) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, item in _known(reader, scope, at, value, RETRY_OPTIONS_KEYS, "retry_options"):
        name = snake(key)
        label = _dotted((*at, key))
        if name == "http_status_codes" and isinstance(item, list):
            for index, code in enumerate(item):
                if isinstance(code, bool) or not isinstance(code, int) or not 100 <= code <= 599:
                    reader.error(
                        scope,
                        (*at, key, index),
                        "invalid-value",
                        f"`{label}` must list HTTP status codes (integers from 100 to 599),"
                        f" got `{json.dumps(code)}`.",
                        "e.g. `http_status_codes: [429, 503]`.",
                    )
        elif item is not None and name != "http_status_codes" and item < 0:
            _below(reader, scope, (*at, key), item, "0 or more", _RETRY_HINT)
        result[name] = item
    return result


def _known(
    reader: LoaderBase,
    scope: FileScope,
    at: KeyPath,
    value: dict[Any, Any],
    keys: dict[str, str],
    what: str,
) -> list[tuple[Any, Any]]:
    """The entries of ``value`` whose keys are in ``keys`` and whose values have the JSON
    type given there; the others are reported."""
    known: list[tuple[Any, Any]] = []
    for key, item in value.items():
        name = snake(key)
        if name not in keys:
            guess = did_you_mean(name, list(keys))
            reader.error(
                scope,
                (*at, key),
                "unknown-key",
                f"Unknown key `{key}` in `{_dotted(at)}`.",
                f"Did you mean `{guess}`?" if guess else _GENAI_DOCS[what],
                key=True,
            )
            continue
        json_type = keys[name]
        if json_type != "any" and item is not None and name not in _ELSEWHERE:
            if not reader.expect(
                scope, (*at, key), item, _JSON_TYPES[json_type], _JSON_NAMES[json_type]
            ):
                continue
        known.append((key, item))
    return known


def _below(
    reader: LoaderBase, scope: FileScope, at: KeyPath, item: Any, expected: str, hint: str
) -> None:
    reader.error(
        scope, at, "invalid-value", f"`{_dotted(at)}` must be {expected}, got {item}.", hint
    )


def _dotted(at: KeyPath) -> str:
    return ".".join(str(part) for part in at)
