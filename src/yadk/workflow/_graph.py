"""Edges and the graph they make: every edge form google-adk 2 accepts, parsed into one list
of ``Edge``s between nodes, and the checks a graph must pass before it runs."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

from yadk.agents import LlmAgent
from yadk.workflow._adapters import AgentNode
from yadk.workflow._base_node import START, BaseNode
from yadk.workflow._build import build_node, is_node_like
from yadk.workflow._errors import GraphValidationError, WorkflowConfigurationError

__all__ = ["DEFAULT_ROUTE", "Edge", "Graph", "RouteValue", "parse_edges"]

RouteValue = bool | int | str

DEFAULT_ROUTE = "__DEFAULT__"
"""The route of an edge followed when no other route of its node matched."""


class Edge(BaseModel):
    """An edge ``from_node -> to_node``, followed when ``route`` is unset or the node's route
    matches it (one value or any of a list)."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    from_node: Any
    to_node: Any
    route: RouteValue | list[RouteValue] | None = None

    @model_validator(mode="after")
    def _nodes(self) -> Edge:
        for end in (self.from_node, self.to_node):
            if not is_node_like(end):
                raise ValueError(
                    f"Invalid node in edge: {end!r}. A node is a BaseNode, an agent, a tool, a"
                    " callable or 'START'."
                )
        return self

    def routes(self) -> frozenset[Any] | None:
        if self.route is None:
            return None
        return frozenset(self.route) if isinstance(self.route, list) else frozenset([self.route])


class _Nodes:
    """Node-like values built into nodes once each: one object named twice is one node."""

    def __init__(self) -> None:
        self._built: dict[int, BaseNode] = {}
        self._keep: list[Any] = []  # keeps ids stable while parsing

    def get(self, value: Any) -> BaseNode:
        if (isinstance(value, str) and value == "START") or value is START:
            return START
        key = id(value)
        found = self._built.get(key)
        if found is None:
            found = build_node(value)
            self._built[key] = found
            self._keep.append(value)
        return found


def _flatten(element: Any) -> list[Any]:
    if isinstance(element, dict):
        out: list[Any] = []
        for target in element.values():
            out.extend(_flatten(target))
        return out
    if isinstance(element, (tuple, list)):
        return list(element)
    return [element]


def _check_routing_map(routing: dict[Any, Any]) -> None:
    if not routing:
        raise WorkflowConfigurationError(
            "Routing map must not be empty. Provide at least one route -> node mapping."
        )
    for key, target in routing.items():
        if not isinstance(key, (bool, int, str)):
            raise WorkflowConfigurationError(
                f"Invalid routing map key: {key!r} (type {type(key).__name__}). Keys must be"
                " RouteValue (str, int, or bool)."
            )
        for item in target if isinstance(target, (tuple, list)) else [target]:
            if not is_node_like(item):
                raise WorkflowConfigurationError(
                    f"Invalid routing map value for route {key!r}: {item!r} (type"
                    f" {type(item).__name__}). Values must be NodeLike (BaseNode, BaseAgent,"
                    " BaseTool, callable, or 'START')."
                )


def _chain_edges(chain: list[Any] | tuple[Any, ...], nodes: _Nodes) -> list[Edge]:
    edges: list[Edge] = []
    for source, target in itertools.pairwise(chain):
        if isinstance(target, dict):
            if isinstance(source, dict):
                raise WorkflowConfigurationError(
                    "Consecutive routing maps are not allowed in a chain. Split them into"
                    " separate edge items."
                )
            _check_routing_map(target)
            for route, to in target.items():
                for a in _flatten(source):
                    for b in _flatten(to):
                        edges.append(
                            Edge(from_node=nodes.get(a), to_node=nodes.get(b), route=route)
                        )
        else:
            for a in _flatten(source):
                for b in _flatten(target):
                    edges.append(Edge(from_node=nodes.get(a), to_node=nodes.get(b)))
    return edges


def parse_edges(items: Iterable[Any]) -> list[Edge]:
    """Every edge item (an ``Edge``, a ``{from_node, to_node, route}`` mapping, or a chain
    tuple/list whose elements are nodes, fan-out tuples/lists and routing maps) as edges between
    built nodes."""
    nodes = _Nodes()
    edges: list[Edge] = []
    for item in items:
        if isinstance(item, Edge):
            edges.append(
                Edge(
                    from_node=nodes.get(item.from_node),
                    to_node=nodes.get(item.to_node),
                    route=item.route,
                )
            )
        elif isinstance(item, dict) and "from_node" in item:
            edge = Edge.model_validate(item)
            edges.append(
                Edge(
                    from_node=nodes.get(edge.from_node),
                    to_node=nodes.get(edge.to_node),
                    route=edge.route,
                )
            )
        elif isinstance(item, (tuple, list)):
            edges.extend(_chain_edges(item, nodes))
        else:
            raise WorkflowConfigurationError(f"Invalid edge type: {type(item)}")
    return edges


