"""The Jinja2 engine (``use_jinja2=True``): sandboxed, strict, compiled once per text.

Imported only when a template asks for Jinja2, so ``import yadk`` never pays for Jinja2.
Session state keys are top-level names, ``state`` is a read-only view of the whole state (for
keys such as ``user:x`` that are not names), and ``artifact(name)`` loads an artifact as text.
Autoescape is off: an instruction is prompt text, not HTML.

A template is untrusted input, so rendering is bounded:

* state is read-only at every depth: the immutable sandbox refuses ``update``/``append``/``pop``
  and every other mutating method of dicts, lists and sets, so a template can never change
  session state behind the back of its event log;
* rendering stops after ``MAX_RENDER_SECONDS`` and once the output, or any value the template
  builds, passes ``MAX_OUTPUT_CHARS``, checked inside filters, functions, methods and operators
  too (``_jinja_bounds`` says where; ``_jinja_calls`` estimates the calls that can build far
  more than they are given, before they run);
* any failure while rendering (the sandbox's ``SecurityError``, ``{% include %}``, which has no
  loader, a division by zero, runaway recursion) is a ``TemplateError`` naming the agent.

Errors stay catchable the way google-adk code catches them: an undefined name raises an error
that is both a ``jinja2.exceptions.UndefinedError`` and a ``yadk.errors.TemplateError``; a syntax
error is both a ``jinja2.TemplateSyntaxError`` and a ``yadk.errors.TemplateSyntaxError``.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from types import MappingProxyType, TracebackType
from typing import TYPE_CHECKING, Any, Final, NamedTuple

import jinja2
import jinja2.exceptions
import jinja2.meta
import jinja2.nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment

from yadk.errors import TemplateError
from yadk.errors import TemplateSyntaxError as _YadkSyntaxError
from yadk.templating import _jinja_bounds as bounds
from yadk.templating import _jinja_calls as calls
from yadk.templating._artifacts import load_artifact_text
from yadk.templating._cache import TextCache

if TYPE_CHECKING:
    from yadk._contexts import ReadonlyContext

__all__ = [
    "JinjaSecurityError",
    "JinjaTemplateSyntaxError",
    "JinjaUndefinedError",
    "compile_jinja2",
    "render_jinja2",
]


_GUARD_HINT = (
    "Every name a Jinja2 instruction uses must be in session state (undefined names are errors, "
    "even in `{% if %}`): set it before the agent runs, or guard it with "
    "`{% if name is defined %}` or `name | default('')`."
)


class JinjaTemplateSyntaxError(_YadkSyntaxError, jinja2.TemplateSyntaxError):
    """A Jinja2 instruction template does not parse; ``lineno`` is the 1-based line."""

    def __init__(self, message: str, lineno: int, source_message: str) -> None:
        jinja2.TemplateSyntaxError.__init__(self, message, lineno)
        self.source_message = source_message
        # Jinja's __str__ appends the location; the message already carries it.
        self.translated = True


class JinjaUndefinedError(TemplateError, jinja2.exceptions.UndefinedError):
    """A Jinja2 instruction used a name (or key, or attribute) that is not defined."""


class JinjaSecurityError(TemplateError, jinja2.exceptions.SecurityError):
    """A Jinja2 instruction tried what the sandbox refuses (changing state, Python internals)."""


_DICT_ATTRIBUTES: Final = frozenset(dir(dict))


class _InstructionEnvironment(calls.BoundedOperators, ImmutableSandboxedEnvironment):
    """The immutable sandbox with bounded operators (see ``_jinja_bounds``), minus two costs
    that dominate rendering an already-compiled template."""

    # Template.render joins the output with ``concat``: this one checks the size as it goes.
    concat = staticmethod(bounds.joined)

    def getattr(self, obj: Any, attribute: str) -> Any:
        # ``order.qty`` on a plain dict: the sandbox first tries the attribute and pays for an
        # AttributeError. A dict has no attribute outside dir(dict), so going to the item
        # directly is the same lookup, without the exception.
        if obj.__class__ is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        # Jinja returns a ChainMap here, and flattening it on every render costs more than the
        # render itself. Environment globals are never changed after start-up, so a flat copy is
        # equivalent.
        flat = dict(self.globals)
        if d:
            flat.update(d)
        return flat


def _environment(*, is_async: bool) -> _InstructionEnvironment:
    env = _InstructionEnvironment(
        enable_async=is_async, undefined=jinja2.StrictUndefined, autoescape=False
    )
    env.globals[bounds.ITER_NAME] = bounds.bounded_iter
    env.globals[bounds.SIZED_NAME] = bounds.sized
    env.globals["lipsum"] = calls.bounded_lipsum
    env.globals["range"] = calls.bounded_range
    calls.bound_filters(env.filters)
    return env


# Async rendering is over twice as slow as sync, and only ``artifact(...)`` needs it: templates
# that never mention ``artifact`` compile for the sync environment.
_sync_env = _environment(is_async=False)
_async_env = _environment(is_async=True)


class _Compiled(NamedTuple):
    template: jinja2.Template
    is_async: bool


def _compile(text: str) -> _Compiled:
    try:
        tree = _sync_env.parse(text)
    except jinja2.TemplateSyntaxError as exc:
        lineno = exc.lineno or 1
        lines = text.splitlines()
        where = f"line {lineno}"
        if 0 < lineno <= len(lines):
            where += f": {lines[lineno - 1].strip()!r}"
        raise JinjaTemplateSyntaxError(
            f"Invalid Jinja2 instruction template ({where}): {exc.message}",
            lineno,
            exc.message or "",
        ) from None
    is_async = "artifact" in jinja2.meta.find_undeclared_variables(tree)
    env = _async_env if is_async else _sync_env
    # Compiling folds constant expressions, calling filters: they run within the same bounds.
    token = bounds.budget.set(bounds.Budget())
    try:
        return _Compiled(env.from_string(bounds.bound_tree(tree)), is_async)
    finally:
        bounds.budget.reset(token)


_compiled: TextCache[_Compiled] = TextCache(_compile)


def compile_jinja2(text: str) -> jinja2.Template:
    """The compiled Jinja2 template for ``text``, cached per text."""
    return _compiled.get(text).template


async def render_jinja2(template: str, readonly_context: ReadonlyContext) -> str:
    """Render ``template`` with Jinja2 over the context's session state and artifacts."""
    compiled = _compiled.get(template)
    state = readonly_context._invocation_context.session.state
    variables: dict[str, Any] = dict(state)
    variables["state"] = MappingProxyType(state)
    token = bounds.budget.set(bounds.Budget())
    try:
        if not compiled.is_async:
            # The template never names ``artifact``, so leaving the loader out is invisible.
            return compiled.template.render(variables)

        async def artifact(name: str) -> str:
            return await load_artifact_text(readonly_context, name)

        variables["artifact"] = artifact
        return await compiled.template.render_async(variables)
    except jinja2.exceptions.UndefinedError as exc:
        if isinstance(exc, JinjaUndefinedError):
            raise
        line = _template_line(exc.__traceback__)
        where = f" (line {line})" if line else ""
        raise JinjaUndefinedError(
            f"{exc.message or 'undefined'}{where} in the instruction of agent "
            f"'{readonly_context.agent_name}'. {_GUARD_HINT}"
        ) from None
    except bounds.RenderLimit as exc:
        raise TemplateError(
            f"Rendering the Jinja2 instruction of agent '{readonly_context.agent_name}' stopped:"
            f" {exc}. Instructions are bounded to {bounds.MAX_RENDER_SECONDS:g} s and"
            f" {bounds.MAX_OUTPUT_CHARS:,} characters. {bounds.FIX}."
        ) from None
    except TemplateError:
        raise
    except jinja2.exceptions.SecurityError as exc:
        line = _template_line(exc.__traceback__)
        where = f" (line {line})" if line else ""
        raise JinjaSecurityError(
            f"{exc}{where} in the instruction of agent '{readonly_context.agent_name}':"
            " templates may read state, never change it or reach Python internals."
        ) from None
    except (Exception, RecursionError) as exc:
        line = _template_line(exc.__traceback__)
        where = f" (line {line})" if line else ""
        raise TemplateError(
            f"Rendering the Jinja2 instruction of agent '{readonly_context.agent_name}'"
            f" failed{where}: {_describe(exc)}"
        ) from None
    finally:
        bounds.budget.reset(token)


def _describe(exc: BaseException) -> str:
    if isinstance(exc, TypeError) and "no loader" in str(exc):
        return "{% include %}, {% import %} and {% extends %} are not available in instructions."
    if isinstance(exc, RecursionError):
        return "it recursed too deeply."
    return f"{type(exc).__name__}: {exc}."


def _template_line(tb: TracebackType | None) -> int | None:
    """The template line an error was raised on: Jinja rewrites tracebacks so that template
    frames carry the template's file name (``<template>`` for a string) and line."""
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<template>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return line
