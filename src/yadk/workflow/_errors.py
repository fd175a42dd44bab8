"""The errors a workflow raises: a graph declared wrongly, a node that ran too long, and the
signal ``ctx.run_node`` stops a node with while the child it ran waits.

    WorkflowConfigurationError (AgentDefinitionError, ValueError)
    ├── GraphValidationError
    └── StateSchemaError (TypeError)
    NodeTimeoutError (RunError)
    WorkflowDataError (RunError, ValueError)
    NodeInterruptedError (BaseException)   control flow, not a failure: let it propagate
"""

from __future__ import annotations

from yadk.errors import AgentDefinitionError, RunError

__all__ = [
    "GraphValidationError",
    "NodeInterruptedError",
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


class NodeInterruptedError(BaseException):
    """Raised by ``ctx.run_node`` when the child it ran is waiting: it asked the user a question
    (the node that ran it waits too, and runs again on the answer), or, with
    ``raise_on_wait=True``, it is a workflow or ``wait_for_output`` node that ended without an
    output (the node that ran it ends there, without an output of its own).

    A ``BaseException``, as in google-adk, so that ``except Exception`` in a node does not catch
    it: a node that catches it never resumes."""

    def __init__(self, path: str | None = None) -> None:
        self.path = path
        """The waiting child's run path when it asked a question; None for ``raise_on_wait``."""
        what = "waiting for the user's answer" if path else "waiting without an output"
        super().__init__(f"{path or 'the child node'} is {what}")
