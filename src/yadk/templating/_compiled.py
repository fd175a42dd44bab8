"""Compiled templates for the default engine: parse once per text, render by filling slots.

An instruction is rendered on every model call, usually with the same text, so the regex scan and
the name checks run once per distinct text (``compile_template`` keeps a bounded cache). A
template that reads only state then renders through a generated function: one dict lookup per
placeholder and one string build, no regex, no await.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from yadk.errors import TemplateKeyError
from yadk.templating._artifacts import load_artifact_text
from yadk.templating._cache import TextCache
from yadk.templating._syntax import PLACEHOLDER_PATTERN, parse_inner

if TYPE_CHECKING:
    from yadk._contexts import ReadonlyContext

__all__ = ["CompiledTemplate", "compile_template", "compiled_templates"]

_MISSING: Final = object()

# (name, optional, is an artifact); slot k fills parts[2k + 1], between literal texts.
_Slot = tuple[str, bool, bool]


class CompiledTemplate:
    """A template parsed into literal text and placeholder slots; immutable and shareable.

    Text that only looks like a placeholder (``{customer name}``, JSON, ``${x}``) is folded into
    the literal text at compile time, so rendering never looks at it again.
    """

    __slots__ = ("_fill", "_needs_artifacts", "_parts", "_slots", "_static", "text")

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
            slots.append((inner.name, inner.optional, inner.kind == "artifact"))
            parts.append("")
        literal.append(text[last:])
        parts.append("".join(literal))
        self._parts: tuple[str, ...] = tuple(parts)
        self._slots: tuple[_Slot, ...] = tuple(slots)
        self._static = not slots
        self._needs_artifacts = any(slot[2] for slot in slots)
        # The synchronous renderer, or None when artifacts must be awaited.
        self._fill: _Filler | None = None
        if self._static:
            self._fill = _static_filler(text)
        elif not self._needs_artifacts:
            self._fill = _make_filler(self._parts[0::2], self._slots)

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
        state = readonly_context._invocation_context.session.state
        if self._fill is not None:
            return self._fill(state, readonly_context)
        parts = list(self._parts)
        index = 1
        for name, optional, is_artifact in self._slots:
            if is_artifact:
                parts[index] = await load_artifact_text(readonly_context, name, optional=optional)
            else:
                value = state.get(name, _MISSING)
                parts[index] = _state_text(value, name, optional, readonly_context)
            index += 2
        return "".join(parts)


def _missing_state(name: str, readonly_context: ReadonlyContext) -> TemplateKeyError:
    error = TemplateKeyError(
        f"Context variable not found: `{name}` in agent '{readonly_context.agent_name}'."
    )
    error.key = name
    return error


# Renders a template that has no artifact placeholder from (session state, context).
_Filler = Callable[[Mapping[str, Any], "ReadonlyContext"], str]


def _make_filler(literals: tuple[str, ...], slots: tuple[_Slot, ...]) -> _Filler:
    """Generate the render function of one template: straight-line code, one local per slot.

    This is the per-model-call hot path, and straight-line code is about twice as fast as a loop
    over the slots. Only validated state names (identifiers, optionally prefixed) reach the
    generated source, as ``repr`` literals; template text is passed in as closure values.
    """
    count = len(slots)
    lines = [
        "def make(literals, missing, convert):",
        "    " + "".join(f"l{i}, " for i in range(count + 1)) + "= literals",
        "    def fill(state, ctx):",
        "        get = state.get",
    ]
    for i, (name, optional, _) in enumerate(slots):
        lines.append(f"        v{i} = get({name!r}, missing)")
        lines.append(
            f"        if v{i}.__class__ is not str: v{i} = convert(v{i}, {name!r}, {optional}, ctx)"
        )
    pieces = "".join(f"{{l{i}}}{{v{i}}}" for i in range(count))
    lines.append(f"        return f'{pieces}{{l{count}}}'")
    lines.append("    return fill")
    namespace: dict[str, Any] = {}
    exec("\n".join(lines), namespace)
    filler: _Filler = namespace["make"](literals, _MISSING, _state_text)
    return filler


def _state_text(value: Any, name: str, optional: bool, readonly_context: ReadonlyContext) -> str:
    """The text of a state value that is not a ``str`` (or is missing)."""
    if value is _MISSING:
        if optional:
            return ""
        raise _missing_state(name, readonly_context)
    return "" if value is None else str(value)


def _static_filler(text: str) -> _Filler:
    def fill(state: Mapping[str, Any], readonly_context: ReadonlyContext) -> str:
        return text

    return fill


compiled_templates: TextCache[CompiledTemplate] = TextCache(CompiledTemplate)


def compile_template(text: str) -> CompiledTemplate:
    """The compiled form of ``text`` for the default engine, cached per text."""
    return compiled_templates.get(text)
