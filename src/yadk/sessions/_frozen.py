"""Frozen twins: events read back from a database, immutable from the moment they are made.

Each event model has a frozen twin (``Event`` -> ``FrozenEvent``, ``Part`` -> ``FrozenPart``,
...): a subclass with pydantic's ``frozen=True``, whose fields hold frozen twins and the frozen
containers of ``yadk._sealed`` (``FrozenDict``, ``FrozenList``, ``FrozenIds``).
``parse_frozen_events`` validates stored JSON straight into the twins
(``TypeAdapter(list[FrozenEvent])``, each container frozen by a validator as it is read), which
is several times quicker than parsing into the mutable models and sealing them. A frozen event
is still an ``Event`` (its mappings still ``dict``s) for readers, equal to the event it was
stored from and serialising the same, and refuses every change as a sealed event does
(``ImmutableEventError``), so a durable store can keep and share the events it parsed.

``copy.copy``, ``copy.deepcopy``, ``model_copy`` and pickling a frozen event give a mutable
``Event`` (thawed as deep as the copy goes), so code that edits history works on its own copy.

The events adapter is built, and pydantic's ``TypeAdapter`` imported, on the first read of stored
events.
"""

from __future__ import annotations

import copy
import operator
from functools import cache, reduce
from types import UnionType
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    ClassVar,
    NoReturn,
    SupportsIndex,
    TypeVar,
    Union,
    get_args,
    get_origin,
)

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)
from pydantic.fields import FieldInfo

from yadk._sealed import (
    EMPTY_DICT,
    SCALARS,
    FrozenDict,
    FrozenIds,
    FrozenList,
    freeze_json,
    refuse_change,
    shallow_thaw,
    thaw,
)
from yadk._tool_confirmation import ToolConfirmation
from yadk.events import CacheMetadata, Event, EventActions, EventCompaction, NodeInfo

if TYPE_CHECKING:
    from pydantic import TypeAdapter

from yadk.types import (
    Blob,
    CodeExecutionResult,
    Content,
    ExecutableCode,
    FileData,
    FunctionCall,
    FunctionResponse,
    Part,
)

__all__ = ["parse_frozen_events"]

_M = TypeVar("_M", bound=BaseModel)


class _Frozen:
    """Mixed into the frozen twin of each event model (listed first, so it wins)."""

    __slots__ = ()
    # The mutable class this one freezes.
    thawed_class: ClassVar[type[BaseModel]]

    def __setattr__(self, name: str, value: Any) -> NoReturn:
        refuse_change(f"{type(self).thawed_class.__name__} `{name}` of an event")

    def __delattr__(self, name: str) -> NoReturn:
        refuse_change(f"{type(self).thawed_class.__name__} `{name}` of an event")

    def __eq__(self, other: object) -> bool:
        # A frozen event equals the mutable event it copies (pydantic compares exact classes).
        if not isinstance(other, BaseModel):
            return NotImplemented
        theirs = getattr(type(other), "thawed_class", type(other))
        return type(self).thawed_class is theirs and vars(self) == vars(other)

    def __copy__(self) -> Any:
        return _thawed(self, {k: shallow_thaw(v) for k, v in vars(self).items()})

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Any:
        memo = {} if memo is None else memo
        return _thawed(self, {k: thaw(v, memo) for k, v in vars(self).items()})

    def __reduce_ex__(self, protocol: SupportsIndex) -> Any:
        # Pickled as the mutable model it freezes (as copy.deepcopy gives it), through the
        # pickling state pydantic models give.
        thawed = copy.deepcopy(self)
        return (_unpickle, (type(thawed), thawed.__getstate__()))


def _unpickle(cls: type[BaseModel], state: Any) -> BaseModel:
    model = cls.__new__(cls)
    model.__setstate__(state)
    return model


def _thawed(frozen: Any, values: dict[str, Any]) -> BaseModel:
    cls: type[BaseModel] = type(frozen).thawed_class
    return cls.model_construct(_fields_set=set(frozen.model_fields_set), **values)


def _freeze_flat(mapping: dict[str, Any]) -> dict[str, Any]:
    """A mapping of scalars (an artifact delta) frozen; most are empty, and share one."""
    return FrozenDict(mapping) if mapping else EMPTY_DICT


_EVENT_MODELS: tuple[type[BaseModel], ...] = (
    Event,
    EventActions,
    EventCompaction,
    CacheMetadata,
    Content,
    Part,
    Blob,
    FileData,
    FunctionCall,
    FunctionResponse,
    ExecutableCode,
    CodeExecutionResult,
    NodeInfo,
    ToolConfirmation,
)


def _in_dependency_order() -> list[type[BaseModel]]:
    """The event models, each after the models its fields hold."""
    ordered: list[type[BaseModel]] = []

    def visit(model: type[BaseModel]) -> None:
        if model not in ordered:
            for field in model.model_fields.values():
                for inner in _models_in(field.annotation):
                    visit(inner)
            ordered.append(model)

    for model in _EVENT_MODELS:
        visit(model)
    return ordered


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if annotation in _EVENT_MODELS:
        return [annotation]
    return [m for arg in get_args(annotation) for m in _models_in(arg)]


