"""JoinNode: waits for every node with an edge to it, then outputs their outputs by name."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any

from yadk.workflow._base_node import BaseNode

__all__ = ["JoinNode"]

if TYPE_CHECKING:
    from yadk.workflow._context import NodeContext


class JoinNode(BaseNode):
    """Runs once all its predecessors have completed since it last ran; its input and output
    are a dict of their outputs keyed by node name."""

    @property
    def requires_all_predecessors(self) -> bool:
        return True

    async def _run_impl(self, *, ctx: NodeContext, node_input: Any) -> AsyncGenerator[Any, None]:
        yield node_input
