"""Checks of a graph that go beyond what it needs to run: nodes nothing reaches, loops with no
way out, routes a node can take that no edge follows, outputs whose type the next node's input
cannot take. Used by ``yadk validate``, which places each problem at its node's YAML line.

Works on names and edges alone (``nodes`` may map a name to None when its code is not
imported); checks that need the node's function run when it is there.
"""

from __future__ import annotations

import ast
import enum
import inspect
import textwrap
import types
import typing
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel

from yadk._graph_shape import Edges, GraphProblem, shape_problems
from yadk.events import Event
from yadk.types import Content
from yadk.workflow._function_node import FunctionNode
from yadk.workflow._graph import DEFAULT_ROUTE
from yadk.workflow._request_input import RequestInput

__all__ = ["GraphProblem", "analyse_graph", "routes_of"]


def analyse_graph(workflow: str, nodes: dict[str, Any], edges: Edges) -> list[GraphProblem]:
    """Every problem of the graph ``edges`` (``(from, to, route)`` by node name): its shape's,
    then those its nodes' functions show (routes no edge follows, mismatched types)."""
    problems = shape_problems(workflow, nodes, edges)
    for name, obj in nodes.items():
        problems.extend(_route_problems(name, obj, edges))
    problems.extend(_type_problems(nodes, edges))
    return problems


# --- routes -----------------------------------------------------------------------------------


def _route_problems(name: str, obj: Any, edges: Edges) -> list[GraphProblem]:
    func = obj.func if isinstance(obj, FunctionNode) else None
    if func is None:
        return []
    possible = routes_of(func)
    if not possible:
        return []
    outgoing = [r for s, _, r in edges if s == name and r is not None]
    if DEFAULT_ROUTE in outgoing:
        return []
    followed: set[Any] = set()
    for route in outgoing:
        followed.update(route if isinstance(route, list) else [route])
    missing = [r for r in possible if r not in followed]
    if not missing:
        return []
    shown = ", ".join(f"`{r}`" for r in missing)
    return [
        GraphProblem(
            "route-without-edge",
            "warning",
            f"Node `{name}` can take route {shown}, which no edge follows: its branch would"
            " end there.",
            f"Add `{{{missing[0]}: next_node}}` after `{name}`, or a `__DEFAULT__` route.",
            node=name,
        )
    ]