def _frozen_type(annotation: Any, twins: dict[type[BaseModel], type[BaseModel]]) -> Any:
    """``annotation`` with each model replaced by its twin and each container frozen as it is
    validated (or ``annotation`` itself for an immutable value)."""
    if annotation in twins:
        return twins[annotation]
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin in (Union, UnionType):
        return reduce(operator.or_, [_frozen_type(a, twins) for a in args])
    if origin is list:
        item = _frozen_type(args[0], twins)
        return Annotated[list[item], AfterValidator(FrozenList)]  # type: ignore[valid-type]
    if origin is dict and args[1] in twins:  # models by key: a frozen mapping of twins
        return Annotated[dict[args[0], twins[args[1]]], AfterValidator(_freeze_flat)]  # type: ignore[valid-type]
    if origin is dict:
        flat = args[1] in (str, int, float, bool)
        return Annotated[annotation, AfterValidator(_freeze_flat if flat else freeze_json)]
    if origin is set:
        return Annotated[annotation, AfterValidator(FrozenIds)]
    if annotation is Any:  # any JSON value (a workflow node's output)
        return Annotated[Any, AfterValidator(freeze_json)]
    if annotation in SCALARS or origin is Annotated:
        return annotation  # immutable values (Annotated: bytes read from base64 text)
    raise TypeError(f"no frozen form for the event field type {annotation!r}")


def _frozen_default(field: FieldInfo, twins: dict[type[BaseModel], type[BaseModel]]) -> Any:
    """The field's default, frozen (pydantic does not validate defaults, so would not freeze
    them)."""
    factory = field.default_factory
    if factory is None:
        return ... if field.is_required() else field.default
    if factory in twins:  # a model left out: that model, empty and frozen
        return Field(default_factory=twins[factory])
    if factory is dict:
        return Field(default_factory=lambda: EMPTY_DICT)
    frozen: Any = {list: FrozenList, set: FrozenIds}.get(factory, factory)  # type: ignore[call-overload]
    return Field(default_factory=frozen)


def _frozen_twin(cls: type[_M], twins: dict[type[BaseModel], type[BaseModel]]) -> type[_M]:
    annotations: dict[str, Any] = {}
    namespace: dict[str, Any] = {
        "__module__": __name__,
        "__qualname__": f"Frozen{cls.__name__}",
        # Built on first use, not at import: a command that stores no event does not pay for it.
        "model_config": ConfigDict(frozen=True, defer_build=True),
        # Mappings and lists of an event are not hashable: neither is the event.
        "__hash__": None,
        "thawed_class": cls,
        # A twin is made from an event already made or from what yadk wrote, never from the
        # shorthands a model's own __init__ reads (Event's `message=`, `state=`): pydantic's
        # __init__ lets pydantic-core build it without calling back into Python.
        "__init__": BaseModel.__init__,
    }
    for name, field in cls.model_fields.items():
        annotations[name] = _frozen_type(field.annotation, twins)
        namespace[name] = _frozen_default(field, twins)
    namespace["__annotations__"] = {**annotations, "thawed_class": ClassVar[type]}
    namespace.update(_stored_shape_validators(cls))
    twin: type[_M] = type(f"Frozen{cls.__name__}", (_Frozen, cls), namespace)
    return twin


def _stored_shape_validators(cls: type[BaseModel]) -> dict[str, Any]:
    """Validators that replace, by name, the message models' ``mode="before"`` validators in
    the twin. Those accept google-genai's other shapes (nulls, bare strings as parts), and a
    Python validator before a model makes pydantic-core turn each JSON object into a Python dict
    before checking it. A twin is made from what yadk wrote (or from an event already made), so
    it needs none of that: with these no-op validators its JSON is checked in Rust alone. Rows in
    another shape fail here and are read through the mutable models (``_codec.load_events``)."""
    validators: dict[str, Any] = {}
    if "_accept_foreign_shapes" in dir(cls):

        def as_read(self: Any) -> Any:
            return self

        validators["_accept_foreign_shapes"] = model_validator(mode="after")(as_read)
    if "_coerce_parts" in dir(cls):

        def parts_as_read(value: Any) -> Any:
            return value

        validators["_coerce_parts"] = field_validator("parts", mode="after")(parts_as_read)
    return validators


def _build_twins() -> dict[type[BaseModel], type[BaseModel]]:
    twins: dict[type[BaseModel], type[BaseModel]] = {}
    for model in _in_dependency_order():
        twins[model] = _frozen_twin(model, twins)
    return twins


# Each event model and its frozen twin.
FROZEN_TWINS: dict[type[BaseModel], type[BaseModel]] = _build_twins()
FrozenEvent: type[Event] = FROZEN_TWINS[Event]  # type: ignore[assignment]


@cache
def _frozen_events_adapter() -> TypeAdapter[list[Event]]:
    from pydantic import TypeAdapter

    return TypeAdapter(list[FrozenEvent])  # type: ignore[valid-type]


def parse_frozen_events(text: str | bytes) -> list[Event]:
    """The frozen events of a JSON array of stored events, validated straight into the twins
    (raises ``ValidationError`` for a row in a shape only the mutable models accept)."""
    return _frozen_events_adapter().validate_json(text)
