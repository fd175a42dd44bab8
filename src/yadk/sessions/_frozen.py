"""Frozen events: what a session service stores and hands to every reader without copying.

Each event model has a frozen twin (``Event`` -> ``FrozenEvent``, ``Part`` -> ``FrozenPart``,
...): a subclass with pydantic's ``frozen=True``, whose fields hold frozen twins and frozen
containers (``FrozenDict``, ``FrozenList``, ``FrozenIds``). A frozen event is still an ``Event``
(and its mappings still ``dict``s) for readers, equal to the event it copies, and serialises the
same, but any attempt to change it raises ``ImmutableEventError``: the guarantee that no reader
can change what a store holds (or what another reader sees) comes from the objects themselves,
not from copying them on every read.

Frozen events are made two ways, both public pydantic: ``freeze_event`` copies an appended event
into its twins with ``model_construct`` (values are taken as they are, no validation: they were
validated when the event was made); ``parse_frozen_events`` validates stored JSON straight into
the twins (``TypeAdapter(list[FrozenEvent])``), each container frozen by a validator as it is
read.

``copy.copy``, ``copy.deepcopy``, ``model_copy`` and pickling a frozen event give a mutable
``Event`` (thawed as deep as the copy goes), so code that edits history works on its own copy.

The events adapter is built, and pydantic's ``TypeAdapter`` imported, on the first read of stored
events.
"""

from __future__ import annotations

import copy
import operator
from functools import cache, reduce
from types import NoneType, UnionType
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
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.fields import FieldInfo

from yadk._tool_confirmation import ToolConfirmation
from yadk.errors import ImmutableEventError
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

__all__ = [
    "EMPTY_DICT",
    "FROZEN_TWINS",
    "FrozenDict",
    "FrozenIds",
    "FrozenList",
    "freeze_event",
    "freeze_json",
    "is_frozen",
    "parse_frozen_events",
    "thaw",
]

_M = TypeVar("_M", bound=BaseModel)

_MESSAGE = (
    "{what} read from a session service cannot be changed: the store shares it with every"
    " reader. Change a copy instead (event.model_copy(deep=True), or copy.deepcopy)."
)


def _refuse(what: str) -> NoReturn:
    raise ImmutableEventError(_MESSAGE.format(what=what))


class FrozenDict(dict[Any, Any]):
    """A ``dict`` of a stored event that refuses every change."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse("A mapping of an event")

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __copy__(self) -> dict[Any, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[Any, Any]:
        return {k: thaw(v, memo) for k, v in self.items()}

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (dict(self),))


# The one empty mapping every event without entries there shares (its state or artifact delta,
# a call's args): not a new object per event for the store to keep. Frozen as every mapping of
# an event is, so no reader can fill it for the others.
EMPTY_DICT = FrozenDict()


class FrozenList(list[Any]):
    """A ``list`` of a stored event that refuses every change."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse("A list of an event")

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = remove = pop = clear = sort = reverse = _refuse

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return [thaw(v, memo) for v in self]

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (list(self),))


