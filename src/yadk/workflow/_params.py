"""How a function node's parameters are filled: ``node_input``, ``ctx``, and state by name,
each coerced to its annotation (a pydantic model from a dict, ``str`` from a message)."""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, TypeAdapter

from yadk._contexts import Context, ReadonlyContext
from yadk.types import Content
from yadk.workflow._errors import WorkflowDataError

__all__ = ["MISSING", "Binder"]

MISSING: Any = inspect.Parameter.empty


@dataclass(frozen=True)
class _Param:
    name: str
    kind: str  # "input", "ctx" or "state"
    annotation: Any
    default: Any
    adapter: TypeAdapter[Any] | None
    wants_text: bool


class Binder:
    """The parameters of one function, read once, and how to fill them for a run."""

    def __init__(self, func: Callable[..., Any], *, owner: str, binding: str = "state") -> None:
        self.owner = owner
        # "state": parameters other than node_input and ctx come from the state; "node_input":
        # every parameter is a key of the input (a node called as a tool with its arguments).
        self.from_input = binding == "node_input"
        signature = inspect.signature(func)
        try:
            hints = typing.get_type_hints(func)
        except Exception:  # unresolvable forward references: bind without coercion
            hints = {}
        self.return_hint = hints.get("return", MISSING)
        params = []
        self.extra_keywords = any(p.kind == p.VAR_KEYWORD for p in signature.parameters.values())
        for name, param in signature.parameters.items():
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                continue
            annotation = hints.get(name, MISSING)
            if name == "node_input" and not self.from_input:
                kind = "input"
            elif name == "ctx" or _is_context(annotation):
                kind = "ctx"
            else:
                kind = "state"
            params.append(
                _Param(
                    name=name,
                    kind=kind,
                    annotation=annotation,
                    default=param.default,
                    adapter=_adapter(annotation) if kind != "ctx" else None,
                    wants_text=_wants_text(annotation),
                )
            )
        self.params = tuple(params)
        self.state_names = (
            () if self.from_input else tuple(p.name for p in params if p.kind == "state")
        )
        self.input_annotation = next((p.annotation for p in params if p.kind == "input"), MISSING)

    def bind(self, ctx: Context, node_input: Any) -> dict[str, Any]:
        """The keyword arguments for one run; raises ``ValueError`` naming a missing state key
        or a value that does not fit its annotation."""
        kwargs: dict[str, Any] = {}
        state: Any = ctx.state
        source = "state"
        if self.from_input:
            source = "node_input"
            state = node_input.model_dump() if isinstance(node_input, BaseModel) else node_input
            if not isinstance(state, dict):
                state = {}
            if self.extra_keywords:
                named = {p.name for p in self.params}
                kwargs.update({k: v for k, v in state.items() if k not in named})
        for p in self.params:
            if p.kind == "ctx":
                kwargs[p.name] = ctx
                continue
            if p.kind == "input":
                value = node_input
            elif p.name in state:
                value = state[p.name]
            elif p.default is not MISSING:
                kwargs[p.name] = p.default
                continue
            else:
                raise WorkflowDataError(
                    f'Missing value for parameter "{p.name}" of function "{self.owner}". It was'
                    f" not found in {source} and has no default value."
                )
            kwargs[p.name] = self._coerce(p, value)
        return kwargs

    def _coerce(self, p: _Param, value: Any) -> Any:
        if isinstance(value, Content) and p.wants_text:
            return "".join(part.text for part in value.parts if part.text and not part.thought)
        if p.adapter is None or (value is None and p.default is None):
            return value
        return p.adapter.validate_python(value)


def _is_context(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, ReadonlyContext)


def _wants_text(annotation: Any) -> bool:
    if annotation is str:
        return True
    return typing.get_origin(annotation) in (typing.Union, types.UnionType) and (
        str in typing.get_args(annotation)
    )


def _adapter(annotation: Any) -> TypeAdapter[Any] | None:
    """A validator for annotations worth checking (``Any`` and no annotation pass through)."""
    if annotation is MISSING or annotation is Any or annotation is object:
        return None
    if isinstance(annotation, type) and issubclass(annotation, Content):
        return None
    try:
        return TypeAdapter(annotation)
    except Exception:  # a type pydantic cannot validate (an arbitrary class): pass through
        return None


def as_output(value: Any) -> Any:
    """A node's output as stored on its event: pydantic models become dicts."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, list):
        return [as_output(v) for v in value]
    if isinstance(value, dict):
        return {k: as_output(v) for k, v in value.items()}
    return value
