"""``inject_session_state``: the one function both engines, agents, plugins and skills share."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from types import ModuleType
from typing import TypeAlias

from yadk._contexts import ReadonlyContext
from yadk.templating._compiled import compiled_templates

__all__ = ["InstructionProvider", "inject_session_state"]

InstructionProvider: TypeAlias = Callable[[ReadonlyContext], str | Awaitable[str]]
"""An instruction computed in Python; its result is used verbatim (never templated)."""

_JINJA_MISSING = (
    "Rendering an instruction with Jinja2 requires the optional jinja2 package. "
    "Install it with: pip install jinja2"
)


async def inject_session_state(
    template: str, readonly_context: ReadonlyContext, use_jinja2: bool = False
) -> str:
    """Fill ``template`` from the session state and artifacts visible to ``readonly_context``.

    Default engine: ``{name}`` (a state key; missing raises ``KeyError``), ``{name?}`` (missing
    renders ``""``), ``{app:x}``/``{user:x}``/``{temp:x}``, ``{artifact.file}`` (the artifact's
    text). Braces around anything else stay as written. ``use_jinja2=True`` renders with a
    sandboxed, strict Jinja2 instead (state keys as names, ``state[...]``, ``artifact(name)``).

    Call it from an ``InstructionProvider`` to get placeholder behaviour back: a provider's
    result is used verbatim.
    """
    if use_jinja2:
        rendered: str = await _jinja_engine().render_jinja2(template, readonly_context)
        return rendered
    if "{" not in template:
        return template
    compiled = compiled_templates.get(template)
    fill = compiled._fill
    if fill is None:
        return await compiled.render(readonly_context)
    return fill(readonly_context._invocation_context.session.state, readonly_context)


_jinja: ModuleType | None = None


def _jinja_engine() -> ModuleType:
    global _jinja
    if _jinja is None:
        try:
            from yadk.templating import _jinja as module
        except ImportError as exc:
            if (exc.name or "").split(".")[0] not in ("jinja2", "markupsafe"):
                raise
            raise ImportError(_JINJA_MISSING) from exc
        _jinja = module
    return _jinja
