"""Node: google-adk 2's base class for nodes written as classes."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any

from yadk.workflow._base_node import BaseNode

if TYPE_CHECKING:
    from yadk.workflow._context import NodeContext

__all__ = ["Node"]


class Node(BaseNode):
    """A node to subclass: implement ``run_node_impl`` (an async generator of outputs, events
    or ``RequestInput``s). With ``parallel_worker=True`` it runs once per item of a list input."""

    async def run_node_impl(
        self, *, ctx: NodeContext, node_input: Any
    ) -> AsyncGenerator[Any, None]:
        raise NotImplementedError("run_node_impl must be implemented.")
        yield  # pragma: no cover - makes this an async generator

    async def _run_impl(self, *, ctx: NodeContext, node_input: Any) -> AsyncGenerator[Any, None]:
        async for item in self.run_node_impl(ctx=ctx, node_input=node_input):
            yield item