def routes_of(func: Callable[..., Any]) -> list[Any]:
    """The route values ``func`` can emit, when its source spells them: literals in
    ``route=...``, an enum's members, or a name annotated with a ``Literal`` or an enum."""
    try:
        source = textwrap.dedent(inspect.getsource(func))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return []
    scope = dict(getattr(func, "__globals__", {}))
    annotations = _annotations(func, tree)
    assigned: dict[str, list[ast.expr]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    assigned.setdefault(target.id, []).append(node.value)
    values: list[Any] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg == "route":
                    values.extend(_values(keyword.value, scope, annotations, assigned))
    out: list[Any] = []
    for value in values:
        if value is not _UNKNOWN and value not in out:
            out.append(value)
    return [] if _UNKNOWN in values else out


_UNKNOWN: Any = object()


def _annotations(func: Callable[..., Any], tree: ast.AST) -> dict[str, Any]:
    found: dict[str, Any] = {}
    try:
        found.update(typing.get_type_hints(func))
    except Exception:
        pass
    scope = getattr(func, "__globals__", {})
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            try:
                found[node.target.id] = eval(
                    compile(ast.Expression(node.annotation), "<annotation>", "eval"), dict(scope)
                )
            except Exception:
                found[node.target.id] = None
    return found


def _values(
    expr: ast.expr,
    scope: dict[str, Any],
    annotations: dict[str, Any],
    assigned: dict[str, list[ast.expr]],
    depth: int = 0,
) -> list[Any]:
    if depth > 8:
        return [_UNKNOWN]
    if isinstance(expr, ast.Constant):
        return [expr.value]
    if isinstance(expr, ast.IfExp):
        return _values(expr.body, scope, annotations, assigned, depth + 1) + _values(
            expr.orelse, scope, annotations, assigned, depth + 1
        )
    if isinstance(expr, (ast.List, ast.Tuple)):
        return [
            v for item in expr.elts for v in _values(item, scope, annotations, assigned, depth + 1)
        ]
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        owner = scope.get(expr.value.id)
        if isinstance(owner, type) and issubclass(owner, enum.Enum):
            member = getattr(owner, expr.attr, None)
            return [member.value if member is not None else _UNKNOWN]
    if isinstance(expr, ast.Name) and expr.id in annotations:
        return _annotated_values(annotations[expr.id])
    if isinstance(expr, ast.Name) and expr.id in assigned:
        return [
            v
            for value in assigned[expr.id]
            for v in _values(value, scope, annotations, assigned, depth + 1)
        ]
    return [_UNKNOWN]


def _annotated_values(annotation: Any) -> list[Any]:
    if typing.get_origin(annotation) is typing.Literal:
        return list(typing.get_args(annotation))
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return [m.value for m in annotation]
    return [_UNKNOWN]


# --- types ------------------------------------------------------------------------------------


def _type_problems(nodes: dict[str, Any], edges: Edges) -> list[GraphProblem]:
    problems = []
    for index, (src, dst, _) in enumerate(edges):
        produced = _output_type(nodes.get(src))
        wanted = _input_type(nodes.get(dst))
        if produced is None or wanted is None or _accepts(wanted, produced):
            continue
        problems.append(
            GraphProblem(
                "type-mismatch",
                "error",
                f"`{src}` outputs {_show(produced)} but `{dst}` takes `node_input:"
                f" {_show(wanted)}`.",
                f"Change one annotation, or put a node between them that converts"
                f" {_show(produced)} to {_show(wanted)}.",
                edge=index,
            )
        )
    return problems


def _output_type(obj: Any) -> Any:
    if not isinstance(obj, FunctionNode):
        return None
    hint = obj.binder.return_hint
    if hint is inspect.Parameter.empty or hint is Any or hint is None or type(hint) is str:
        return None
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType, Iterable) or _is_generator(obj.func):
        return None
    if isinstance(hint, type) and issubclass(hint, (Event, RequestInput, Content)):
        return None  # its output is whatever the event carries
    return hint


def _input_type(obj: Any) -> Any:
    if not isinstance(obj, FunctionNode):
        return None
    hint = obj.binder.input_annotation
    if hint is inspect.Parameter.empty or hint is Any or type(hint) is str:
        return None
    return hint


def _is_generator(func: Any) -> bool:
    target = inspect.unwrap(func)
    return inspect.isgeneratorfunction(target) or inspect.isasyncgenfunction(target)


def _accepts(wanted: Any, produced: Any) -> bool:
    """Whether a ``produced`` value reaches a ``wanted`` parameter (outputs are stored as JSON:
    a model becomes a dict, and a dict is coerced back into a model)."""
    wanted_origin = typing.get_origin(wanted) or wanted
    produced_origin = typing.get_origin(produced) or produced
    if typing.get_origin(wanted) in (typing.Union, __import__("types").UnionType):
        return any(_accepts(option, produced) for option in typing.get_args(wanted))
    if not isinstance(wanted_origin, type) or not isinstance(produced_origin, type):
        return True
    if _is_model(wanted_origin) and (produced_origin is dict or _is_model(produced_origin)):
        return True
    if _is_model(produced_origin) and wanted_origin is dict:
        return True
    if wanted_origin is float and produced_origin is int:
        return True
    if wanted_origin in (list, tuple) and produced_origin in (list, tuple):
        return True
    if issubclass(produced_origin, enum.Enum) and issubclass(wanted_origin, (str, int)):
        return True
    return issubclass(produced_origin, wanted_origin)


def _is_model(cls: type) -> bool:
    return issubclass(cls, BaseModel)


def _show(annotation: Any) -> str:
    if isinstance(annotation, type) and not typing.get_args(annotation):
        return annotation.__name__
    return str(annotation).replace("typing.", "")
