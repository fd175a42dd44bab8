"""Sealed events: immutable once a session service has appended them, shared, never copied.

An event is mutable while it is being made (google-adk code fills ``event.actions.state_delta``,
plugins edit events before they are appended) and immutable once a session service has appended
it: the service seals that very object (``seal_event``) and hands it to every reader, so nothing
is copied on append or on read. Sealing marks the event and every model in it (``Sealable``, the
base of every event model) and swaps each of their dicts, lists and sets for a frozen copy
(``FrozenDict``, ``FrozenList``, ``FrozenIds``: still a ``dict``, ``list``, ``set`` for readers).
After that any change, a field set or deleted or a container edited, raises
``ImmutableEventError``. Events read back from a database are immutable from the start (the
frozen twins of ``sessions/_frozen``) and refuse changes the same way.

The seal is a slot of the instance, not a field: it is not validated, dumped or compared, and a
copy does not inherit it: ``copy.copy``, ``model_copy`` and pickling give a mutable model (its
dicts, lists and sets mutable copies), ``copy.deepcopy`` a mutable model throughout.
"""

from __future__ import annotations

import copy
from types import NoneType, UnionType
from typing import Annotated, Any, NoReturn, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel

from yadk.errors import ImmutableEventError

__all__ = [
    "EMPTY_DICT",
    "FROZEN_CONTAINERS",
    "FrozenDict",
    "FrozenIds",
    "FrozenList",
    "Sealable",
    "freeze_json",
    "is_sealed",
    "refuse_change",
    "seal_event",
    "shallow_thaw",
    "thaw",
]

_MESSAGE = (
    "{what} stored by a session service cannot be changed: the store shares it with every"
    " reader. Change a copy instead (event.model_copy(deep=True), or copy.deepcopy)."
)


def refuse_change(what: str) -> NoReturn:
    raise ImmutableEventError(_MESSAGE.format(what=what))


class Sealable(BaseModel):
    """A model that refuses every change once a session service has sealed it."""

    __slots__ = ("_sealed",)

    def __setattr__(self, name: str, value: Any) -> None:
        if is_sealed(self):
            refuse_change(f"{type(self).__name__} `{name}` of an event")
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        if is_sealed(self):
            refuse_change(f"{type(self).__name__} `{name}` of an event")
        super().__delattr__(name)

    def __copy__(self) -> Any:
        # A shallow copy is the caller's to edit: its own dicts, lists and sets (not the
        # frozen ones a sealed model holds), and no seal (a slot pydantic does not copy).
        copied = super().__copy__()
        fields = vars(copied)
        for name, value in fields.items():
            if type(value) in FROZEN_CONTAINERS:
                fields[name] = shallow_thaw(value)
        return copied


def is_sealed(model: Any) -> bool:
    """Whether a session service has stored ``model`` (so it can no longer change)."""
    try:
        # Read past pydantic's __getattr__: a model never sealed has the slot unset.
        return object.__getattribute__(model, "_sealed") is True
    except AttributeError:
        return False


