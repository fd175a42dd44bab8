"""Key casing: snake_case <-> camelCase for one name and for every key of a JSON-like value.

google-genai's objects are snake_case in yadk and camelCase on the wire (the Gemini REST API,
google-adk's api_server); both directions live here so every layer spells them the same way.
Imports nothing from yadk.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["camel_case", "camel_keys", "snake_case", "snake_keys"]

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])([A-Z])")


def snake_case(key: str) -> str:
    """``maxOutputTokens`` -> ``max_output_tokens`` (snake_case keys are returned unchanged)."""
    return _CAMEL_BOUNDARY.sub(r"_\1", key).lower()


def camel_case(key: str) -> str:
    """``max_output_tokens`` -> ``maxOutputTokens`` (camelCase keys are returned unchanged)."""
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
