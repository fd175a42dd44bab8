"""The few-shot example model, the provider interface, and validation of plain example data."""

from __future__ import annotations

import abc
from collections.abc import Awaitable, Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_snake

from yadk.examples._error import ExampleValidationError
from yadk.types import Content

__all__ = [
    "BaseExampleProvider",
    "Example",
    "ExampleValidationError",
    "coerce_examples",
    "example_input_text",
]

_CONTENT_HINT = "{role: user, parts: [{text: ...}]}"


class Example(BaseModel):
    """One few-shot example: a user turn and the model turns that should follow it.

    ``output`` is a list because a complete exchange often takes several turns (a function call,
    its response, then the answer). Give every ``Content`` a ``role``: the renderer switches between
    ``[user]`` and ``[model]`` headers on it, and a missing role renders as ``[user]`` (as in ADK).
    """

    model_config = ConfigDict(extra="forbid")

    input: Content
    output: list[Content]


class BaseExampleProvider(abc.ABC):
    """Chooses the examples for one user query; ``get_examples`` may be sync or ``async``.

    ``ExampleTool`` calls it once per model call with the text of the current user message.
    Keep it fast (or give the tool a ``timeout``): it runs before every model request.
    """

    @abc.abstractmethod
    def get_examples(self, query: str) -> list[Example] | Awaitable[list[Example]]:
        """The examples to show the model for ``query`` (an empty list is fine)."""


def coerce_examples(items: Iterable[Any], *, source: str | None = None) -> list[Example]:
    """Validate ``items`` (``Example`` objects or google-genai shaped dicts) into ``Example``\\ s.

    Raises ``ExampleValidationError`` naming the first bad example by index and the field at fault.
    ``source`` (e.g. a file name) prefixes the message.
    """
    if isinstance(items, (str, bytes, dict)) or not isinstance(items, Iterable):
        raise ExampleValidationError(
            _prefix(source)
            + f"examples must be a list of examples, got {_kind(items)}. Each example is a "
            "mapping with 'input' (a Content) and 'output' (a list of Content)."
        )
    examples: list[Example] = []
    for index, item in enumerate(items):
        if isinstance(item, Example):
            examples.append(item)
            continue
        if not isinstance(item, (dict, BaseModel)):
            raise ExampleValidationError(
                _prefix(source) + f"example {index}: expected a mapping with 'input' and 'output', "
                f"got {_kind(item)}.",
                index=index,
            )
        try:
            examples.append(Example.model_validate(_plain(item)))
        except ValidationError as exc:
            raise _from_validation_error(exc, index=index, source=source) from None
    return examples


def example_input_text(example: Example, *, sep: str = " ") -> str:
    """The text of an example's input: its non-empty text parts joined by ``sep``."""
    return sep.join(p.text for p in example.input.parts if p.text)


def _plain(item: Any) -> Any:
    # Another library's Example (e.g. google-adk's) arrives as a pydantic model: read its fields.
    if isinstance(item, BaseModel) and not isinstance(item, Example):
        return {name: getattr(item, name) for name in type(item).model_fields}
    return item


def _from_validation_error(
    exc: ValidationError, *, index: int, source: str | None
) -> ExampleValidationError:
    errors = exc.errors(include_url=False)
    # An unknown key usually explains the "missing" error next to it (``outputs`` for ``output``).
    first = min(errors, key=lambda e: e["type"] != "extra_forbidden")
    # pydantic reports aliases (``functionCall``); configs are mostly written in snake_case.
    loc = tuple(to_snake(k) if isinstance(k, str) else k for k in first["loc"])
    where = _format_loc(loc) or "(the example itself)"
    detail = first["msg"]
    if first["type"] == "extra_forbidden":
        detail = f"unknown field {loc[-1]!r}"
        if len(loc) == 1:
            import difflib  # only a mistake needs a suggestion: imported then

            close = difflib.get_close_matches(str(loc[0]), ["input", "output"], n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            detail += f" (an example has only 'input' and 'output'{hint})"
    elif first["type"] == "missing":
        detail = "field required"
    elif first["type"] in ("model_type", "model_attributes_type") and _is_content_loc(loc):
        detail = f"expected a Content mapping such as {_CONTENT_HINT}"
    elif first["type"] == "list_type" and loc == ("output",):
        detail = f"expected a list of Content mappings such as [{_CONTENT_HINT}]"
    more = len(errors) - 1
    tail = f" (and {more} more problem{'s' if more > 1 else ''})" if more > 0 else ""
    return ExampleValidationError(
        _prefix(source) + f"example {index}: {where}: {detail}{tail}",
        index=index,
        loc=loc,
    )


def _is_content_loc(loc: tuple[str | int, ...]) -> bool:
    return loc == ("input",) or (len(loc) == 2 and loc[0] == "output")


def _format_loc(loc: Sequence[str | int]) -> str:
    out = ""
    for key in loc:
        if isinstance(key, int):
            out += f"[{key}]"
        else:
            out += f".{key}" if out else key
    return out


def _prefix(source: str | None) -> str:
    return f"{source}: " if source else ""


def _kind(value: Any) -> str:
    if isinstance(value, str):
        return f"the string {value!r}"
    return type(value).__name__
