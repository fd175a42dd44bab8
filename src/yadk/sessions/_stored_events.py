"""Stored event rows parsed straight into frozen events, in one pass of pydantic-core.

The event models accept foreign shapes (google-genai objects, nulls, bare strings as parts)
through Python validators, and a Python validator on a model makes pydantic-core turn each JSON
object into a Python dict before checking it. The rows a store wrote are never in those shapes:
they are yadk's own ``model_dump_json(exclude_none=True)``. So they are read with stand-ins of the
models that have every field check but no Python validator (the checks run in Rust), in a schema
whose models create the frozen twins themselves (``FrozenEvent``, ``FrozenPart``, ...), each
container frozen as it is made. That takes about half the time of validating with the models and
then freezing, which was most of what the first read of a long session cost.

A row the stand-ins refuse (changed outside yadk, or written in another shape) is read again the
ordinary way, which accepts what the models accept and names what they do not
(``_codec.load_events``). The reader checks itself once when built: should a pydantic release
stop creating the twins from this schema, ``parse_stored_events`` is ``None`` and every read
takes the ordinary way (slower, never wrong).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from functools import cache, reduce
from types import NoneType, UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, create_model
from pydantic.fields import FieldInfo
from pydantic_core import SchemaValidator

from yadk.events import Event
from yadk.sessions._frozen import (
    EMPTY_DICT,
    FROZEN_TWINS,
    FrozenDict,
    FrozenIds,
    FrozenList,
    freeze_json,
    freeze_model,
    is_frozen,
)

__all__ = ["stored_events_reader"]

_Models = dict[type[BaseModel], type[BaseModel]]
_SAMPLE = (
    '[{"id":"e","author":"a","timestamp":1.0,"content":{"role":"model","parts":[{"text":"t"}]},'
    '"actions":{"state_delta":{"k":[1]},"artifact_delta":{}}}]'
)


@cache
def stored_events_reader() -> Callable[[str], list[Event]] | None:
    """A function from a JSON array of stored rows to their frozen events (raising
    ``ValidationError``, or ``ValueError`` for text that is not JSON, on a row it refuses); built
    on first use (a few ms). ``None`` when it would not give frozen events (see the docstring)."""
    stand_ins: _Models = {}
    for model in _in_dependency_order():
        stand_ins[model] = _stand_in(model, stand_ins)
    twin_of = {stand_ins[model]: twin for model, twin in FROZEN_TWINS.items()}
    schema = TypeAdapter(list[stand_ins[Event]]).core_schema  # type: ignore[valid-type]
    validate: Callable[[str], list[Event]] = SchemaValidator(
        _retarget(schema, twin_of)
    ).validate_json
    sample = validate(_SAMPLE)[0]
    parts = [sample, sample.content, sample.actions, sample.actions.state_delta["k"]]
    return validate if all(is_frozen(p) for p in parts) else None


def _in_dependency_order() -> list[type[BaseModel]]:
    """The models with a frozen twin, each after the models its fields hold."""
    ordered: list[type[BaseModel]] = []

    def visit(model: type[BaseModel]) -> None:
        if model not in ordered:
            for field in model.model_fields.values():
                for inner in _models_in(field.annotation):
                    visit(inner)
            ordered.append(model)

    for model in FROZEN_TWINS:
        visit(model)
    return ordered


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if annotation in FROZEN_TWINS:
        return [annotation]
    return [m for arg in get_args(annotation) for m in _models_in(arg)]


def _stand_in(model: type[BaseModel], stand_ins: _Models) -> type[BaseModel]:
    """A model with ``model``'s fields, checks and defaults, but no Python validator."""
    fields: dict[str, Any] = {
        name: (_stored_type(field.annotation, stand_ins), _stored_default(field))
        for name, field in model.model_fields.items()
    }
    return create_model(
        f"Stored{model.__name__}",
        # Field names repeat in every row, values (ids, texts) hardly: caching the values'
        # strings would fill the cache with strings seen once.
        __config__=ConfigDict(extra="forbid", cache_strings="keys"),
        __module__=__name__,
        **fields,
    )


def _stored_type(annotation: Any, stand_ins: _Models) -> Any:
    """``annotation`` with each model replaced by its stand-in and each container frozen."""
    if annotation in stand_ins:
        return stand_ins[annotation]
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin in (Union, UnionType):
        return reduce(operator.or_, [_stored_type(a, stand_ins) for a in args])
    if origin is list:
        item = _stored_type(args[0], stand_ins)
        return Annotated[list[item], AfterValidator(FrozenList)]  # type: ignore[valid-type]
    if origin is dict:
        flat = args[1] in (str, int, float, bool)
        return Annotated[annotation, AfterValidator(_freeze_flat if flat else freeze_json)]
    if origin is set:
        return Annotated[annotation, AfterValidator(FrozenIds)]
    if annotation in (str, int, float, bool, NoneType) or origin is Annotated:
        return annotation  # immutable values (Annotated: bytes read from base64 text)
    raise TypeError(f"no stored form for the event field type {annotation!r}")


def _freeze_flat(mapping: dict[str, Any]) -> dict[str, Any]:
    """A mapping of scalars (an artifact delta) frozen; most are empty, and share one."""
    return FrozenDict(mapping) if mapping else EMPTY_DICT


def _stored_default(field: FieldInfo) -> Any:
    """The field's default, frozen (pydantic does not validate defaults, so would not freeze them)."""
    factory = field.default_factory
    if factory is None:
        return ... if field.is_required() else field.default
    if factory in FROZEN_TWINS:  # a model left out: that model, empty and frozen
        return Field(default_factory=lambda: freeze_model(factory()))
    frozen = {dict: FrozenDict, list: FrozenList, set: FrozenIds}.get(factory, factory)  # type: ignore[call-overload]
    return Field(default_factory=frozen)


def _retarget(schema: Any, twin_of: _Models) -> Any:
    """A copy of the pydantic-core ``schema`` whose models create frozen twins, not stand-ins."""
    if isinstance(schema, dict):
        copied = {key: _retarget(value, twin_of) for key, value in schema.items()}
        if copied.get("type") == "model" and copied.get("cls") in twin_of:
            copied["cls"] = twin_of[copied["cls"]]
        return copied
    if isinstance(schema, list):
        return [_retarget(item, twin_of) for item in schema]
    return schema
