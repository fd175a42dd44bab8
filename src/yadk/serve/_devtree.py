"""The agent tree the web UI's Agent panel shows: agents, tools, skills (with their resources)
and example providers, each with the file and line that defines it; a workflow with its graph
(nodes in layers, edges with their routes) for the panel's drawing.

Built from a loaded agent and the config files it came from: each YAML agent's file is parsed
again (position-tracking, bounded like every config read) to find the line of each entry, so the
engine objects need not carry positions.
"""

from __future__ import annotations

import inspect
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yadk.agents import BaseAgent, LlmAgent
from yadk.config import Document, parse_document
from yadk.skills import SkillToolset
from yadk.tools import BaseTool, BaseToolset, ExampleTool, FunctionTool
from yadk.workflow import Workflow, graph_data

if TYPE_CHECKING:
    from yadk.config import LoadedAgent

__all__ = ["agent_tree"]

Node = dict[str, Any]


def agent_tree(loaded: LoadedAgent) -> Node:
    """The tree of ``loaded``'s agents as JSON-ready dicts (see docs/web.md, "Agent")."""
    documents: dict[Path, Document | None] = {}
    return _agent_node(loaded.agent, loaded, documents, None)


def _document(file: Path, documents: dict[Path, Document | None]) -> Document | None:
    if file not in documents:
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            documents[file] = None
        else:
            documents[file] = parse_document(file, text, lambda *_: None)
    return documents[file]


def _where(doc: Document | None, at: tuple[Any, ...]) -> int | None:
    if doc is None:
        return None
    try:
        doc.get(at)
    except (KeyError, IndexError, TypeError):
        return None
    return doc.where(at, key=len(at) == 1)[0]


def _code_location(obj: Any) -> dict[str, Any]:
    """The file and line of a Python definition, when Python knows them."""
    target = inspect.unwrap(obj) if callable(obj) else obj
    if not (inspect.isfunction(target) or inspect.isclass(target) or inspect.ismethod(target)):
        target = type(obj)
    try:
        file = inspect.getsourcefile(target)
        line = inspect.getsourcelines(target)[1]
    except (OSError, TypeError):
        return {}
    if file is None:
        return {}
    return {"file": os.path.abspath(file), "line": max(line, 1)}


def _agent_node(
    agent: BaseAgent,
    loaded: LoadedAgent,
    documents: dict[Path, Document | None],
    parent_ref: tuple[Path, int | None] | None,
) -> Node:
    file = loaded.agent_files.get(agent.name)
    doc = _document(file, documents) if file is not None else None
    node: Node = {
        "name": agent.name,
        "kind": type(agent).__name__,
        "description": agent.description,
    }
    if file is not None:
        node.update(file=str(file), line=_where(doc, ("name",)) or 1)
    elif parent_ref is not None:  # a `- code:` sub-agent: located where its parent names it
        node.update(file=str(parent_ref[0]), line=parent_ref[1] or 1)
        node["code"] = _code_location(agent)
    else:
        node.update(_code_location(agent))
    if isinstance(agent, LlmAgent):
        model = agent.model
        node["model"] = model if isinstance(model, str) else getattr(model, "model", "")
        node.update(_tools(agent, doc))
    if isinstance(agent, Workflow):
        node["graph"] = graph_data(agent)
    children = []
    for index, child in enumerate(agent.sub_agents):
        ref = (file, _where(doc, ("sub_agents", index))) if file is not None else None
        children.append(_agent_node(child, loaded, documents, ref))
    node["sub_agents"] = children
    return node


def _located(doc: Document | None, at: tuple[Any, ...]) -> dict[str, Any]:
    line = _where(doc, at)
    if doc is None or line is None:
        return {}
    return {"file": str(doc.path), "line": line}


def _tools(agent: LlmAgent, doc: Document | None) -> dict[str, list[Node]]:
    """Tools, skills and example providers, in the order the loader builds them: the `tools:`
    entries, then the `skills:` toolset, then the `examples:` tool."""
    data = doc.data if doc is not None and isinstance(doc.data, dict) else {}
    listed: list[Any] = data["tools"] if isinstance(data.get("tools"), list) else []
    tools: list[Node] = []
    skills: list[Node] = []
    examples: list[Node] = []
    for index, tool in enumerate(agent.tools):
        yaml_at: tuple[Any, ...] | None = ("tools", index) if index < len(listed) else None
        if isinstance(tool, SkillToolset):
            at = yaml_at or ("skills",)
            skills.extend(_skill_nodes(tool, _located(doc, at)))
        elif isinstance(tool, ExampleTool):
            at = yaml_at or ("examples",)
            examples.append(_example_node(tool, _located(doc, at)))
        else:
            tools.append(_tool_node(tool, _located(doc, yaml_at) if yaml_at else {}))
    return {"tools": tools, "skills": skills, "examples": examples}


def _tool_node(tool: Any, where: dict[str, Any]) -> Node:
    if isinstance(tool, FunctionTool):
        node: Node = {"name": tool.name, "kind": "FunctionTool", "code": _code_location(tool.func)}
    elif isinstance(tool, (BaseTool, BaseToolset)):
        node = {"name": getattr(tool, "name", type(tool).__name__), "kind": type(tool).__name__}
        node["code"] = _code_location(tool)
    else:  # a plain function given in Python
        node = {"name": getattr(tool, "__name__", repr(tool)), "kind": "function"}
        node["code"] = _code_location(tool)
    if not where:
        where = node["code"]
    node.update(where)
    return node


def _skill_nodes(toolset: SkillToolset, where: dict[str, Any]) -> list[Node]:
    nodes = []
    for skill in toolset.skills:
        node: Node = {"name": skill.name, "description": skill.description}
        if skill.path is not None:
            node.update(file=str(skill.path / "SKILL.md"), line=1)
        else:
            node.update(where)
        node["declared_at"] = where
        node["resources"] = {
            "references": skill.resources.list_references(),
            "assets": skill.resources.list_assets(),
            "scripts": skill.resources.list_scripts(),
        }
        nodes.append(node)
    return nodes


def _example_node(tool: ExampleTool, where: dict[str, Any]) -> Node:
    provider = tool.provider
    if provider is None:
        static = tool.examples
        node: Node = {"kind": "static", "count": len(static) if isinstance(static, list) else 0}
    else:
        node = {"kind": type(provider).__name__, "code": _code_location(provider)}
    node.update(where or node.get("code", {}))
    return node
