"""FunctionNode: a plain function (sync or async, returning or yielding) as a workflow node."""

from __future__ import annotations

import inspect
from collections.abc import AsyncGenerator, Callable
from typing import TYPE_CHECKING, Any

from pydantic import PrivateAttr

from yadk.workflow._base_node import BaseNode
from yadk.workflow._errors import WorkflowConfigurationError, WorkflowDataError
from yadk.workflow._params import Binder

if TYPE_CHECKING:
    from yadk.workflow._context import NodeContext

__all__ = ["FunctionNode", "NodeInputError"]


class NodeInputError(Exception):
    """A node's input does not fit its parameters: the workflow that fed it is at fault, so the
    error event names the workflow's path (as google-adk's does)."""

    def __init__(self, error: Exception) -> None:
        self.error = error
        super().__init__(str(error))


class FunctionNode(BaseNode):
    """Runs ``func``: ``node_input`` receives the previous node's output, ``ctx`` (or a parameter
    annotated ``Context``) the node's context, and every other parameter the state value of the
    same name (or its default). What it returns, or each thing it yields, is an output, an
    ``Event`` or a ``RequestInput``."""

    # (function, binder, kind) in one attribute: pydantic private attributes are slow to read,
    # and a run reads them once.
    _plan: tuple[Callable[..., Any], Binder, str] = PrivateAttr()

    def __init__(self, *, func: Callable[..., Any], name: str | None = None, **fields: Any):
        if not callable(func):
            raise WorkflowConfigurationError("Function must be callable.")
        inferred = name or getattr(func, "__name__", None)
        if not inferred:
            raise WorkflowConfigurationError(
                "FunctionNode must have a name. If the wrapped callable does not have a"
                " '__name__' attribute, please provide a name explicitly."
            )
        if "description" not in fields:
            fields["description"] = inspect.getdoc(func) or ""
        super().__init__(name=inferred, **fields)
        target = inspect.unwrap(func)
        if inspect.isasyncgenfunction(target):
            kind = "agen"
        elif inspect.isgeneratorfunction(target):
            kind = "gen"
        elif inspect.iscoroutinefunction(target) or (
            not inspect.isroutine(target) and inspect.iscoroutinefunction(type(target).__call__)
        ):
            kind = "async"
        else:
            kind = "sync"
        self._plan = (func, Binder(func, owner=inferred), kind)

    @property
    def func(self) -> Callable[..., Any]:
        return self._plan[0]

    @property
    def binder(self) -> Binder:
        return self._plan[1]

    def bind(self, ctx: NodeContext, node_input: Any) -> dict[str, Any]:
        return self._plan[1].bind(ctx, node_input)

    @property
    def yields(self) -> bool:
        """Whether the function is a generator (it yields several things)."""
        return self._plan[2] in ("gen", "agen")

    async def call(self, ctx: NodeContext, node_input: Any) -> Any:
        """What a function that returns (not yields) returns."""
        func, binder, kind = self._plan
        result = func(**_kwargs(binder, ctx, node_input))
        if kind == "async" or inspect.isawaitable(result):  # an async __call__ too
            result = await result
        return result

    async def _run_impl(self, *, ctx: NodeContext, node_input: Any) -> AsyncGenerator[Any, None]:
        func, binder, kind = self._plan
        if kind in ("sync", "async"):
            yield await self.call(ctx, node_input)
            return
        kwargs = _kwargs(binder, ctx, node_input)
        if kind == "gen":
            for item in func(**kwargs):
                yield item
        else:
            async for item in func(**kwargs):
                yield item


def _kwargs(binder: Binder, ctx: NodeContext, node_input: Any) -> dict[str, Any]:
    try:
        return binder.bind(ctx, node_input)
    except WorkflowDataError:
        raise  # the node's own parameters: its error, at its path
    except ValueError as exc:  # the input does not fit (pydantic's ValidationError)
        raise NodeInputError(exc) from exc
