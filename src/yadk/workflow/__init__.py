"""Graph workflows (google-adk 2's ``google.adk.workflow``): nodes joined by edges, routes,
joins, loops, retries, timeouts and human input."""

from __future__ import annotations

from typing import TYPE_CHECKING

from yadk._lazy import lazy_facade
from yadk.workflow._base_node import START, BaseNode
from yadk.workflow._build import node
from yadk.workflow._context import NodeContext
from yadk.workflow._errors import (
    GraphValidationError,
    NodeInterruptedError,
    NodeTimeoutError,
    StateSchemaError,
    WorkflowConfigurationError,
)
from yadk.workflow._function_node import FunctionNode
from yadk.workflow._graph import DEFAULT_ROUTE, Edge
from yadk.workflow._join_node import JoinNode
from yadk.workflow._node import Node
from yadk.workflow._node_tool import NodeTool
from yadk.workflow._request_input import RequestInput
from yadk.workflow._retry import RetryConfig
from yadk.workflow._workflow import Workflow

# Plainly sorted, as every facade of yadk is (tests/test_public_api.py).
__all__ = [  # noqa: RUF022
    "BaseNode",
    "DEFAULT_ROUTE",
    "Edge",
    "FunctionNode",
    "GraphValidationError",
    "JoinNode",
    "Node",
    "NodeContext",
    "NodeInterruptedError",
    "NodeTimeoutError",
    "NodeTool",
    "RequestInput",
    "RetryConfig",
    "START",
    "StateSchemaError",
    "Workflow",
    "WorkflowConfigurationError",
    "node",
]

# For yadk's own packages; not part of the public contract (``__all__``). Imported here
# when their module loads with the names above anyway, else loaded on first use (table below).
from yadk.workflow._build import build_node as build_node

if TYPE_CHECKING:
    from yadk.workflow._analysis import analyse_graph as analyse_graph
    from yadk.workflow._render import graph_data as graph_data
    from yadk.workflow._render import graph_mermaid as graph_mermaid
    from yadk.workflow._render import graph_text as graph_text

__getattr__, __dir__ = lazy_facade(
    globals(),
    {
        # for yadk's own packages; not part of the public contract
        "analyse_graph": "yadk.workflow._analysis",
        "graph_data": "yadk.workflow._render",
        "graph_mermaid": "yadk.workflow._render",
        "graph_text": "yadk.workflow._render",
    },
)