class FrozenIds(set[str]):
    """The ``set`` of an event's long-running tool call ids, refusing every change."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse("A set of an event")

    add = discard = remove = pop = clear = update = _refuse
    difference_update = intersection_update = symmetric_difference_update = _refuse
    __ior__ = __iand__ = __isub__ = __ixor__ = _refuse

    def __copy__(self) -> set[str]:
        return set(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> set[str]:
        return set(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (set, (set(self),))


class _Frozen:
    """Mixed into the frozen twin of each event model (listed first, so it wins)."""

    __slots__ = ()
    # The mutable class this one freezes.
    thawed_class: ClassVar[type[BaseModel]]

    def __setattr__(self, name: str, value: Any) -> NoReturn:
        _refuse(f"{type(self).thawed_class.__name__} `{name}` of an event")

    def __delattr__(self, name: str) -> NoReturn:
        _refuse(f"{type(self).thawed_class.__name__} `{name}` of an event")

    def __eq__(self, other: object) -> bool:
        # A frozen event equals the mutable event it copies (pydantic compares exact classes).
        if not isinstance(other, BaseModel):
            return NotImplemented
        theirs = getattr(type(other), "thawed_class", type(other))
        return type(self).thawed_class is theirs and vars(self) == vars(other)

    def __copy__(self) -> Any:
        return _thawed(self, {k: _shallow(v) for k, v in vars(self).items()})

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


def _shallow(value: Any) -> Any:
    kind = type(value)
    if kind is FrozenDict:
        return dict(value)
    if kind is FrozenList:
        return list(value)
    if kind is FrozenIds:
        return set(value)
    return value


def freeze_json(value: Any) -> Any:
    """A JSON value with each dict and list in it a frozen copy (tuples become lists, as JSON
    has them)."""
    kind = type(value)
    if kind is dict or kind is FrozenDict:
        if not value:
            return EMPTY_DICT
        if kind is FrozenDict:
            return value
        for item in value.values():  # most mappings hold scalars alone: copied as they are
            if type(item) in _JSON_CONTAINERS:
                return FrozenDict({k: freeze_json(v) for k, v in value.items()})
        return FrozenDict(value)
    if kind is list or kind is tuple:
        return FrozenList([freeze_json(v) if type(v) in _JSON_CONTAINERS else v for v in value])
    return value  # JSON's scalars are immutable (a FrozenList is frozen throughout already)


_JSON_CONTAINERS = frozenset({dict, list, tuple})
# Values a model field may hold as they are (an ``Any`` field's values go through freeze_json).
_SCALARS = frozenset({str, int, float, bool, bytes, NoneType})


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
    if annotation in _SCALARS or origin is Annotated:
        return annotation  # immutable values (Annotated: bytes read from base64 text)
    raise TypeError(f"no frozen form for the event field type {annotation!r}")


def _frozen_default(field: FieldInfo, twins: dict[type[BaseModel], type[BaseModel]]) -> Any:
    """The field's default, frozen (pydantic does not validate defaults, so would not freeze
    them)."""
    factory = field.default_factory
    if factory is None:
        return ... if field.is_required() else field.default
    if factory in twins:  # a model left out: that model, empty and frozen
        model: Any = factory
        return Field(default_factory=lambda: freeze_event(model()))
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
_FROZEN_CLASSES = frozenset(FROZEN_TWINS.values())
_FROZEN_CONTAINERS = frozenset({FrozenDict, FrozenList, FrozenIds})


def is_frozen(value: Any) -> bool:
    return type(value) in _FROZEN_CLASSES or type(value) in _FROZEN_CONTAINERS


_Plan = tuple[
    type[BaseModel], frozenset[str], frozenset[str], frozenset[str], frozenset[str], frozenset[str]
]


def _plan(cls: type[BaseModel]) -> _Plan:
    """Which fields of ``cls`` hold a model, a list of models, models by key, a set of ids, or
    JSON values (anything else: the immutable scalars str, numbers, bools, bytes)."""
    models: list[str] = []
    model_lists: list[str] = []
    model_dicts: list[str] = []
    id_sets: list[str] = []
    json_values: list[str] = []
    for name, field in cls.model_fields.items():
        kinds = [a for a in _alternatives(field.annotation) if a is not NoneType]
        bare = [get_args(k)[0] if get_origin(k) is Annotated else k for k in kinds]
        origin = get_origin(bare[0]) if len(bare) == 1 else None
        if len(bare) == 1 and bare[0] in FROZEN_TWINS:
            models.append(name)
        elif origin is list and get_args(bare[0])[0] in FROZEN_TWINS:
            model_lists.append(name)
        elif origin is dict and get_args(bare[0])[1] in FROZEN_TWINS:
            model_dicts.append(name)
        elif origin is set:
            id_sets.append(name)
        elif not (len(bare) == 1 and bare[0] in _SCALARS):
            json_values.append(name)
    return (
        FROZEN_TWINS[cls],
        frozenset(models),
        frozenset(model_lists),
        frozenset(model_dicts),
        frozenset(id_sets),
        frozenset(json_values),
    )


def _alternatives(annotation: Any) -> tuple[Any, ...]:
    if get_origin(annotation) in (Union, UnionType):
        return get_args(annotation)
    return (annotation,)


_PLANS: dict[type, _Plan] = {cls: _plan(cls) for cls in FROZEN_TWINS}


def freeze_event(model: _M) -> _M:
    """A frozen copy of an event model (itself if it is frozen already): models become their
    twins and containers frozen copies, scalars are shared.

    The twin is validated from the frozen values (pydantic-core takes the twins inside as they
    are); that is quicker than ``model_construct``, which walks every field in Python. Fields
    left at ``None`` are left out, so they count as unset, as a stored event's do. A value the
    twin refuses (a field assigned a wrong type after the event was made) is copied as it is."""
    plan = _PLANS.get(type(model))
    if plan is None:
        if type(model) in _FROZEN_CLASSES:
            return model
        # A subclass of an event model: frozen as the model it extends.
        plan = next(p for cls, p in _PLANS.items() if isinstance(model, cls))
    twin, models, model_lists, model_dicts, id_sets, json_values = plan
    values: dict[str, Any] = {}
    for name, value in vars(model).items():
        if value is None:
            continue
        if name in models:
            value = _EMPTY_ACTIONS if _no_actions(value) else freeze_event(value)
        elif name in model_lists:
            value = FrozenList([freeze_event(item) for item in value])
        elif name in model_dicts:
            if not value:
                continue  # left at its default, unset, as a stored event's is
            value = FrozenDict({k: freeze_event(v) for k, v in value.items()})
        elif name in id_sets:
            value = FrozenIds(value)
        elif name in json_values:
            value = freeze_json(value)
        values[name] = value
    try:
        frozen: _M = twin.model_validate(values)  # type: ignore[assignment]
    except ValidationError:
        frozen = twin.model_construct(_fields_set=set(values), **values)  # type: ignore[assignment]
    return frozen


def _no_actions(value: Any) -> bool:
    """An ``EventActions`` with every field at its default (most events' actions): frozen, it
    is ``_EMPTY_ACTIONS``, built once. Compared with a default instance's fields as a whole, so
    a field added to ``EventActions`` later is compared too."""
    return type(value) is EventActions and vars(value) == _DEFAULT_ACTIONS


_DEFAULT_ACTIONS = dict(vars(EventActions()))
_EMPTY_ACTIONS: Any = None  # set below, once freeze_event can build it


@cache
def _frozen_events_adapter() -> TypeAdapter[list[Event]]:
    from pydantic import TypeAdapter

    return TypeAdapter(list[FrozenEvent])  # type: ignore[valid-type]


def parse_frozen_events(text: str | bytes) -> list[Event]:
    """The frozen events of a JSON array of stored events, validated straight into the twins
    (raises ``ValidationError`` for a row in a shape only the mutable models accept)."""
    return _frozen_events_adapter().validate_json(text)


def thaw(value: Any, memo: dict[int, Any] | None = None) -> Any:
    """A mutable deep copy of ``value`` (frozen or not)."""
    memo = {} if memo is None else memo
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is FrozenDict or kind is dict:
        return {k: thaw(v, memo) for k, v in value.items()}
    if kind is FrozenList or kind is list:
        return [thaw(v, memo) for v in value]
    if kind is FrozenIds:
        return set(value)
    return copy.deepcopy(value, memo)


_EMPTY_ACTIONS = freeze_event(EventActions())
