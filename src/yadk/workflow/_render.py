"""A workflow's graph as text (for ``yadk inspect``), as a Mermaid flowchart, and as data laid
out in layers (for the web UI's drawing)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from yadk.workflow._adapters import AgentNode, ParallelWorker, ToolNode, WorkflowNode
from yadk.workflow._base_node import START, BaseNode
from yadk.workflow._function_node import FunctionNode
from yadk.workflow._join_node import JoinNode

if TYPE_CHECKING:
    from yadk.workflow._workflow import Workflow

__all__ = ["graph_data", "graph_mermaid", "graph_text"]


def _kind(node: BaseNode) -> str:
    if isinstance(node, ParallelWorker):
        return f"parallel worker of {_kind(node.node)}"
    if isinstance(node, FunctionNode):
        func = node.func
        return f"function {getattr(func, '__module__', '?')}.{getattr(func, '__qualname__', '?')}"
    if isinstance(node, AgentNode):
        return type(node.agent).__name__
    if isinstance(node, ToolNode):
        return f"tool {type(node.tool).__name__}"
    if isinstance(node, WorkflowNode):
        return "Workflow"
    if isinstance(node, JoinNode):
        return "JoinNode"
    return type(node).__name__


def _label(node: BaseNode) -> str:
    return "START" if node is START else node.name


def _route(route: Any) -> str:
    if isinstance(route, list):
        return ", ".join(str(r) for r in route)
    return str(route)


def graph_text(workflow: Workflow, *, indent: str = "") -> str:
    """The nodes (name and kind) and edges (with their routes), nested workflows indented."""
    graph = workflow.graph
    if graph is None:
        return f"{indent}Workflow {workflow.name}: no edges\n"
    nodes = [n for n in graph.nodes if n is not START]
    lines = [f"{indent}Workflow {workflow.name} ({len(nodes)} nodes, {len(graph.edges)} edges)"]
    lines.append(f"{indent}  nodes:")
    width = max((len(n.name) for n in nodes), default=0)
    for node in nodes:
        extras = []
        if node.retry_config is not None:
            extras.append(f"retries: {node.retry_config.max_attempts or 5}")
        if node.timeout is not None:
            extras.append(f"timeout: {node.timeout}s")
        suffix = f"  ({', '.join(extras)})" if extras else ""
        lines.append(f"{indent}    {node.name:<{width}}  {_kind(node)}{suffix}")
    lines.append(f"{indent}  edges:")
    for edge in graph.edges:
        arrow = "->" if edge.route is None else f"-[{_route(edge.route)}]->"
        lines.append(f"{indent}    {_label(edge.from_node)} {arrow} {_label(edge.to_node)}")
    text = "\n".join(lines) + "\n"
    for node in nodes:
        if isinstance(node, WorkflowNode):
            text += graph_text(node.workflow, indent=indent + "  ")
    return text


def graph_data(workflow: Workflow) -> dict[str, Any]:
    """The nodes (name, kind, layer; a nested workflow's own graph) and edges (with their
    routes) as JSON-ready dicts. A node's layer is its longest distance from START along edges
    that do not close a loop, so every forward edge goes to a later layer."""
    graph = workflow.graph
    if graph is None:
        return {"nodes": [], "edges": []}
    layers = _layers(graph.nodes, graph.edges)
    nodes: list[dict[str, Any]] = []
    for node in graph.nodes:
        item: dict[str, Any] = {
            "name": _label(node),
            "kind": "START" if node is START else _kind(node),
            "layer": layers[node.name],
        }
        if isinstance(node, WorkflowNode):
            item["graph"] = graph_data(node.workflow)
        nodes.append(item)
    edges = [
        {
            "from": _label(edge.from_node),
            "to": _label(edge.to_node),
            "route": _json_route(edge.route),
        }
        for edge in graph.edges
    ]
    return {"nodes": nodes, "edges": edges}


def _json_route(route: Any) -> Any:
    if route is None or isinstance(route, (bool, int, str)):
        return route
    return [r if isinstance(r, (bool, int, str)) else str(r) for r in route]


def _layers(nodes: list[BaseNode], edges: list[Any]) -> dict[str, int]:
    """Longest-path layers over the graph with its loop-closing (back) edges left out."""
    outgoing: dict[str, list[str]] = {n.name: [] for n in nodes}
    for edge in edges:
        outgoing[edge.from_node.name].append(edge.to_node.name)
    # Depth-first from START, iteratively (a long chain must not hit the recursion limit):
    # an edge to a node still on the stack closes a loop; the rest form a DAG, whose
    # post-order reversed is a topological order.
    back: set[tuple[str, str]] = set()
    order: list[str] = []
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    for root in [START.name, *(n.name for n in nodes)]:
        if root in state:
            continue
        state[root] = 1
        stack: list[tuple[str, int]] = [(root, 0)]
        while stack:
            name, index = stack[-1]
            targets = outgoing.get(name, [])
            if index < len(targets):
                stack[-1] = (name, index + 1)
                target = targets[index]
                if state.get(target) == 1:
                    back.add((name, target))
                elif target not in state:
                    state[target] = 1
                    stack.append((target, 0))
            else:
                state[name] = 2
                order.append(name)
                stack.pop()
    layer = {n.name: 0 for n in nodes}
    for name in reversed(order):
        for target in outgoing.get(name, []):
            if (name, target) not in back:
                layer[target] = max(layer[target], layer[name] + 1)
    return layer


def graph_mermaid(workflow: Workflow) -> str:
    """A Mermaid ``flowchart`` of the graph; nested workflows as subgraphs."""
    lines = ["flowchart TD"]
    _mermaid(workflow, lines, prefix="", indent="  ")
    return "\n".join(lines) + "\n"


def _mermaid(workflow: Workflow, lines: list[str], *, prefix: str, indent: str) -> None:
    graph = workflow.graph
    if graph is None:
        return

    def ident(node: BaseNode) -> str:
        return f"{prefix}{'START' if node is START else node.name}"

    for node in graph.nodes:
        if node is START:
            lines.append(f"{indent}{ident(node)}([START])")
        elif isinstance(node, WorkflowNode):
            lines.append(f'{indent}subgraph {ident(node)}["{node.name}"]')
            _mermaid(node.workflow, lines, prefix=f"{ident(node)}__", indent=indent + "  ")
            lines.append(f"{indent}end")
        elif isinstance(node, JoinNode):
            lines.append(f'{indent}{ident(node)}{{{{"{node.name}"}}}}')
        elif isinstance(node, AgentNode):
            lines.append(f'{indent}{ident(node)}[["{node.name}"]]')
        else:
            lines.append(f'{indent}{ident(node)}["{node.name}"]')
    for edge in graph.edges:
        if edge.route is None:
            lines.append(f"{indent}{ident(edge.from_node)} --> {ident(edge.to_node)}")
        else:
            label = _route(edge.route).replace('"', "'")
            lines.append(f'{indent}{ident(edge.from_node)} -- "{label}" --> {ident(edge.to_node)}')
