"""Checking example data without building the ``Example`` model (``yadk validate``'s fast path).

``plainly_valid`` recognises the common shapes of well-formed example data (as YAML or JSON
gives them: plain dicts and lists, snake_case keys) and says ``True`` only when
``coerce_examples`` would certainly accept them. Anything else, including every malformed
example, goes through ``coerce_examples`` itself, so the messages stay the model's own. The
point is start-up time: a clean config validates without importing pydantic.

The example model (pydantic, ``_example``) is imported only for data that is not plainly valid, to
give its exact errors.
"""

from __future__ import annotations

from typing import Any

__all__ = ["check_examples", "plainly_valid"]

_CALL_KEYS = {"function_call": "args", "function_response": "response"}


def check_examples(items: Any) -> None:
    """Raise the ``ExampleValidationError`` that ``coerce_examples(items)`` would raise, if any."""
    if not plainly_valid(items):
        from yadk.examples._example import coerce_examples

        coerce_examples(items)


def plainly_valid(items: Any) -> bool:
    """Whether ``items`` is a list of plain example dicts that ``coerce_examples`` accepts.

    ``False`` means "not sure", not "invalid": the caller validates with the model then.
    """
    return type(items) is list and all(_example(item) for item in items)


def _example(item: Any) -> bool:
    return (
        type(item) is dict
        and item.keys() == {"input", "output"}
        and _content(item["input"])
        and type(item["output"]) is list
        and all(_content(content) for content in item["output"])
    )


def _content(value: Any) -> bool:
    fields = _fields(value, {"role", "parts"})
    if fields is None or not _optional_str(fields.get("role")):
        return False
    parts = fields.get("parts")
    return parts is None or (
        type(parts) is list and all(isinstance(part, str) or _part(part) for part in parts)
    )


def _part(value: Any) -> bool:
    fields = _fields(value, {"text", "thought", *_CALL_KEYS})
    if fields is None or not _optional_str(fields.get("text")):
        return False
    if "thought" in fields and not isinstance(fields["thought"], bool):
        return False
    return all(_call(fields[key], payload) for key, payload in _CALL_KEYS.items() if key in fields)


def _call(value: Any, payload: str) -> bool:
    fields = _fields(value, {"id", "name", payload})
    return (
        fields is not None
        and isinstance(fields.get("name"), str)
        and _optional_str(fields.get("id"))
        and _str_keyed(fields.get(payload, {}))
    )


def _fields(value: Any, allowed: set[str]) -> dict[str, Any] | None:
    """The non-``None`` entries of a plain dict whose keys are all in ``allowed`` (else ``None``);
    ``None`` values are dropped as the model drops them."""
    if type(value) is not dict:
        return None
    fields = {key: item for key, item in value.items() if item is not None}
    return fields if fields.keys() <= allowed else None


def _optional_str(value: Any) -> bool:
    return value is None or isinstance(value, str)


def _str_keyed(value: Any) -> bool:
    return type(value) is dict and all(isinstance(key, str) for key in value)
