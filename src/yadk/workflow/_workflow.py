"""Workflow: a graph of nodes (functions, agents, tools, other workflows) joined by edges, and an
agent in its own right (a Runner runs it; it can be a node of another workflow)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any

from pydantic import BaseModel, Field, PrivateAttr

from yadk._contexts import InvocationContext
from yadk.agents import BaseAgent, Sink
from yadk.events import Event
from yadk.tools import BaseTool
from yadk.workflow._adapters import AgentNode, ParallelWorker, ToolNode, WorkflowNode
from yadk.workflow._errors import WorkflowDataError
from yadk.workflow._graph import Graph, parse_edges
from yadk.workflow._resume import completed_runs, find_resume
from yadk.workflow._retry import RetryConfig
from yadk.workflow._runtime import NodeFailed, Runtime, error_event
from yadk.workflow._schemas import check_state_params

__all__ = ["Workflow"]


class Workflow(BaseAgent):
    """A graph workflow (google-adk 2's ``Workflow``).

    ``edges`` lists edge items: chains ``(START, a, b)``, with fan-out tuples ``(a, (b, c), j)``
    and routing maps ``{"route": node, DEFAULT_ROUTE: other}`` inside, ``Edge`` objects and
    ``{"from_node", "to_node", "route"}`` mappings. A node is a function, an agent, a tool, a
    ``BaseNode`` or another workflow; one object named in several edges is one node. Each node
    receives its predecessor's output as ``node_input``; the workflow's output is the output of
    its terminal node (the one without outgoing edges that produced one).

    Its events come from the workflow (function nodes) or the agent that wrote them, each with
    its run path in ``node_info.path`` (``flow@1/writer@2``).

    ``retry_sleep`` replaces ``asyncio.sleep`` for retry back-off (tests pass a fake).
    """

    edges: list[Any] = Field(default_factory=list)
    graph: Graph | None = Field(default=None, exclude=True)
    max_concurrency: int | None = None
    input_schema: Any = None
    output_schema: Any = None
    state_schema: type[BaseModel] | None = None
    retry_config: RetryConfig | None = None
    timeout: float | None = None
    wait_for_output: bool = False
    rerun_on_resume: bool = True
    retry_sleep: Callable[[float], Awaitable[None]] | None = Field(default=None, exclude=True)

    _checked: bool = PrivateAttr(default=False)

    def __init__(self, **data: Any) -> None:
        # The graph is built first, so a graph error is raised as itself (with google-adk's
        # message), not folded into the agent's field errors.
        if data.get("edges") and data.get("graph") is None:
            data["graph"] = Graph(parse_edges(data["edges"]))
        if isinstance(data.get("state_schema"), type) and data.get("graph") is not None:
            check_state_params(data["state_schema"], data["graph"].nodes)
        super().__init__(**data)

    def model_post_init(self, __context: Any) -> None:
        super().model_post_init(__context)
        if self.edges and self.graph is None:
            self.graph = Graph(parse_edges(self.edges))

    def as_tool(self) -> BaseTool:
        """This workflow as a tool an agent calls (what ``LlmAgent(tools=[workflow])`` does):
        its arguments are its ``input_schema``, or its entry nodes' inputs."""
        from yadk.workflow._node_tool import NodeTool  # imports this module

        return NodeTool(self)

    def graph_agents(self) -> list[BaseAgent]:
        """The agents that are nodes of this graph (an ``AgentTool``'s agent, a nested
        workflow, a parallel worker's agent included), in graph order."""
        found: list[BaseAgent] = []
        for node in self.graph.nodes if self.graph is not None else []:
            while isinstance(node, ParallelWorker):
                node = node.node
            if isinstance(node, AgentNode):
                found.append(node.agent)
            elif isinstance(node, WorkflowNode):
                found.append(node.workflow)
            elif isinstance(node, ToolNode) and isinstance(
                getattr(node.tool, "agent", None), BaseAgent
            ):
                found.append(node.tool.agent)
        return found

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        if self.graph is None:
            return
        path = f"{self.name}@1"
        try:
            resume = find_resume(ctx.session, root_path=path, message=ctx.user_content)
        except WorkflowDataError as exc:  # an answer that does not fit its question's schema
            ctx.counter.failed = True
            ctx.counter.failure = ctx.counter.failure or exc
            yield error_event(ctx, exc, path=path, author=self.name)
            return
        sink = Sink()
        runtime = Runtime(
            sink=sink,
            sleep=self.retry_sleep or asyncio.sleep,
            resume=resume,
            done=completed_runs(ctx.session, root_path=path, invocation_id=ctx.invocation_id)
            if resume
            else None,
        )

        graph = runtime.run_graph(
            self,
            ic=ctx,
            path=path,
            node_input=ctx.user_content if resume is None else None,
            output_for=[path],
        )
        try:
            async for event in sink.drive(graph):
                yield event
        except NodeFailed as failed:
            # One error event ends the invocation, naming the node that failed.
            ctx.counter.failed = True
            ctx.counter.failure = ctx.counter.failure or failed.error
            yield error_event(
                ctx,
                failed.error,
                path=failed.path,
                author=failed.author,
                actions=failed.actions,
                isolation_scope=failed.isolation_scope,
            )
            if ctx.run_config.raise_errors:
                raise failed.error from None
