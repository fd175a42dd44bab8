"""Turning what an edge names (a node, function, agent, tool, workflow or "START") into a node,
and the ``node`` decorator."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from yadk.agents import BaseAgent, LlmAgent
from yadk.tools import BaseTool
from yadk.workflow._adapters import AgentNode, ParallelWorker, ToolNode, WorkflowNode
from yadk.workflow._base_node import START, BaseNode
from yadk.workflow._errors import WorkflowConfigurationError
from yadk.workflow._function_node import FunctionNode
from yadk.workflow._retry import RetryConfig

__all__ = ["build_node", "is_node_like", "node"]

# Fields a workflow shares with the node that runs it inside another workflow.
_WORKFLOW_NODE_FIELDS = (
    "description",
    "input_schema",
    "output_schema",
    "state_schema",
    "retry_config",
    "timeout",
    "wait_for_output",
    "rerun_on_resume",
    "max_concurrency",
)


# Fields only a function node has.
_FUNCTION_FIELDS = ("require_confirmation", "auth_config", "parameter_binding")


def is_node_like(value: Any) -> bool:
    return value == "START" or isinstance(value, (BaseNode, BaseAgent, BaseTool)) or callable(value)


def build_node(value: Any, **overrides: Any) -> BaseNode:
    """The node for ``value``; ``overrides`` set node fields (name, retry_config, ...)."""
    from yadk.workflow._workflow import Workflow  # imports this module, through _graph

    overrides = {k: v for k, v in overrides.items() if v is not None}
    built: BaseNode
    if isinstance(value, str) and value == "START":
        return START
    function_fields = {f: overrides[f] for f in _FUNCTION_FIELDS if f in overrides}
    if overrides.get("require_confirmation") and "rerun_on_resume" not in overrides:
        overrides["rerun_on_resume"] = True  # the node runs again once confirmed
    if (
        isinstance(value, FunctionNode)
        and overrides
        and (function_fields or value.require_confirmation)
    ):
        # Built again, so FunctionNode's checks see the new fields.
        fields = {f: getattr(value, f) for f in type(value).model_fields}
        fields.update(overrides)
        built = FunctionNode(func=value.func, **fields)
    elif function_fields and (
        any(function_fields.values()) and isinstance(value, (BaseNode, BaseAgent, BaseTool))
    ):
        field = "auth_config" if "auth_config" in function_fields else "require_confirmation"
        raise WorkflowConfigurationError(
            f"{field} is only supported on FunctionNode, got {type(value).__name__}."
        )
    elif isinstance(value, BaseNode):
        built = value.model_copy(update=overrides) if overrides else value
    elif isinstance(value, Workflow):
        fields = {f: getattr(value, f) for f in _WORKFLOW_NODE_FIELDS}
        fields.update(overrides)
        built = WorkflowNode(name=fields.pop("name", value.name), workflow=value, **fields)
    elif isinstance(value, BaseAgent):
        if isinstance(value, LlmAgent) and value.node_mode == "chat":
            # A chat agent's node waits for the user; it completes only with an output.
            overrides["wait_for_output"] = True
        built = AgentNode(
            name=overrides.pop("name", value.name),
            description=value.description,
            agent=value,
            **overrides,
        )
    elif isinstance(value, BaseTool):
        built = ToolNode(
            name=overrides.pop("name", value.name),
            description=value.description,
            tool=value,
            **overrides,
        )
    elif callable(value):
        built = FunctionNode(func=value, **overrides)
    else:
        raise WorkflowConfigurationError(
            f"Invalid node: {value!r} (type {type(value).__name__}). A node is a BaseNode,"
            " an agent, a tool, a callable or 'START'."
        )
    if built.parallel_worker and not isinstance(built, ParallelWorker):
        inner = built.model_copy(update={"parallel_worker": False, "max_parallel_workers": None})
        built = ParallelWorker(
            name=built.name,
            description=built.description,
            node=inner,
            parallel_worker=True,
            max_parallel_workers=built.max_parallel_workers,
            rerun_on_resume=built.rerun_on_resume,
        )
    return built


def node(
    node_like: Any = None,
    *,
    name: str | None = None,
    rerun_on_resume: bool | None = None,
    retry_config: RetryConfig | None = None,
    timeout: float | None = None,
    parallel_worker: bool = False,
    max_parallel_workers: int | None = None,
    auth_config: Any = None,
    require_confirmation: bool | Callable[..., Any] | None = None,
    parameter_binding: Literal["state", "node_input"] = "state",
) -> Any:
    """Make a node of a function (``@node``, ``@node(...)``) or of any node-like value
    (``node(fn, name="other")``), setting the given fields. ``require_confirmation`` (a bool
    or a predicate over the node's arguments) asks the user before each run and turns
    ``rerun_on_resume`` on unless it is given; ``auth_config`` is refused."""
    if max_parallel_workers is not None:
        if not parallel_worker:
            raise WorkflowConfigurationError(
                "max_parallel_workers can only be set when parallel_worker is True."
            )
        if max_parallel_workers < 1:
            raise WorkflowConfigurationError(
                "max_parallel_workers must be greater than or equal to 1."
            )
    overrides: dict[str, Any] = {
        "name": name,
        "rerun_on_resume": rerun_on_resume,
        "retry_config": retry_config,
        "timeout": timeout,
        "parallel_worker": parallel_worker or None,
        "max_parallel_workers": max_parallel_workers,
        "auth_config": auth_config,
        "require_confirmation": require_confirmation,
        "parameter_binding": None if parameter_binding == "state" else parameter_binding,
    }
    if node_like is None:

        def decorate(func: Callable[..., Any]) -> BaseNode:
            return build_node(func, **overrides)

        return decorate
    return build_node(node_like, **overrides)
