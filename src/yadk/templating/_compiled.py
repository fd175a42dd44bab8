"""Compiled templates for the default engine: parse once per text, render by filling slots.

An instruction is rendered on every model call, usually with the same text, so the regex scan and
the name checks run once per distinct text (``compile_template`` keeps a bounded cache) and a
render is a list copy, one dict lookup per placeholder and a join.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from yadk.errors import TemplateKeyError
from yadk.templating._artifacts import load_artifact_text
from yadk.templating._cache import TextCache
from yadk.templating._syntax import PLACEHOLDER_PATTERN, parse_inner

if TYPE_CHECKING:
    from yadk._contexts import ReadonlyContext

__all__ = ["CompiledTemplate", "compile_template"]

_MISSING: Final = object()

# (index into the parts list, name, optional, is an artifact)
_Slot = tuple[int, str, bool, bool]


class CompiledTemplate:
    """A template parsed into literal text and placeholder slots; immutable and shareable.

    Text that only looks like a placeholder (``{customer name}``, JSON, ``${x}``) is folded into
    the literal text at compile time, so rendering never looks at it again.
    """

    __slots__ = ("text", "_parts", "_slots", "_static", "_needs_artifacts")

    def __init__(self, text: str) -> None:
        self.text = text
        parts: list[str] = []
        slots: list[_Slot] = []
        literal: list[str] = []
        last = 0
        for match in PLACEHOLDER_PATTERN.finditer(text) if "{" in text else ():
            raw = match.group()
            inner = parse_inner(raw)
            literal.append(text[last : match.start()])
            last = match.end()
            if inner.kind == "literal":
                literal.append(raw)
                continue
            parts.append("".join(literal))
            literal = []
            slots.append((len(parts), inner.name, inner.optional, inner.kind == "artifact"))
            parts.append("")
        literal.append(text[last:])
        parts.append("".join(literal))
        self._parts: tuple[str, ...] = tuple(parts)
        self._slots: tuple[_Slot, ...] = tuple(slots)
        self._static = not slots
        self._needs_artifacts = any(slot[3] for slot in slots)

    def __repr__(self) -> str:
        return f"CompiledTemplate({self.text!r})"

    @property
    def is_static(self) -> bool:
        """True if rendering always returns ``text`` unchanged (it has no real placeholder)."""
        return self._static

    @property
    def needs_artifacts(self) -> bool:
        """True if the template has an ``{artifact.x}`` placeholder."""
        return self._needs_artifacts

    async def render(self, readonly_context: ReadonlyContext) -> str:
        """Fill every placeholder from the context's session state and artifacts.

        Placeholders are filled in template order, so the first one that cannot be filled is
        the one that raises.
        """
        if self._static:
            return self.text
        state = readonly_context._invocation_context.session.state
        if not self._needs_artifacts:
            return self._fill(state, readonly_context)
        parts = list(self._parts)
        for index, name, optional, is_artifact in self._slots:
            if is_artifact:
                parts[index] = await load_artifact_text(readonly_context, name, optional=optional)
            else:
                value = state.get(name, _MISSING)
                if value is _MISSING:
                    if not optional:
                        raise _missing_state(name, readonly_context)
                elif value is not None:
                    parts[index] = str(value)
        return "".join(parts)

    def _fill(self, state: Mapping[str, Any], readonly_context: ReadonlyContext) -> str:
        # The hot path: no awaits, no artifact checks.
        parts = list(self._parts)
        get = state.get
        for index, name, optional, _ in self._slots:
            value = get(name, _MISSING)
            if value is _MISSING:
                if not optional:
                    raise _missing_state(name, readonly_context)
            elif value.__class__ is str:
                parts[index] = value
            elif value is not None:
                parts[index] = str(value)
        return "".join(parts)


def _missing_state(name: str, readonly_context: ReadonlyContext) -> TemplateKeyError:
    return TemplateKeyError(
        f"Context variable not found: `{name}` in agent '{readonly_context.agent_name}'."
    )


_compiled: TextCache[CompiledTemplate] = TextCache(CompiledTemplate)


def compile_template(text: str) -> CompiledTemplate:
    """The compiled form of ``text`` for the default engine, cached per text."""
    return _compiled.get(text)
