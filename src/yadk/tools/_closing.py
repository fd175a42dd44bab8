"""Closing what an agent tree holds open: toolsets (MCP servers, ...) and agents with a
``close()`` of their own (a remote A2A agent's HTTP connections), also inside AgentTools."""

from __future__ import annotations

import inspect
import logging
from typing import Any

from yadk.tools._base import BaseToolset

__all__ = ["close_toolsets", "find_toolsets"]

logger = logging.getLogger("yadk.tools")


async def close_toolsets(agent: Any) -> None:
    """Close every toolset of ``agent``'s tree once, then every agent of it that has an async
    ``close()``; a failure to close one is logged, not raised, so the others still close
    (shutdown must not stop half way)."""
    for toolset in find_toolsets(agent):
        try:
            await toolset.close()
        except Exception as exc:
            logger.warning("closing %r failed: %s: %s", toolset, type(exc).__name__, exc)
    for node in _agents(agent, set()):
        close = getattr(node, "close", None)
        if not inspect.iscoroutinefunction(close):
            continue
        try:
            await close()
        except Exception as exc:
            logger.warning("closing %r failed: %s: %s", node.name, type(exc).__name__, exc)


def find_toolsets(agent: Any) -> list[BaseToolset]:
    """Every toolset of ``agent``'s tree (and of the agents its AgentTools wrap), once each."""
    return _toolsets(agent, set())


def _toolsets(agent: Any, seen: set[int]) -> list[BaseToolset]:
    found: list[BaseToolset] = []
    for node in agent.walk():
        if id(node) in seen:
            continue
        seen.add(id(node))
        for tool in getattr(node, "tools", None) or []:
            if isinstance(tool, BaseToolset) and id(tool) not in seen:
                seen.add(id(tool))
                found.append(tool)
            inner = getattr(tool, "agent", None)
            if inner is not None and hasattr(inner, "walk"):
                found.extend(_toolsets(inner, seen))
    return found


def _agents(agent: Any, seen: set[int]) -> list[Any]:
    found: list[Any] = []
    for node in agent.walk():
        if id(node) in seen:
            continue
        seen.add(id(node))
        found.append(node)
        inner_agents = [getattr(tool, "agent", None) for tool in getattr(node, "tools", None) or []]
        graph_agents = getattr(node, "graph_agents", None)  # a workflow's nodes
        if callable(graph_agents):
            inner_agents += graph_agents()
        for inner in inner_agents:
            if inner is not None and hasattr(inner, "walk"):
                found.extend(_agents(inner, seen))
    return found
