"""A node's ``input_schema`` / ``output_schema`` (checked and coerced as data flows through),
a question's ``response_schema`` (checked when the answer comes), and ``state_schema`` (checked
on every state write), as google-adk 2.13 applies them."""

from __future__ import annotations

import functools
import json
import typing
from collections.abc import AsyncGenerator, Generator, Mapping
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError, create_model

from yadk.events import Event
from yadk.sessions import State
from yadk.types import Content
from yadk.workflow._errors import StateSchemaError, WorkflowDataError
from yadk.workflow._request_input import RequestInput

__all__ = [
    "SchemaState",
    "check_answer",
    "check_data",
    "check_state_params",
    "inferred_schemas",
]


@functools.lru_cache(maxsize=512)
def _adapter(schema: Any) -> TypeAdapter[Any]:
    return TypeAdapter(schema)


def _adapter_for(schema: Any) -> TypeAdapter[Any]:
    try:
        return _adapter(schema)
    except TypeError:  # an unhashable schema (a parametrised alias of unhashables)
        return TypeAdapter(schema)


def _dump(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, list):
        return [_dump(v) for v in value]
    if isinstance(value, dict):
        return {k: _dump(v) for k, v in value.items()}
    return value


def _text(content: Content) -> str:
    return "".join(p.text for p in content.parts if p.text and not p.thought)


def check_data(schema: Any, data: Any) -> Any:
    """``data`` validated against ``schema`` and dumped to JSON-like values (a model becomes a
    dict). ``None`` data, no schema, or a raw JSON-schema dict pass through unchecked (as in
    google-adk); a message is read as its text, or the JSON in it, first."""
    if data is None or schema is None or isinstance(schema, dict):
        return data
    if isinstance(data, Content):
        if schema is str:
            return _text(data)
        if isinstance(schema, type) and issubclass(schema, Content):
            return data
        try:
            data = json.loads(_text(data))
        except ValueError:
            data = _text(data)
    elif isinstance(data, str) and schema is str:
        return data
    return _dump(_adapter_for(schema).validate_python(data))


_GENERATORS = (Generator, AsyncGenerator)


def inferred_schemas(input_hint: Any, return_hint: Any) -> tuple[Any, Any]:
    """A function node's (input_schema, output_schema) from its annotations, as google-adk
    infers them: a pydantic model annotating ``node_input``, and one returned (or yielded)."""
    if typing.get_origin(return_hint) in _GENERATORS:
        args = typing.get_args(return_hint)
        return_hint = args[0] if args else None
    output = None
    if (
        isinstance(return_hint, type)
        and issubclass(return_hint, BaseModel)
        and not issubclass(return_hint, (Content, Event, RequestInput))
    ):
        output = return_hint
    input_ = (
        input_hint if isinstance(input_hint, type) and issubclass(input_hint, BaseModel) else None
    )
    return input_, output


_JSON_TYPES: dict[str, type[Any]] = {
    "integer": int,
    "number": float,
    "string": str,
    "boolean": bool,
    "array": list,
    "object": dict,
}


def check_answer(answer: Any, schema: Any) -> Any:
    """The user's answer to a question checked against the question's ``response_schema`` (the
    JSON schema its ``adk_request_input`` call carries), as google-adk checks it on resume."""
    if not isinstance(schema, dict):
        return answer
    kind = schema.get("type")
    try:
        if kind == "object" and isinstance(schema.get("properties"), dict):
            required = set(schema.get("required", []))
            fields: dict[str, Any] = {}
            for name, prop in schema["properties"].items():
                wanted: Any = Any
                if isinstance(prop, dict) and isinstance(prop.get("type"), str):
                    wanted = _JSON_TYPES.get(prop["type"], Any)
                fields[name] = (wanted, ...) if name in required else (wanted | None, None)
            model = create_model("Answer", **fields)
            return model.model_validate(answer).model_dump()
        if isinstance(kind, str) and kind in _JSON_TYPES:
            return _adapter_for(_JSON_TYPES[kind]).validate_python(answer)
    except ValidationError as exc:
        raise WorkflowDataError(
            f"The answer {answer!r} does not fit the question's response_schema: {exc}"
        ) from exc
    return answer


def check_state_params(schema: type[BaseModel], nodes: Any) -> None:
    """Every state parameter of the workflow's function nodes is a field of its
    ``state_schema`` (raised when the workflow is built, as google-adk does)."""
    from yadk.workflow._function_node import FunctionNode  # imports this module

    fields = set(schema.model_fields)
    for node in nodes:
        if not isinstance(node, FunctionNode):
            continue
        for name in node.binder.state_names:
            if name not in fields:
                raise StateSchemaError(
                    f"FunctionNode {node.name!r} parameter {name!r} is not declared in"
                    f" state_schema {schema.__name__!r}. Declared fields: {sorted(fields)}"
                )


@functools.lru_cache(maxsize=256)
def _field_adapter(schema: type[BaseModel], key: str) -> TypeAdapter[Any]:
    return TypeAdapter(schema.model_fields[key].rebuild_annotation())


class SchemaState(State):
    """State whose writes are checked against a ``state_schema``: an undeclared key or a value
    of the wrong type is a ``StateSchemaError``. Prefixed keys (``app:``, ``user:``,
    ``temp:``, any ``owner:key``) are not checked."""

    __slots__ = ("schema",)

    def __init__(
        self, value: dict[str, Any], delta: dict[str, Any], *, schema: type[BaseModel]
    ) -> None:
        super().__init__(value, delta)
        self.schema = schema

    def __setitem__(self, key: str, value: Any) -> None:
        self._check(key, value)
        super().__setitem__(key, value)

    def update(self, delta: Mapping[str, Any]) -> None:
        for key, value in delta.items():
            self._check(key, value)
        super().update(delta)

    def _check(self, key: str, value: Any) -> None:
        if ":" in key:
            return
        fields = self.schema.model_fields
        if key not in fields:
            raise StateSchemaError(
                f"Key '{key}' is not declared in state schema '{self.schema.__name__}'."
                f" Declared fields: {sorted(fields)}"
            )
        try:
            _field_adapter(self.schema, key).validate_python(value)
        except ValidationError as exc:
            raise StateSchemaError(
                f"Value for '{key}' does not satisfy field '{key}'"
                f" ({fields[key].rebuild_annotation()}) in '{self.schema.__name__}': {exc}"
            ) from exc