class FrozenDict(dict[Any, Any]):
    """A ``dict`` of a stored event that refuses every change."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        refuse_change("A mapping of an event")

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __copy__(self) -> dict[Any, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[Any, Any]:
        return {k: thaw(v, memo) for k, v in self.items()}

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (dict(self),))


# The one empty mapping every stored event without entries there shares (its state or artifact
# delta, a call's args): not a new object per event for the store to keep. Frozen as every
# mapping of an event is, so no reader can fill it for the others.
EMPTY_DICT = FrozenDict()


class FrozenList(list[Any]):
    """A ``list`` of a stored event that refuses every change."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        refuse_change("A list of an event")

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
        refuse_change("A set of an event")

    add = discard = remove = pop = clear = update = _refuse
    difference_update = intersection_update = symmetric_difference_update = _refuse
    __ior__ = __iand__ = __isub__ = __ixor__ = _refuse

    def __copy__(self) -> set[str]:
        return set(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> set[str]:
        return set(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (set, (set(self),))


FROZEN_CONTAINERS = frozenset({FrozenDict, FrozenList, FrozenIds})
_JSON_CONTAINERS = frozenset({dict, list, tuple})
# Values a field may hold as they are: immutable.
SCALARS = frozenset({str, int, float, bool, bytes, NoneType})


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


def shallow_thaw(value: Any) -> Any:
    """A frozen container's mutable shallow copy (anything else as it is)."""
    kind = type(value)
    if kind is FrozenDict:
        return dict(value)
    if kind is FrozenList:
        return list(value)
    if kind is FrozenIds:
        return set(value)
    return value


def thaw(value: Any, memo: dict[int, Any] | None = None) -> Any:
    """A mutable deep copy of ``value`` (frozen or not)."""
    memo = {} if memo is None else memo
    kind = type(value)
    if kind in SCALARS:
        return value
    if kind is FrozenDict or kind is dict:
        return {k: thaw(v, memo) for k, v in value.items()}
    if kind is FrozenList or kind is list:
        return [thaw(v, memo) for v in value]
    if kind is FrozenIds:
        return set(value)
    return copy.deepcopy(value, memo)


# How seal_event treats a field, by its declared type.
_MODEL, _MODEL_LIST, _MODEL_DICT, _IDS, _JSON = range(5)

_M = TypeVar("_M", bound=BaseModel)


def seal_event(model: _M) -> _M:
    """Seal an event model in place and return it: every model in it sealed, each of its dicts,
    lists and sets swapped for a frozen copy (scalars are shared). A model frozen by its class
    (a twin read from a database) is returned as it is; one sealed already is walked again
    (harmless: its containers are frozen). A field holding something other than its declared
    type (assigned after the event was made) is left as it is."""
    kinds = _FIELD_KINDS.get(type(model))
    if kinds is None:
        if not isinstance(model, Sealable) or model.model_config.get("frozen"):
            return model
        kinds = _FIELD_KINDS[type(model)] = _field_kinds(type(model))
    fields = vars(model)
    for name, kind in kinds:
        value = fields.get(name)
        if value is None:
            continue
        if kind is _MODEL:
            seal_event(value)
        elif kind is _JSON:
            fields[name] = freeze_json(value)
        elif kind is _MODEL_LIST:
            fields[name] = FrozenList([seal_event(item) for item in value])
        elif kind is _MODEL_DICT:
            fields[name] = (
                FrozenDict({k: seal_event(v) for k, v in value.items()}) if value else EMPTY_DICT
            )
        elif kind is _IDS:
            fields[name] = FrozenIds(value)
    object.__setattr__(model, "_sealed", True)
    return model


_FIELD_KINDS: dict[type, tuple[tuple[str, int], ...]] = {}


def _field_kinds(cls: type[BaseModel]) -> tuple[tuple[str, int], ...]:
    """How to seal each field of ``cls`` that may hold something mutable (immutable scalars are
    left out)."""
    kinds: list[tuple[str, int]] = []
    for name, field in cls.model_fields.items():
        options = [_bare(a) for a in _alternatives(field.annotation) if a is not NoneType]
        kind: int | None = _JSON
        if len(options) == 1:
            only, origin, args = options[0], get_origin(options[0]), get_args(options[0])
            if only in SCALARS:
                kind = None
            elif _is_sealable(only):
                kind = _MODEL
            elif origin is list and _is_sealable(args[0]):
                kind = _MODEL_LIST
            elif origin is dict and _is_sealable(args[1]):
                kind = _MODEL_DICT
            elif origin is set:
                kind = _IDS
        if kind is not None:
            kinds.append((name, kind))
    return tuple(kinds)


def _alternatives(annotation: Any) -> tuple[Any, ...]:
    if get_origin(annotation) in (Union, UnionType):
        return get_args(annotation)
    return (annotation,)


def _bare(annotation: Any) -> Any:
    return get_args(annotation)[0] if get_origin(annotation) is Annotated else annotation


def _is_sealable(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, Sealable)
