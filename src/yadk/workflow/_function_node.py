"""FunctionNode: a plain function (sync or async, returning or yielding) as a workflow node."""

from __future__ import annotations

import inspect
from collections.abc import AsyncGenerator, Callable
from typing import TYPE_CHECKING, Any

from pydantic import PrivateAttr

from yadk.workflow._base_node import BaseNode
from yadk.workflow._errors import WorkflowConfigurationError
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

    _func: Callable[..., Any] = PrivateAttr()
    _binder: Binder = PrivateAttr()
    _kind: str = PrivateAttr()

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
        self._func = func
        self._binder = Binder(func, owner=inferred)
        target = inspect.unwrap(func)
        if inspect.isasyncgenfunction(target):
            self._kind = "agen"
        elif inspect.isgeneratorfunction(target):
            self._kind = "gen"
        elif inspect.iscoroutinefunction(target) or (
            not inspect.isroutine(target) and inspect.iscoroutinefunction(type(target).__call__)
        ):
            self._kind = "async"
        else:
            self._kind = "sync"

    @property
    def func(self) -> Callable[..., Any]:
        return self._func

    @property
    def binder(self) -> Binder:
        return self._binder

    def bind(self, ctx: NodeContext, node_input: Any) -> dict[str, Any]:
        return self._binder.bind(ctx, node_input)

    async def _run_impl(self, *, ctx: NodeContext, node_input: Any) -> AsyncGenerator[Any, None]:
        try:
            kwargs = self.bind(ctx, node_input)
        except ValueError as exc:  # pydantic's ValidationError too
            raise NodeInputError(exc) from exc
        kind = self._kind
        if kind == "sync":
            result = self._func(**kwargs)
            if inspect.isawaitable(result):  # a callable object with an async __call__
                result = await result
            yield result
        elif kind == "async":
            yield await self._func(**kwargs)
        elif kind == "gen":
            for item in self._func(**kwargs):
                yield item
        else:
            async for item in self._func(**kwargs):
                yield item
