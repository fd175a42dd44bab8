"""BaseNode: a step of a workflow graph, with google-adk 2's fields; START, the entry point."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, field_validator

from yadk.workflow._retry import RetryConfig

if TYPE_CHECKING:
    from yadk.tools import BaseTool
    from yadk.workflow._context import NodeContext

__all__ = ["START", "BaseNode"]


class BaseNode(BaseModel):
    """A node of a workflow graph. Subclasses implement ``_run_impl``, an async generator that
    yields values (the node's output), ``Event``s or ``RequestInput``s.

    ``rerun_on_resume``: after the user answers the node's ``RequestInput``, run it again (with
    the answer in ``ctx.resume_inputs``) rather than take the answer as its output.
    ``wait_for_output``: a run that yields no output leaves the node waiting to be triggered
    again instead of completing. ``parallel_worker``: run once per item of a list input, at most
    ``max_parallel_workers`` at a time, the output being the list of outputs.
    ``max_concurrency`` (on a workflow) bounds how many of its nodes run at once.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    name: str
    description: str = ""
    input_schema: Any = None
    output_schema: Any = None
    state_schema: type[BaseModel] | None = None
    retry_config: RetryConfig | None = None
    timeout: float | None = None
    wait_for_output: bool = False
    rerun_on_resume: bool = False
    parallel_worker: bool = False
    max_parallel_workers: int | None = None
    max_concurrency: int | None = None

    # Nodes are compared by identity: the same object named in two edges is one node.
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    @field_validator("name")
    @classmethod
    def _identifier(cls, value: str) -> str:
        if not value.isidentifier():
            raise ValueError(f"Node name '{value}' must be a valid Python identifier.")
        return value

    @field_validator("max_parallel_workers")
    @classmethod
    def _positive(cls, value: int | None) -> int | None:
        if value is not None and value < 1:
            raise ValueError("max_parallel_workers must be greater than or equal to 1.")
        return value

    @property
    def requires_all_predecessors(self) -> bool:
        """A join: runs once every node with an edge to it has completed."""
        return False

    def as_tool(self) -> BaseTool:
        """This node as a tool an agent calls (what ``LlmAgent(tools=[node])`` does)."""
        from yadk.workflow._node_tool import NodeTool  # imports this module

        return NodeTool(self)

    async def _run_impl(self, *, ctx: NodeContext, node_input: Any) -> AsyncGenerator[Any, None]:
        raise NotImplementedError(f"_run_impl for {type(self).__name__} is not implemented.")
        yield  # pragma: no cover - makes this an async generator


START = BaseNode(name="__START__")
"""The entry point of every graph: never runs; its successors receive the user's message."""
