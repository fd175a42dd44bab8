"""Frozen events: what a session service stores and hands to every reader without copying.

``freeze_loaded(events)`` turns events just parsed from their stored JSON into frozen ones: every
model becomes an instance of its frozen twin (``Event`` -> ``FrozenEvent``, ``Part`` ->
``FrozenPart``, ...), every mapping a ``FrozenDict`` and every list a ``FrozenList``. Those are still an ``Event``, a ``dict`` and a
``list`` for readers, equal to the values they copy, and serialise the same, but any attempt
to change one raises ``ImmutableEventError``: the guarantee that no reader can change what a
store holds (or what another reader sees) comes from the objects themselves, not from copying
them on every read.

``copy.copy``, ``copy.deepcopy``, ``model_copy`` and pickling a frozen event give a mutable
``Event`` (thawed as deep as the copy goes), so code that edits history works on its own copy.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from types import NoneType, UnionType
from typing import (
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

from pydantic import BaseModel

from yadk.errors import ImmutableEventError
from yadk.events import Event, EventActions, NodeInfo
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
    "freeze_json",
    "freeze_loaded",
    "freeze_model",
    "is_frozen",
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
# a call's args): not a new object per event for the store's cache to keep and the collector to
# walk. Frozen as every mapping of an event is, so no reader can fill it for the others.
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
    thawed_class: type[BaseModel]

    def __setattr__(self, name: str, value: Any) -> NoReturn:
        _refuse(f"{type(self).thawed_class.__name__} `{name}` of an event")

    def __delattr__(self, name: str) -> NoReturn:
        _refuse(f"{type(self).thawed_class.__name__} `{name}` of an event")

    def __eq__(self, other: object) -> bool:
        # A frozen event equals the mutable event it copies (pydantic compares exact classes).
        if not isinstance(other, BaseModel):
            return NotImplemented
        theirs = getattr(type(other), "thawed_class", type(other))
        return (
            type(self).thawed_class is theirs
            and self.__dict__ == other.__dict__
            and other.__pydantic_extra__ is None
            and other.__pydantic_private__ is None
        )

    __hash__ = None  # type: ignore[assignment]

    def __copy__(self) -> Any:
        return _thawed_model(self, lambda value, memo: value, {})

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Any:
        return _thawed_model(self, thaw, {} if memo is None else memo)

    def __reduce_ex__(self, protocol: SupportsIndex) -> Any:
        # Pickled as the mutable model it freezes (as copy.deepcopy gives it).
        thawed = self.__deepcopy__()
        return (_unpickle, (type(thawed), thawed.__getstate__()))


def _unpickle(cls: type[BaseModel], state: Any) -> BaseModel:
    model = cls.__new__(cls)
    model.__setstate__(state)
    return model


def _frozen_twin(cls: type[_M]) -> type[_M]:
    namespace = {"__module__": __name__, "__annotations__": {"thawed_class": ClassVar[type]}}
    twin: type[_M] = type(f"Frozen{cls.__name__}", (_Frozen, cls), namespace)
    twin.thawed_class = cls  # type: ignore[attr-defined]
    # The twin shares its model's validation (it is never validated into directly). Without a
    # completeness flag of its own, pydantic-core builds the schema it is named in as written,
    # rather than reusing the twin's own validator: _stored_events relies on it to create twins
    # straight from stored rows (and checks that it does).
    del twin.__pydantic_complete__
    return twin


FrozenEvent = _frozen_twin(Event)
FrozenEventActions = _frozen_twin(EventActions)
FrozenContent = _frozen_twin(Content)
FrozenPart = _frozen_twin(Part)
FrozenBlob = _frozen_twin(Blob)
FrozenFileData = _frozen_twin(FileData)
FrozenFunctionCall = _frozen_twin(FunctionCall)
FrozenFunctionResponse = _frozen_twin(FunctionResponse)
FrozenExecutableCode = _frozen_twin(ExecutableCode)
FrozenCodeExecutionResult = _frozen_twin(CodeExecutionResult)
FrozenNodeInfo = _frozen_twin(NodeInfo)

# Each event model and its frozen twin.
FROZEN_TWINS: dict[type[BaseModel], type[BaseModel]] = {
    Event: FrozenEvent,
    EventActions: FrozenEventActions,
    Content: FrozenContent,
    Part: FrozenPart,
    Blob: FrozenBlob,
    FileData: FrozenFileData,
    FunctionCall: FrozenFunctionCall,
    FunctionResponse: FrozenFunctionResponse,
    ExecutableCode: FrozenExecutableCode,
    CodeExecutionResult: FrozenCodeExecutionResult,
    NodeInfo: FrozenNodeInfo,
}
_FROZEN_CLASSES = frozenset(FROZEN_TWINS.values())
_FROZEN_CONTAINERS = frozenset({FrozenDict, FrozenList, FrozenIds})
# Values a model field may hold as they are (an ``Any`` field's values go through freeze_json).
_SCALARS = frozenset({str, int, float, bool, bytes, type(None)})


def is_frozen(value: Any) -> bool:
    return type(value) in _FROZEN_CLASSES or type(value) in _FROZEN_CONTAINERS


def freeze_loaded(events: list[Event]) -> list[Event]:
    """Freeze, in place, events just read back from their JSON (and held by no one else): each
    model becomes its frozen twin, each mapping, list and set of ids a frozen one."""
    for event in events:
        freeze_model(event)
    return events


def freeze_model(model: _M) -> _M:
    """``model`` (an event model held by no one else) frozen in place, and returned."""
    plan = _PLANS.get(type(model))
    if plan is None:
        return model  # already frozen (or not one of the event models)
    twin, models, model_lists, id_sets, json_values = plan
    values = model.__dict__
    for name in models:
        value = values[name]
        if value is not None:
            freeze_model(value)
    for name in model_lists:
        items = values[name]
        for item in items:
            freeze_model(item)
        values[name] = FrozenList(items)
    for name in id_sets:
        value = values[name]
        if value is not None:
            values[name] = FrozenIds(value)
    for name in json_values:
        value = values[name]
        if value is not None:
            values[name] = freeze_json(value)
    object.__setattr__(model, "__class__", twin)
    return model


def freeze_json(value: Any) -> Any:
    """A JSON value with each dict and list in it frozen."""
    kind = type(value)
    if kind is dict:
        if not value:
            return EMPTY_DICT
        for item in value.values():  # most mappings hold scalars alone: copied as they are
            if type(item) in _JSON_CONTAINERS:
                return FrozenDict({k: freeze_json(v) for k, v in value.items()})
        return FrozenDict(value)
    if kind is list:
        return FrozenList([freeze_json(v) if type(v) in _JSON_CONTAINERS else v for v in value])
    return value  # JSON's scalars are immutable


_JSON_CONTAINERS = frozenset({dict, list})


_Plan = tuple[type, tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]


def _plan(cls: type[BaseModel]) -> _Plan:
    """Which fields of ``cls`` hold a model, a list of models, a set of ids, or JSON values
    (anything else: the immutable scalars str, numbers, bools, bytes)."""
    models: list[str] = []
    model_lists: list[str] = []
    id_sets: list[str] = []
    json_values: list[str] = []
    for name, field in cls.model_fields.items():
        kinds = [_bare(a) for a in _alternatives(field.annotation) if a is not NoneType]
        origin = get_origin(kinds[0]) if len(kinds) == 1 else None
        if len(kinds) == 1 and kinds[0] in FROZEN_TWINS:
            models.append(name)
        elif origin is list and get_args(kinds[0])[0] in FROZEN_TWINS:
            model_lists.append(name)
        elif origin is set:
            id_sets.append(name)
        elif not (len(kinds) == 1 and kinds[0] in _SCALARS):
            json_values.append(name)
    return (
        FROZEN_TWINS[cls],
        tuple(models),
        tuple(model_lists),
        tuple(id_sets),
        tuple(json_values),
    )


def _alternatives(annotation: Any) -> tuple[Any, ...]:
    if get_origin(annotation) in (Union, UnionType):
        return get_args(annotation)
    return (annotation,)


def _bare(annotation: Any) -> Any:
    """``Annotated[bytes, ...]`` -> ``bytes``."""
    return get_args(annotation)[0] if get_origin(annotation) is Annotated else annotation


_PLANS: dict[type, _Plan] = {cls: _plan(cls) for cls in FROZEN_TWINS}


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


def _thawed_model(
    frozen: Any, copy_value: Callable[[Any, dict[int, Any]], Any], memo: dict[int, Any]
) -> BaseModel:
    cls: type[BaseModel] = type(frozen).thawed_class
    thawed = cls.__new__(cls)
    memo[id(frozen)] = thawed
    values = {k: copy_value(v, memo) for k, v in frozen.__dict__.items()}
    if copy_value is not thaw:  # shallow: the containers themselves become mutable
        values = {k: _shallow(v) for k, v in values.items()}
    _set = object.__setattr__
    _set(thawed, "__dict__", values)
    _set(thawed, "__pydantic_fields_set__", set(frozen.__pydantic_fields_set__))
    _set(thawed, "__pydantic_extra__", None)
    _set(thawed, "__pydantic_private__", None)
    return thawed


def _shallow(value: Any) -> Any:
    if type(value) is FrozenDict:
        return dict(value)
    if type(value) is FrozenList:
        return list(value)
    if type(value) is FrozenIds:
        return set(value)
    return value
