"""Which run path (google-adk 2's ``node_info.path``) an agent's events carry.

google-adk 2.13 runs an LlmAgent as a node of a graph: started by the runner it is
``name@1``; a transfer target hangs under its tree parent's path (``root@1/child@1``, a sibling
reached from ``child`` is ``root@1/sibling@1``), and the count goes up each time the agent starts
again under the same parent path in the invocation (``root@2`` when a child hands back). The
agents a SequentialAgent, ParallelAgent, LoopAgent or custom agent runs are not nodes: they carry
the path of the agent that runs them, which is no path at all when that agent is the runner's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from yadk._contexts import InvocationContext
    from yadk.agents._base_agent import BaseAgent

__all__ = ["node_path_for"]


def node_path_for(agent: BaseAgent, parent_context: InvocationContext) -> str:
    """The path of ``agent``'s events when it is run with ``parent_context``."""
    caller = parent_context.agent
    shared = parent_context.counter
    if caller is agent and parent_context.node_path:
        # A workflow node: the graph has given the agent its path.
        path = parent_context.node_path
    elif caller is not agent and agent.parent_agent is caller and not caller._runs_as_node:
        # Run by a workflow or custom agent: that agent's path.
        return parent_context.node_path
    elif caller is agent and not agent._runs_as_node:
        # A workflow or custom agent started by the runner is no node.
        return ""
    else:
        # Started by the runner, or reached by a transfer.
        parent = agent.parent_agent
        parent_path = "" if parent is None else _current_path(parent, shared.agent_paths)
        key = (parent_path, agent.name)
        count = shared.agent_runs[key] = shared.agent_runs.get(key, 0) + 1
        path = _join(parent_path, f"{agent.name}@{count}")
    shared.agent_paths[agent.name] = path
    return path


def _current_path(agent: BaseAgent, paths: dict[str, str]) -> str:
    """Where ``agent`` ran last in this invocation, or its first run's path if it has not run."""
    if agent.name in paths:
        return paths[agent.name]
    parent = agent.parent_agent
    parent_path = "" if parent is None else _current_path(parent, paths)
    if not agent._runs_as_node and not parent_path:
        return ""
    return _join(parent_path, f"{agent.name}@1")


def _join(parent_path: str, step: str) -> str:
    return f"{parent_path}/{step}" if parent_path else step
