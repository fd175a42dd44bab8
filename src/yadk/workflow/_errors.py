"""The errors a workflow raises: a graph declared wrongly, and a node that ran too long."""

from __future__ import annotations

from yadk.errors import AgentDefinitionError, RunError

__all__ = [
    "GraphValidationError",
    "NodeTimeoutError",
    "StateSchemaError",
    "WorkflowConfigurationError",
    "WorkflowDataError",
]


class WorkflowConfigurationError(AgentDefinitionError):
    """A workflow, node or edge is declared in a way that cannot run (a ``ValueError``)."""


class GraphValidationError(WorkflowConfigurationError):
    """A workflow's graph is not well formed (unreachable nodes, duplicate names, ...)."""


class StateSchemaError(WorkflowConfigurationError, TypeError):
    """State written, or a state parameter declared, outside a workflow's ``state_schema``
    (google-adk's ``StateSchemaError``, a ``TypeError``)."""


class NodeTimeoutError(RunError):
    """A node ran longer than its ``timeout``; retried like any failure when it has a
    ``retry_config``."""

    def __init__(self, *, node_name: str, timeout: float) -> None:
        self.node_name = node_name
        self.timeout = timeout
        super().__init__(f"Node '{node_name}' timed out after {timeout} seconds.")


class WorkflowDataError(RunError, ValueError):
    """Data arriving while a workflow runs does not fit what takes it (a state value a node's
    parameter needs is missing): this run's data is wrong, not the graph."""
