"""``agent_class: Workflow`` with ``edges:`` (google-adk 2's graph workflows in YAML).

An edge item is a chain ``[START, a, b]`` (an element may be a list, for fan-out, or a routing
map ``{route: node}``), or ``{from_node, to_node, route}``. A node is ``START``, a config file
(``writer.yaml``), a dotted name of a function or node (``.nodes.route_it``, relative to the
agent folder's package), the name of a node an earlier edge defined, or an inline mapping (an
agent, ``{config_path: ...}``, ``{code: ...}``, ``{agent_class: JoinNode, name: ...}`` or
``{agent_class: FunctionNode, func_code: ...}``). Every problem is located at its YAML line.

Engine imports are inside the functions that build objects, off ``import yadk.config``
and ``yadk validate`` (see the package docstring).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from yadk._graph_shape import START_NAME, shape_problems
from yadk.config._context import AgentRecord, FileScope, did_you_mean
from yadk.config._subagents import agent_reference
from yadk.config._yaml import Document, KeyPath

if TYPE_CHECKING:
    from yadk.config._loader import Loader

__all__ = ["WORKFLOW_FIELDS", "read_workflow"]

_EDGE_KEYS = ("from_node", "to_node", "route")
_NODE_CLASSES = {"JoinNode", "FunctionNode"}
# Node-class spellings google-adk configs use.
_NODE_CLASS_SPELLINGS = {
    **{n: n for n in _NODE_CLASSES},
    **{f"google.adk.workflow.{n}": n for n in _NODE_CLASSES},
    **{f"yadk.workflow.{n}": n for n in _NODE_CLASSES},
}
_AGENT_FIELD_HINTS = ("instruction", "model", "agent_class", "config_path", "func_code")
# Plain fields of a workflow (besides edges), with the type each must have.
WORKFLOW_FIELDS: dict[str, tuple[type | tuple[type, ...], str]] = {
    "max_concurrency": (int, "an integer (0 or less: no limit)"),
    "timeout": ((int, float), "a number of seconds"),
    "rerun_on_resume": (bool, "true or false"),
    "wait_for_output": (bool, "true or false"),
}


@dataclasses.dataclass
class _Node:
    name: str
    at: KeyPath
    obj: Any = None  # the node-like object (when code is imported)
    record: AgentRecord | None = None


@dataclasses.dataclass
class _Edge:
    src: str
    dst: str
    route: Any
    at: KeyPath


class _Reader:
    def __init__(self, loader: Loader, scope: FileScope) -> None:
        self.loader = loader
        self.scope = scope
        self.nodes: dict[str, _Node] = {START_NAME: _Node(START_NAME, ())}
        self.by_ref: dict[Any, _Node] = {}
        self.edges: list[_Edge] = []
        self.ok = True

    def fail(self, at: KeyPath, rule: str, message: str, hint: str = "") -> None:
        self.ok = False
        self.loader.error(self.scope, at, rule, message, hint)

    # --- items ----------------------------------------------------------------------------

    def read(self, value: Any) -> None:
        at: KeyPath = ("edges",)
        if not self.loader.expect(
            self.scope, at, value, list, "a list of edges", "e.g. `edges: [[START, a, b]]`."
        ):
            self.ok = False
            return
        for index, item in enumerate(value):
            where = (*at, index)
            if isinstance(item, list):
                self.chain(where, item)
            elif isinstance(item, dict) and "from_node" in item and "to_node" in item:
                self.explicit(where, item)
            elif isinstance(item, dict):
                self.fail(
                    where,
                    "invalid-edge",
                    "An edge mapping needs `from_node` and `to_node`.",
                    "e.g. `- {from_node: a, to_node: b, route: done}`, or a chain `- [a, b]`.",
                )
            else:
                self.fail(
                    where,
                    "invalid-edge",
                    f"An edge is a chain (a list) or a mapping, got `{item}`.",
                    "e.g. `- [START, first, second]`.",
                )

    def explicit(self, at: KeyPath, item: dict[str, Any]) -> None:
        self.loader.unknown_keys(self.scope, at, item, _EDGE_KEYS, "an edge")
        src = self.node((*at, "from_node"), item["from_node"])
        dst = self.node((*at, "to_node"), item["to_node"])
        route = item.get("route")
        if route is not None and not _route_value(route):
            self.fail((*at, "route"), "invalid-route", _ROUTE_MESSAGE.format(route), _ROUTE_HINT)
            return
        if src is not None and dst is not None:
            self.edges.append(_Edge(src.name, dst.name, route, at))

    def chain(self, at: KeyPath, chain: list[Any]) -> None:
        previous: list[_Node] | None = None
        previous_was_map = False
        for index, element in enumerate(chain):
            where = (*at, index)
            if isinstance(element, dict) and not _looks_like_node(element):
                if previous_was_map:
                    self.fail(
                        where,
                        "invalid-edge",
                        "Consecutive routing maps are not allowed in a chain.",
                        "Split them into separate edge items.",
                    )
                    return
                targets = self.routing_map(where, element, previous or [])
                previous, previous_was_map = targets, True
                continue
            if isinstance(element, list):
                current = [n for i, e in enumerate(element) if (n := self.node((*where, i), e))]
            else:
                found = self.node(where, element)
                current = [found] if found is not None else []
            for src in previous or []:
                for dst in current:
                    self.edges.append(_Edge(src.name, dst.name, None, where))
            previous, previous_was_map = current, False

    def routing_map(
        self, at: KeyPath, mapping: dict[Any, Any], sources: list[_Node]
    ) -> list[_Node]:
        if not mapping:
            self.fail(
                at,
                "invalid-edge",
                "Routing map must not be empty.",
                "Provide at least one `route: node` entry.",
            )
        targets: list[_Node] = []
        for route, value in mapping.items():
            where = (*at, route)
            if not _route_value(route):
                self.fail(where, "invalid-route", _ROUTE_MESSAGE.format(route), _ROUTE_HINT)
                continue
            values = value if isinstance(value, list) else [value]
            for i, target in enumerate(values):
                node = self.node((*where, i) if isinstance(value, list) else where, target)
                if node is None:
                    continue
                targets.append(node)
                for src in sources:
                    self.edges.append(_Edge(src.name, node.name, route, where))
        return targets

    # --- nodes ----------------------------------------------------------------------------

    def node(self, at: KeyPath, value: Any) -> _Node | None:
        if value == "START":
            return self.nodes[START_NAME]
        if isinstance(value, str):
            if value in self.by_ref:
                return self.by_ref[value]
            if value.endswith((".yaml", ".yml")):
                return self.config_node(at, value, value)
            if "." not in value:
                return self.named(at, value)
            return self.code_node(at, value)
        if isinstance(value, dict):
            return self.inline(at, value)
        self.fail(
            at,
            "invalid-node",
            f"A node is START, a config file, a dotted name or a mapping, got `{value}`.",
            "e.g. `writer.yaml`, `.nodes.route_it` or `{agent_class: JoinNode, name: join}`.",
        )
        return None

    def named(self, at: KeyPath, name: str) -> _Node | None:
        found = self.nodes.get(name)
        if found is not None and name != START_NAME:
            return found
        guess = did_you_mean(name, [n for n in self.nodes if n != START_NAME])
        self.fail(
            at,
            "unknown-node",
            f"Unknown node `{name}`: no earlier edge defines a node of that name.",
            f"Did you mean `{guess}`?"
            if guess
            else "Name a config file (`writer.yaml`), a dotted name (`.nodes.step`), or define"
            " the node in an earlier edge.",
        )
        return None

    def add(self, node: _Node, ref: Any) -> _Node | None:
        existing = self.nodes.get(node.name)
        if existing is not None:
            self.fail(
                node.at,
                "duplicate-node-name",
                f"Two different nodes are named `{node.name}` in this workflow.",
                "Give one of them another name (a node named twice must be the same reference).",
            )
            return None
        self.nodes[node.name] = node
        if ref is not None:
            self.by_ref[ref] = node
        return node

    def config_node(self, at: KeyPath, path: str, ref: Any) -> _Node | None:
        record = agent_reference(self.loader, self.scope, at, path)
        return self.record_node(at, record, ref)

    def record_node(self, at: KeyPath, record: AgentRecord | None, ref: Any) -> _Node | None:
        if record is None or not record.ok or record.name is None:
            self.ok = False
            return None
        return self.add(_Node(record.name, at, record.agent, record), ref)

    def code_node(self, at: KeyPath, dotted: str) -> _Node | None:
        found = self.loader.reference(self.scope, at, dotted, "object")
        if found is None:
            self.ok = False
            return None
        name = dotted.rsplit(".", 1)[-1]
        obj = found.obj if self.loader.import_code else None
        if obj is not None:
            from yadk.agents import BaseAgent
            from yadk.workflow import BaseNode, FunctionNode

            if isinstance(obj, (BaseNode, BaseAgent)):
                name = obj.name
            elif callable(obj) and not isinstance(obj, type):
                obj = FunctionNode(func=obj, name=name)
            else:
                self.fail(
                    at,
                    "wrong-kind",
                    f"`{dotted}` is {type(obj).__name__}, expected a function, a node or an agent.",
                    "Reference a function defined at the top level of a module.",
                )
                return None
        return self.add(_Node(name, at, obj), dotted)

    def inline(self, at: KeyPath, mapping: dict[str, Any]) -> _Node | None:
        if "config_path" in mapping or (
            "code" in mapping and "agent_class" not in mapping and "func_code" not in mapping
        ):
            record = agent_reference(self.loader, self.scope, at, mapping)
            return self.record_node(at, record, None)
        written = mapping.get("agent_class")
        kind = _NODE_CLASS_SPELLINGS.get(written) if isinstance(written, str) else None
        if kind is not None:
            return self.node_class(at, kind, mapping)
        record = self.loader.agent(_sub_scope(self.scope, at, mapping))
        return self.record_node(at, record, None)

    def node_class(self, at: KeyPath, kind: str, mapping: dict[str, Any]) -> _Node | None:
        allowed = ["agent_class", "name", "description", "timeout", "rerun_on_resume"]
        if kind == "FunctionNode":
            allowed.append("func_code")
        self.loader.unknown_keys(self.scope, at, mapping, allowed, f"a {kind}")
        name = mapping.get("name")
        func = None
        if kind == "FunctionNode":
            if "func_code" not in mapping:
                self.fail(
                    at,
                    "missing-field",
                    "A FunctionNode needs `func_code`, the dotted name of its function.",
                    "e.g. `func_code: .nodes.summarize`.",
                )
                return None
            named = self.loader.code_name(
                self.scope, (*at, "func_code"), mapping["func_code"], "`func_code`"
            )
            found = (
                None
                if named is None
                else self.loader.reference(self.scope, named[0], named[1], "callback")
            )
            if found is None:
                self.ok = False
                return None
            func = found.obj
            name = name or named[1].rsplit(".", 1)[-1] if named else name
        if not isinstance(name, str) or not name.isidentifier():
            self.fail(
                (*at, "name") if "name" in mapping else at,
                "invalid-name",
                f"A {kind} needs a `name` that is a Python identifier.",
                "e.g. `name: gather`.",
            )
            return None
        obj: Any = None
        if self.loader.import_code:
            from yadk.workflow import FunctionNode, JoinNode

            fields = {
                k: mapping[k] for k in ("description", "timeout", "rerun_on_resume") if k in mapping
            }
            if func is not None:
                obj = FunctionNode(func=func, name=name, **fields)
            else:
                obj = JoinNode(name=name, **fields)
        return self.add(_Node(name, at, obj), None)


_ROUTE_MESSAGE = "Route `{}` is not a route value."
_ROUTE_HINT = "A route is a string, an integer or true/false (`__DEFAULT__` for the default)."


def _route_value(value: Any) -> bool:
    if isinstance(value, list):
        return bool(value) and all(isinstance(v, (str, int, bool)) for v in value)
    return isinstance(value, (str, int, bool))


def _looks_like_node(mapping: dict[str, Any]) -> bool:
    """An inline node rather than a routing map (google-adk's rule: keys only a node has)."""
    if any(k in mapping for k in ("agent_class", "config_path", "func_code")):
        return True
    if len(mapping) == 1 and isinstance(mapping.get("code"), str):
        return True
    return "name" in mapping and any(k in mapping for k in _AGENT_FIELD_HINTS)


def _sub_scope(scope: FileScope, at: KeyPath, data: dict[str, Any]) -> FileScope:
    """The inline mapping at ``at`` as a document of its own, its positions kept."""
    doc = scope.doc
    n = len(at)

    def inner(table: dict[KeyPath, Any]) -> dict[KeyPath, Any]:
        return {k[n:]: v for k, v in table.items() if k[:n] == at}

    sub = Document(
        path=doc.path,
        text=doc.text,
        data=data,
        values=inner(doc.values),
        keys=inner(doc.keys),
        styles=inner(doc.styles),
        invalid={k[n:] for k in doc.invalid if k[:n] == at},
    )
    return FileScope(sub, scope.root)


def read_workflow(
    loader: Loader,
    scope: FileScope,
    data: dict[str, Any],
    kwargs: dict[str, Any],
    record: AgentRecord,
) -> None:
    """Read a workflow's ``edges`` and fields into ``kwargs``; the graph's problems reported."""
    for key, (types, expected) in WORKFLOW_FIELDS.items():
        if key in data and loader.expect(scope, (key,), data[key], types, expected):
            kwargs[key] = data[key]
    if "edges" not in data:
        loader.error(
            scope,
            (),
            "missing-field",
            "A Workflow has no `edges`.",
            "Add `edges:` with at least one chain, e.g. `- [START, first_node]`.",
        )
        return
    reader = _Reader(loader, scope)
    reader.read(data["edges"])
    record.children.extend(n.record for n in reader.nodes.values() if n.record is not None)
    if not reader.ok:
        return
    _graph_checks(loader, scope, record.name or "workflow", reader)
    if loader.import_code:
        kwargs["edges"] = _edges(reader)


def _graph_checks(loader: Loader, scope: FileScope, workflow: str, reader: _Reader) -> None:
    for edge in reader.edges:
        record = reader.nodes[edge.dst].record
        if record is not None and record.mode == "chat" and edge.src != START_NAME:
            # google-adk's refusal, located at the edge.
            loader.error(
                scope,
                edge.at,
                "chat-agent-after-node",
                f"The agent '{edge.dst}' has been added to the workflow with mode='chat'"
                f" following node '{edge.src}'. This is not supported because chat-mode agents"
                " rely on conversational history (session events) and cannot consume direct node"
                " inputs from preceding nodes. Please change the agent's mode to 'single_turn'",
                "A chat agent reads the user's messages: put it right after START, or make it"
                " `mode: single_turn` to answer the node before it.",
            )
    nodes = {name: node.obj for name, node in reader.nodes.items()}
    edges = [(e.src, e.dst, e.route) for e in reader.edges]
    if any(obj is not None for obj in nodes.values()):
        # Routes and types are read from the nodes' functions: only with their code imported.
        from yadk.workflow import analyse_graph

        problems = analyse_graph(workflow, nodes, edges)
    else:
        problems = shape_problems(workflow, nodes, edges)
    for problem in problems:
        if problem.edge is not None:
            at = reader.edges[problem.edge].at
        elif problem.node is not None:
            at = reader.nodes[problem.node].at
        else:
            at = ("edges",)
        if problem.severity == "warning":
            loader.warn(scope, at, problem.rule, problem.message, problem.hint)
        else:
            loader.error(scope, at, problem.rule, problem.message, problem.hint)


def _edges(reader: _Reader) -> list[Any]:
    from yadk.workflow import START, Edge, build_node

    built: dict[str, Any] = {START_NAME: START}
    for name, node in reader.nodes.items():
        if name != START_NAME and node.obj is not None:
            built[name] = build_node(node.obj)
    return [
        Edge(from_node=built[e.src], to_node=built[e.dst], route=e.route)
        for e in reader.edges
        if e.src in built and e.dst in built
    ]
