"""``google.genai.types`` as the import shim serves it.

The content types agent code builds and yadk's engine reads (``Content``, ``Part``,
``FunctionCall``, ...) are yadk's own. Every other google-genai type is made on first use from
google-genai's recorded field and member names (``_surface.GENAI_TYPES``): an enum has
google-genai's members (``types.Type.STRING.value == "STRING"``); a model accepts google-genai's
fields, snake_case or camelCase, rejects unknown ones as google-genai does, and dumps to the
mapping yadk's backends send (``GenerateContentConfig``, ``SafetySetting``, ``ThinkingConfig``,
``Schema``...). A ``...Dict`` TypedDict, used only in annotations, is ``dict``.
"""

from __future__ import annotations

import enum
from typing import Any

from yadk.adk_compat._surface import GENAI_TYPES

__all__: list[str] = []

# google-genai's content types -> yadk.types (the engine's own objects).
_YADK_TYPES = {
    "Content": "Content",
    "Part": "Part",
    "FunctionCall": "FunctionCall",
    "FunctionResponse": "FunctionResponse",
    "Blob": "Blob",
    "FileData": "FileData",
    "ExecutableCode": "ExecutableCode",
    "CodeExecutionResult": "CodeExecutionResult",
    "ModelContent": "ModelContent",
    "UserContent": "UserContent",
}

_made: dict[str, Any] = {}


def __getattr__(name: str) -> Any:
    found = _made.get(name)
    if found is not None:
        return found
    if name in _YADK_TYPES:
        import yadk.types

        found = getattr(yadk.types, _YADK_TYPES[name])
    elif name in GENAI_TYPES:
        found = _make(name, *GENAI_TYPES[name])
    else:
        raise AttributeError(name)
    _made[name] = found
    return found


def _make(name: str, kind: str, members: tuple[str, ...]) -> Any:
    if kind == "enum":
        return enum.Enum(name, [(m, m) for m in members], type=str, module="google.genai.types")
    if kind == "dict":
        return dict
    from pydantic import ConfigDict, create_model
    from pydantic.alias_generators import to_camel

    config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
        alias_generator=to_camel,
        use_enum_values=True,
        protected_namespaces=(),
    )
    fields: dict[str, Any] = {field: (Any, None) for field in members}
    model = create_model(name, __config__=config, __module__="google.genai.types", **fields)
    model.__doc__ = (
        f"google-genai's ``{name}`` (yadk: its fields, kept as given; dumped to the mapping yadk's"
        " backends send)."
    )
    return model
