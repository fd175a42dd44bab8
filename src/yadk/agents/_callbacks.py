"""Running user callbacks: one or a list, sync or async, the first non-None result wins.

A model callback's result of the wrong type (a ``before_model_callback`` returning a string) is a
``CallbackError`` naming the callback, where it is defined, what it returned and what was expected,
instead of a validation traceback later. Tool callbacks may return any value: as in google-adk, a
result that is not a dict reaches the model as ``{"result": value}``.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from yadk.errors import CallbackError
from yadk.models import LlmResponse
from yadk.types import Content

__all__ = ["as_callback_list", "callable_name", "run_callbacks"]


def as_callback_list(value: Any) -> list[Callable[..., Any]]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def callable_name(fn: Any) -> str:
    module = getattr(fn, "__module__", None)
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    return f"{module}.{name}" if module and module != "builtins" else str(name)


async def run_callbacks(kind: str, callbacks: Any, **kwargs: Any) -> Any:
    """Call each callback with ADK's keyword names; return the first non-None result.

    A callback that raises becomes a ``CallbackError`` naming the callback kind and function,
    with the original exception as ``__cause__``.
    """
    for callback in as_callback_list(callbacks):
        try:
            result = callback(**kwargs)
            if inspect.isawaitable(result):
                result = await result
        except CallbackError:
            raise
        except Exception as exc:
            raise CallbackError(
                f"{kind} {callable_name(callback)!r} raised {type(exc).__name__}: {exc}",
                callback=callback,
            ) from exc
        if result is not None:
            _check_result(kind, callback, result)
            return result
    return None


# kind -> (what a non-None result must be, how messages say it)
_RESULTS = {
    "before_model_callback": ("response", "an LlmResponse (or a dict of its fields)"),
    "after_model_callback": ("response", "an LlmResponse (or a dict of its fields)"),
}


def _check_result(kind: str, callback: Any, result: Any) -> None:
    expected = _RESULTS.get(kind)
    if expected is None or _accepted(expected[0], result):
        return
    shown = repr(result)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    raise CallbackError(
        f"{kind} {callable_name(callback)!r}{_defined_at(callback)} returned"
        f" {type(result).__name__} {shown}; expected {expected[1]}, or None to go on.",
        callback=callback,
    )


def _accepted(kind: str, result: Any) -> bool:
    if isinstance(result, (LlmResponse, Content)):
        return True
    if not isinstance(result, dict):
        return False
    try:
        LlmResponse.model_validate(result)
    except ValidationError:
        return False
    return True


def _defined_at(fn: Any) -> str:
    """`` (callbacks.py:12)``: where ``fn`` is defined, relative to the working directory when
    inside it; empty when unknown."""
    code = getattr(inspect.unwrap(fn), "__code__", None)
    if code is None:
        return ""
    path = code.co_filename
    try:
        relative = os.path.relpath(path)
        if not relative.startswith(".."):
            path = relative
    except ValueError:  # another drive (Windows)
        pass
    return f" ({path}:{code.co_firstlineno})"
