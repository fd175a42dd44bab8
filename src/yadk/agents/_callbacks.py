"""Running user callbacks: one or a list, sync or async, the first non-None result wins."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from yadk.errors import CallbackError

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
            return result
    return None