class Graph:
    """Nodes (in order of first mention) and edges, checked; what the scheduler walks."""

    def __init__(self, edges: list[Edge]) -> None:
        self.edges = edges
        seen: dict[int, BaseNode] = {}
        for edge in edges:
            for end in (edge.from_node, edge.to_node):
                seen.setdefault(id(end), end)
        self.nodes: list[BaseNode] = list(seen.values())
        validate_graph(self.nodes, edges)
        self.by_name: dict[str, BaseNode] = {n.name: n for n in self.nodes}
        self.outgoing: dict[str, list[Edge]] = {n.name: [] for n in self.nodes}
        self.predecessors: dict[str, list[str]] = {n.name: [] for n in self.nodes}
        for edge in edges:
            self.outgoing[edge.from_node.name].append(edge)
            preds = self.predecessors[edge.to_node.name]
            if edge.from_node.name not in preds:
                preds.append(edge.from_node.name)
        self.terminal: frozenset[str] = frozenset(
            n.name for n in self.nodes if n is not START and not self.outgoing[n.name]
        )

    def next_nodes(self, name: str, route: Any) -> list[str]:
        """The nodes a completed node triggers: unrouted edges always, routed edges whose
        route matches, and DEFAULT_ROUTE edges when no routed edge matched."""
        targets: list[str] = []
        defaults: list[str] = []
        matched = False
        wanted = set(route) if isinstance(route, list) else {route}
        for edge in self.outgoing[name]:
            if edge.route is None:
                targets.append(edge.to_node.name)
            elif edge.route == DEFAULT_ROUTE:
                defaults.append(edge.to_node.name)
            elif route is not None and not wanted.isdisjoint(edge.routes() or ()):
                targets.append(edge.to_node.name)
                matched = True
        if not matched:
            targets.extend(defaults)
        return targets


def validate_graph(nodes: list[BaseNode], edges: list[Edge]) -> None:
    """google-adk 2's graph checks, with its messages."""
    counts = Counter(n.name for n in nodes)
    duplicates = sorted(name for name, count in counts.items() if count > 1)
    if duplicates:
        raise GraphValidationError(
            f"Graph validation failed. Duplicate node names found: {duplicates}. This means"
            " multiple distinct node objects have the same name. If you intended to reuse the"
            " same node, ensure you pass the exact same object instance. If you intended to"
            " have distinct nodes, ensure they have unique names."
        )
    names = set(counts)
    if START.name not in names:
        raise GraphValidationError(
            f"Graph validation failed. START node (name: '{START.name}') not found in graph nodes."
        )
    for edge in edges:
        if edge.from_node is START and edge.route is not None:
            raise GraphValidationError(
                "Graph validation failed. Edges from START must not have routes (edge to"
                f" {edge.to_node.name} has route {edge.route})."
            )
    reachable = reachable_from_start(edges)
    unreachable = names - reachable
    if unreachable:
        raise GraphValidationError(
            "Graph validation failed. The following nodes are unreachable from START:"
            f" {sorted(unreachable)}"
        )
    if any(edge.to_node is START for edge in edges):
        raise GraphValidationError(
            "Graph validation failed. START node must not have incoming edges."
        )
    seen: dict[tuple[str, str], set[Any]] = {}
    for edge in edges:
        key = (edge.from_node.name, edge.to_node.name)
        routes: set[Any] = set(edge.routes() or {None})
        if key in seen:
            if None in seen[key] or None in routes or not seen[key].isdisjoint(routes):
                raise GraphValidationError(
                    f"Graph validation failed. Duplicate edge found: from={key[0]}, to={key[1]}"
                )
            seen[key] |= routes
        else:
            seen[key] = routes
        if isinstance(edge.route, list) and DEFAULT_ROUTE in edge.route:
            raise GraphValidationError(
                "Graph validation failed. DEFAULT_ROUTE cannot be combined with other routes in"
                f" a list (edge from={key[0]}, to={key[1]}). Use a separate edge for"
                " DEFAULT_ROUTE."
            )
    cycle = unconditional_cycle(edges)
    if cycle:
        raise GraphValidationError(
            f"Graph validation failed. Unconditional cycle detected: {' -> '.join(cycle)}."
            " Cycles must include at least one conditional (routed) edge to avoid infinite"
            " loops."
        )
    _check_chat_agent_wiring(edges)


def _check_chat_agent_wiring(edges: list[Edge]) -> None:
    """A chat agent reads the conversation, not a node input: it may follow START only."""
    for edge in edges:
        target = edge.to_node
        if (
            isinstance(target, AgentNode)
            and isinstance(target.agent, LlmAgent)
            and target.agent.node_mode == "chat"
            and edge.from_node is not START
        ):
            raise GraphValidationError(
                f"The agent '{target.agent.name}' has been added to the workflow with"
                f" mode='chat' following node '{edge.from_node.name}'. This is not supported"
                " because chat-mode agents rely on conversational history (session events) and"
                " cannot consume direct node inputs from preceding nodes. Please change the"
                " agent's mode to 'single_turn'"
            )


def reachable_from_start(edges: list[Edge]) -> set[str]:
    adjacency: dict[str, set[str]] = {}
    for edge in edges:
        adjacency.setdefault(edge.from_node.name, set()).add(edge.to_node.name)
    reached: set[str] = set()
    stack = [START.name]
    while stack:
        name = stack.pop()
        if name not in reached:
            reached.add(name)
            stack.extend(adjacency.get(name, set()) - reached)
    return reached


def unconditional_cycle(edges: list[Edge]) -> list[str] | None:
    """A cycle of unrouted edges (which would never end), as the names along it, if any."""
    adjacency: dict[str, list[str]] = {}
    for edge in edges:
        if edge.route is None:
            adjacency.setdefault(edge.from_node.name, []).append(edge.to_node.name)
    done: set[str] = set()
    for root in list(adjacency):
        if root in done:
            continue
        path: list[str] = []
        on_path: set[str] = set()
        stack: list[tuple[str, int]] = [(root, 0)]
        while stack:
            name, index = stack.pop()
            if index == 0:
                path.append(name)
                on_path.add(name)
            successors = adjacency.get(name, [])
            if index < len(successors):
                stack.append((name, index + 1))
                nxt = successors[index]
                if nxt in on_path:
                    return [*path[path.index(nxt) :], nxt]
                if nxt not in done:
                    stack.append((nxt, 0))
            else:
                path.pop()
                on_path.discard(name)
                done.add(name)
    return None
