"""The checks of a workflow graph that need only its node names and edges: a way in from
START, no edge into START, every node reachable, every loop routed and with a way out.

Kept apart from the workflow engine, so ``yadk validate`` checks a graph without importing it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["START_NAME", "Edges", "GraphProblem", "shape_problems"]

# The name of the workflow's entry node (google-adk's START).
START_NAME = "__START__"


@dataclass(frozen=True)
class GraphProblem:
    """One problem: ``rule``, ``message``, ``hint``, and the node (or edge index) it is about."""

    rule: str
    severity: str
    message: str
    hint: str
    node: str | None = None
    edge: int | None = None


Edges = list[tuple[str, str, Any]]


def shape_problems(workflow: str, nodes: Iterable[str], edges: Edges) -> list[GraphProblem]:
    """The problems of the graph ``edges`` (``(from, to, route)`` by node name) that its shape
    alone shows: no way in, edges into START, nodes nothing reaches, loops with no way out."""
    names = list(nodes)
    problems: list[GraphProblem] = []
    start = START_NAME
    if not any(src == start for src, _, _ in edges):
        problems.append(
            GraphProblem(
                "missing-start",
                "error",
                f"Workflow `{workflow}` has no edge from START, so nothing in it ever runs.",
                "Begin a chain with START: `- [START, first_node, ...]`.",
            )
        )
    for index, (src, dst, route) in enumerate(edges):
        if dst == start:
            problems.append(
                GraphProblem(
                    "edge-into-start",
                    "error",
                    "START must not have incoming edges.",
                    "START is where the workflow begins; route back to a node instead.",
                    edge=index,
                )
            )
        if src == start and route is not None:
            problems.append(
                GraphProblem(
                    "routed-start-edge",
                    "error",
                    f"Edges from START must not have routes (edge to `{dst}` has route `{route}`).",
                    "Route from a node that decides; START always triggers its successors.",
                    edge=index,
                )
            )
    reached = _reachable(start, edges)
    for name in names:
        if name != start and name not in reached:
            problems.append(
                GraphProblem(
                    "unreachable-node",
                    "error",
                    f"Node `{name}` is unreachable from START.",
                    "Add an edge to it from a node that runs, or remove it.",
                    node=name,
                )
            )
    problems.extend(_loops(names, edges, reached))
    return problems


def _reachable(start: str, edges: Edges) -> set[str]:
    adjacency: dict[str, set[str]] = {}
    for src, dst, _ in edges:
        adjacency.setdefault(src, set()).add(dst)
    reached: set[str] = set()
    stack = [start]
    while stack:
        name = stack.pop()
        if name not in reached:
            reached.add(name)
            stack.extend(adjacency.get(name, set()) - reached)
    return reached


def _loops(names: list[str], edges: Edges, reached: set[str]) -> list[GraphProblem]:
    """Cycles of unrouted edges (they never end), and cycles no edge leaves."""
    problems = []
    for component in _cycles(names, [(s, d) for s, d, _ in edges]):
        if not component & reached:
            continue
        inner = [(s, d, r) for s, d, r in edges if s in component and d in component]
        first = sorted(component, key=names.index)[0]
        shown = " -> ".join(sorted(component, key=names.index))
        if all(r is None for _, _, r in inner):
            problems.append(
                GraphProblem(
                    "unconditional-cycle",
                    "error",
                    f"Unconditional cycle: {shown}. Cycles must include at least one routed"
                    " edge to avoid infinite loops.",
                    "Route one edge of the loop (`{again: node}`) and give the loop a way out.",
                    node=first,
                )
            )
        elif not any(s in component and d not in component for s, d, _ in edges):
            problems.append(
                GraphProblem(
                    "loop-without-exit",
                    "warning",
                    f"Loop {shown} has no edge out of it: it ends only when a node's route"
                    " matches no edge.",
                    "Add a route out of the loop (`{again: step, done: finish}`).",
                    node=first,
                )
            )
    return problems


def _cycles(names: list[str], edges: list[tuple[str, str]]) -> list[set[str]]:
    """Strongly connected components that hold a cycle (Tarjan's algorithm, iteratively)."""
    adjacency: dict[str, list[str]] = {n: [] for n in names}
    for src, dst in edges:
        adjacency.setdefault(src, []).append(dst)
        adjacency.setdefault(dst, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    counter = 0
    for root in adjacency:
        if root in index:
            continue
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            name, i = work.pop()
            if i == 0:
                index[name] = low[name] = counter
                counter += 1
                stack.append(name)
                on_stack.add(name)
            successors = adjacency[name]
            if i < len(successors):
                work.append((name, i + 1))
                nxt = successors[i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[name] = min(low[name], index[nxt])
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[name])
            if low[name] == index[name]:
                component = set()
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.add(top)
                    if top == name:
                        break
                if len(component) > 1 or name in adjacency[name]:
                    found.append(component)
    return found
