"""Agent classes by name: the built-ins and their spellings, or a custom ``BaseAgent`` subclass
whose own pydantic fields become further YAML keys.

Engine imports are inside the functions that build objects, off ``import yadk.config``
and ``yadk validate`` (see the package docstring).
"""

from __future__ import annotations

from typing import Any, cast

from yadk.config._context import FileScope, did_you_mean
from yadk.config._dialect import AGENT_CLASS_SPELLINGS, AgentKind
from yadk.config._fields import callbacks
from yadk.config._refs import LoaderBase

__all__ = ["base_kind", "extra_field", "read_agent_class", "unknown_class_references"]

_SHORT_CLASSES = [
    "LlmAgent",
    "Agent",
    "SequentialAgent",
    "ParallelAgent",
    "LoopAgent",
    "Workflow",
    "RemoteA2aAgent",
]
_AGENT_KINDS = (
    "LlmAgent",
    "LoopAgent",
    "SequentialAgent",
    "ParallelAgent",
    "Workflow",
    "RemoteA2aAgent",
)


def read_agent_class(
    reader: LoaderBase, scope: FileScope, data: dict[str, Any]
) -> tuple[str | None, type | None, list[str]]:
    """(kind, class, extra keys) of the agent; kind is None when it cannot be known."""
    value = data.get("agent_class") or ""
    at = ("agent_class",)
    if not reader.expect(scope, at, value, str, "a class name (a string)"):
        return None, None, []
    builtin = AGENT_CLASS_SPELLINGS.get(value)
    if builtin is not None:
        return builtin, _engine_class(builtin) if reader.import_code else None, []
    if "." not in value:
        guess = did_you_mean(value, _SHORT_CLASSES)
        reader.error(
            scope,
            at,
            "unknown-agent-class",
            f"Unknown agent class `{value}`.",
            f"Did you mean `{guess}`?"
            if guess
            else "Use LlmAgent, SequentialAgent, ParallelAgent, LoopAgent, Workflow,"
            " RemoteA2aAgent, or the dotted name of a BaseAgent subclass.",
        )
        return None, None, []
    found = reader.reference(scope, at, value, "agent_class")
    if found is None or not reader.import_code:
        return None, None, []
    cls = found.obj
    kind = _kind_of(cls)
    base_fields = (
        set(_engine_class(kind).model_fields) if kind != "BaseAgent" else set(_base_agent_fields())
    )
    extra = [f for f in cls.model_fields if f not in base_fields]
    extra += [f"{f}_code" for f in list(extra)]
    extra += [f"{f}s" for f in list(extra) if f.endswith("_callback")]
    return kind, cls, extra


def unknown_class_references(reader: LoaderBase, scope: FileScope, data: dict[str, Any]) -> None:
    """Check what can be checked of a class known only by name: its ``*_code`` references."""
    for key, value in data.items():
        if isinstance(key, str) and key.endswith("_code") and key != "model_code":
            named = reader.code_name(scope, (key,), value, f"`{key}`")
            if named is not None:
                reader.reference(scope, named[0], named[1], "object")


def extra_field(
    reader: LoaderBase, scope: FileScope, cls: Any, key: str, value: Any
) -> dict[str, Any]:
    """A custom class's own field: plain data, ``<field>_code`` (an object from code) or
    ``<field>_callbacks`` (a list of callbacks)."""
    if key.endswith("_code") and key not in cls.model_fields:
        named = reader.code_name(scope, (key,), value, f"`{key}`")
        found = None if named is None else reader.reference(scope, named[0], named[1], "object")
        return {} if found is None else {key.removesuffix("_code"): found.obj}
    if key.endswith("_callbacks") and key not in cls.model_fields:
        found_callbacks = callbacks(reader, scope, (key,), value)
        return {} if not found_callbacks else {key.removesuffix("s"): found_callbacks}
    from pydantic import ConfigDict, TypeAdapter, ValidationError

    annotation = cls.model_fields[key].annotation
    try:
        value = TypeAdapter(
            annotation, config=ConfigDict(arbitrary_types_allowed=True)
        ).validate_python(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        reader.error(
            scope,
            (key, *first["loc"]),
            "wrong-type",
            f"`{key}` is invalid for {cls.__name__}: {first['msg']}.",
        )
    except Exception:
        pass  # class's own constructor validates it
    return {key: value}


def base_kind(kind: str) -> AgentKind:
    # A custom class that derives from none of the built-ins takes only the common keys,
    # which is what SequentialAgent takes.
    return cast(AgentKind, kind) if kind in _AGENT_KINDS else "SequentialAgent"


def _engine_class(kind: str) -> Any:
    if kind == "RemoteA2aAgent":
        import yadk.a2a

        return yadk.a2a.RemoteA2aAgent
    if kind == "Workflow":
        import yadk.workflow

        return yadk.workflow.Workflow
    import yadk.agents

    return getattr(yadk.agents, kind)


def _base_agent_fields() -> list[str]:
    from yadk.agents import BaseAgent

    return list(BaseAgent.model_fields)


def _kind_of(cls: type) -> str:
    from yadk.agents import LlmAgent, LoopAgent, ParallelAgent, SequentialAgent
    from yadk.workflow import Workflow

    for base in (LlmAgent, LoopAgent, SequentialAgent, ParallelAgent, Workflow):
        if issubclass(cls, base):
            return base.__name__
    return "BaseAgent"
