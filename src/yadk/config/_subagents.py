"""Sub-agent references: ``config_path`` (relative, inside the agent folder, no cycles) or
``code`` (an agent instance from a module)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from yadk.config._context import AgentRecord, FileScope, did_you_mean, inside
from yadk.config._refs import LoaderBase
from yadk.config._yaml import KeyPath

__all__ = ["agent_reference"]


def agent_reference(
    reader: LoaderBase, scope: FileScope, at: KeyPath, value: Any, *, separate_tree: bool = False
) -> AgentRecord | None:
    """A sub-agent (or AgentTool agent): ``{config_path: x}``, ``{code: x}`` or a path."""
    record = _reference(reader, scope, at, value)
    if record is None:
        spot = (*at, "config_path") if isinstance(value, dict) else at
        line, column = scope.doc.where(spot)
        reader.missing_agents.append((scope.file, line, column))
    elif separate_tree:
        reader.separate_trees.append(record)
    return record


def _reference(reader: LoaderBase, scope: FileScope, at: KeyPath, value: Any) -> AgentRecord | None:
    if isinstance(value, str):
        record = _config_path(reader, scope, at, value)
    elif isinstance(value, dict):
        reader.unknown_keys(scope, at, value, ("code", "config_path"), "an agent reference")
        if "code" in value and "config_path" in value:
            reader.error(
                scope,
                (*at, "code"),
                "conflicting-fields",
                "An agent reference takes `config_path` or `code`, not both.",
                "Keep the one you mean.",
                key=True,
            )
            return None
        if "config_path" in value:
            path = value["config_path"]
            if not reader.expect(scope, (*at, "config_path"), path, str, "a path (a string)"):
                return None
            record = _config_path(reader, scope, (*at, "config_path"), path)
        elif "code" in value:
            record = _code_agent(reader, scope, (*at, "code"), value["code"])
        else:
            reader.error(
                scope,
                at,
                "missing-field",
                "An agent reference needs `config_path` or `code`.",
                "e.g. `- config_path: helper.yaml` or `- code: my_agent.agents.helper`.",
            )
            return None
    else:
        reader.expect(
            scope,
            at,
            value,
            dict,
            "a mapping with `config_path` or `code`",
            "e.g. `- config_path: helper.yaml`.",
        )
        return None
    return record


def _config_path(
    reader: LoaderBase, scope: FileScope, at: KeyPath, relative: str
) -> AgentRecord | None:
    if os.path.isabs(relative):
        reader.error(
            scope,
            at,
            "path-absolute",
            f"Sub-agent config `{relative}` is an absolute path.",
            f"Write it relative to this file's folder ({scope.folder}).",
        )
        return None
    target = scope.folder / relative
    if not inside(target, reader.root):
        reader.error(
            scope,
            at,
            "path-outside-folder",
            f"Sub-agent config `{relative}` resolves outside the agent folder {reader.root}.",
            "Keep every config of an agent inside its folder.",
        )
        return None
    if not target.is_file():
        configs = [p.name for p in target.parent.glob("*.y*ml")] if target.parent.is_dir() else []
        guess = did_you_mean(target.name, configs)
        reader.error(
            scope,
            at,
            "file-not-found",
            f"Sub-agent config `{relative}` not found (looked for {target}).",
            f"Did you mean `{guess}`?" if guess else "Paths are relative to this file.",
        )
        return None
    real = Path(os.path.realpath(target))
    if real in reader.stack:
        chain = [*reader.stack[reader.stack.index(real) :], real]
        shown = " -> ".join(_relative(p, reader.root) for p in chain)
        reader.error(
            scope,
            at,
            "sub-agent-cycle",
            f"Sub-agent cycle: {shown}.",
            "An agent cannot contain itself; remove one of these references.",
        )
        return None
    return reader.load_file(Path(os.path.abspath(target)))


def _code_agent(reader: LoaderBase, scope: FileScope, at: KeyPath, name: Any) -> AgentRecord | None:
    if not reader.expect(scope, at, name, str, "the dotted name of an agent instance"):
        return None
    found = reader.reference(scope, at, name, "agent")
    if found is None:
        return None
    record = AgentRecord(name=None, scope=scope, at=at, from_code=True, kind="code")
    if reader.import_code:
        agent = _detached(found.obj)
        record.agent = agent
        record.name = agent.name
        record.children = [_code_record(sub, scope, at) for sub in agent.sub_agents]
    return record


def _detached(agent: Any) -> Any:
    """``agent`` itself, or a copy when it already belongs to another tree (a module-level
    agent referenced by an earlier load)."""
    if agent.parent_agent is None:
        return agent
    return _copy_tree(agent)


def _copy_tree(agent: Any) -> Any:
    data = {name: getattr(agent, name) for name in type(agent).model_fields}
    data["sub_agents"] = [_copy_tree(sub) for sub in agent.sub_agents]
    return type(agent)(**data)


def _code_record(agent: Any, scope: FileScope, at: KeyPath) -> AgentRecord:
    record = AgentRecord(
        name=agent.name, scope=scope, at=at, agent=agent, from_code=True, kind="code"
    )
    record.children = [_code_record(sub, scope, at) for sub in agent.sub_agents]
    return record


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(os.path.realpath(root)))
    except ValueError:
        return str(path)
