"""FunctionNode: a plain function (sync or async, returning or yielding) as a workflow node."""

from __future__ import annotations

import functools
import inspect
from collections.abc import AsyncGenerator, Callable
from typing import TYPE_CHECKING, Any, Literal

from pydantic import PrivateAttr

from yadk.workflow._base_node import BaseNode
from yadk.workflow._errors import WorkflowConfigurationError, WorkflowDataError
from yadk.workflow._params import Binder
from yadk.workflow._schemas import inferred_schemas

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

    require_confirmation: bool | Callable[..., Any] = False
    """Ask the user to approve the call before it runs (a callable decides per call from the
    node's arguments); a rejected call's output is ``{"error": "This tool call is rejected."}``.
    Needs ``rerun_on_resume`` (``@node`` sets it)."""
    parameter_binding: Literal["state", "node_input"] = "state"
    """Where parameters other than ``node_input`` and ``ctx`` come from: the state, or the
    keys of a dict input (a node called with arguments)."""
    auth_config: Any = None
    """google-adk's credential request before a node runs; yadk refuses it (see
    docs/workflows.md) rather than run the node without the credential."""

    # (function, binder, kind) in one attribute: pydantic private attributes are slow to read,
    # and a run reads them once.
    _plan: tuple[Callable[..., Any], Binder, str] = PrivateAttr()

    def __init__(self, *, func: Callable[..., Any], name: str | None = None, **fields: Any):
        if not callable(func):
            raise WorkflowConfigurationError("Function must be callable.")
        if fields.get("require_confirmation") and not fields.get("rerun_on_resume"):
            raise WorkflowConfigurationError(
                "FunctionNode with require_confirmation requires rerun_on_resume=True. The node"
                " must rerun after confirmation is provided."
            )
        inferred = name or getattr(func, "__name__", None)
        if not inferred:
            raise WorkflowConfigurationError(
                "FunctionNode must have a name. If the wrapped callable does not have a"
                " '__name__' attribute, please provide a name explicitly."
            )
        if fields.get("auth_config") is not None:
            raise WorkflowConfigurationError(
                f"Node '{inferred}' has an auth_config: yadk workflows do not run google-adk's"
                " credential request before a node (adk_request_credential). Remove"
                " auth_config and read the credential inside the node (from state, a secret"
                " or an environment variable), or ask for it with RequestInput."
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
        binder = Binder(func, owner=inferred, binding=self.parameter_binding)
        self._plan = (func, binder, kind)
        if self.parameter_binding == "state":
            # google-adk's inference: a pydantic model annotating node_input, or returned.
            input_schema, output_schema = inferred_schemas(
                binder.input_annotation, binder.return_hint
            )
            if self.input_schema is None:
                self.input_schema = input_schema
            if self.output_schema is None:
                self.output_schema = output_schema

    @property
    def func(self) -> Callable[..., Any]:
        return self._plan[0]

    @property
    def binder(self) -> Binder:
        return self._plan[1]

    def bind(self, ctx: NodeContext, node_input: Any) -> dict[str, Any]:
        return self._plan[1].bind(ctx, node_input)

    def bind_checked(self, ctx: NodeContext, node_input: Any) -> dict[str, Any]:
        """``bind``, an input that does not fit raised as ``NodeInputError``."""
        return _kwargs(self._plan[1], ctx, node_input)

    @functools.cached_property
    def run_plan(self) -> tuple[Callable[..., Any], Binder, str]:
        """(function, binder, kind), kept in the instance's own dict once read: a pydantic
        private attribute is read through ``__getattr__``, which costs a run microseconds."""
        return self._plan

    @property
    def yields(self) -> bool:
        """Whether the function is a generator (it yields several things)."""
        return self.run_plan[2] in ("gen", "agen")

    async def call(self, ctx: NodeContext, node_input: Any) -> Any:
        """What a function that returns (not yields) returns."""
        func, binder, kind = self.run_plan
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
