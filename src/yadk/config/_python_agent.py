"""Python agent folders (google-adk's convention): ``agent.py``, or a package ``__init__.py``,
defining ``root_agent`` (or ``app = App(...)``), with yadk's Python API or google-adk's (served
by yadk.adk_compat). Loaded through the same path as YAML configs, so run, dev (with reload),
inspect, serve, web and eval accept them alike.

The engine is imported only when an agent is imported (``--import``, loading); ``yadk validate``
reads the folder without it.
"""

from __future__ import annotations

import ast
import importlib
import os
import sys
import traceback
from pathlib import Path
from typing import Any

from yadk.adk_compat import install
from yadk.config._diagnostics import Diagnostic
from yadk.config._refs import adk_object_problem
from yadk.errors import AgentDefinitionError, ConfigError, ToolDeclarationError

__all__ = ["load_python_agent", "python_agent_file"]


def python_agent_file(folder: Path, *, mentions_root_agent: bool = False) -> Path | None:
    """``agent.py`` (preferred) or ``__init__.py`` of ``folder``, when it defines ``root_agent``
    (or ``app``), judged by its syntax tree (an ``__init__.py`` must; ``mentions_root_agent``:
    so must ``agent.py``, as when searching a tree, where a module named agent.py may be no
    agent). A name in a comment or a string is no definition."""
    for name in ("agent.py", "__init__.py"):
        candidate = folder / name
        if not candidate.is_file():
            continue
        if (name == "agent.py" and not mentions_root_agent) or defines_agent(_read(candidate)):
            return candidate
    return None


_AGENT_NAMES = frozenset({"root_agent", "app"})


def defines_agent(source: str) -> bool:
    """Whether module source binds ``root_agent`` or ``app`` at module level: an assignment, an
    annotated one, or an import (``from .agent import root_agent``), also inside a module-level
    ``if``/``try``. A module that does not parse counts (loading it reports the syntax error at
    its line)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return True
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Assign):
            targets = [t for target in node.targets for t in _names(target)]
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = _names(node.target)
        elif isinstance(node, ast.ImportFrom):
            targets = [alias.asname or alias.name for alias in node.names]
        elif isinstance(node, (ast.If, ast.Try, ast.With, ast.ExceptHandler)):
            for field in ("body", "orelse", "finalbody", "handlers"):
                pending.extend(getattr(node, field, ()))
            continue
        else:
            continue
        if _AGENT_NAMES.intersection(targets):
            return True
    return False


def _names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _names(element)]
    return []


def _anchor_scripted_models(root: Any, folder: Path) -> None:
    """``model="scripted:turns.yaml"`` in agent code names a file beside the code, as
    ``model: scripted:turns.yaml`` in a config names one beside the config (not one in the
    folder the command runs in)."""
    for agent in root.walk():
        model = getattr(agent, "model", None)
        if isinstance(model, str) and model.startswith("scripted:"):
            path = Path(model.removeprefix("scripted:"))
            if path.parts and not path.is_absolute():
                agent.model = f"scripted:{folder / path}"


def _check_declarations(root: Any) -> None:
    """Build every function tool's declaration in the agent tree now, as a config's are at load:
    a parameter that cannot become a schema is an error at the function's ``def`` line (the
    message the first model call would give), every such tool at once."""
    from yadk.agents import BaseAgent
    from yadk.tools import FunctionTool

    diagnostics: list[Diagnostic] = []
    pending, seen = [root], set()
    while pending:
        agent = pending.pop()
        if id(agent) in seen:
            continue
        seen.add(id(agent))
        pending.extend(getattr(agent, "sub_agents", None) or ())
        try:
            units = agent.tool_units() if hasattr(agent, "tool_units") else []
        except AgentDefinitionError:
            continue  # reported when the agent runs, as before
        for unit in units:
            if isinstance(getattr(unit, "agent", None), BaseAgent):
                pending.append(unit.agent)  # an AgentTool's agent
            if not isinstance(unit, FunctionTool):
                continue
            try:
                unit.check_declaration()
            except ToolDeclarationError as exc:
                diagnostics.append(
                    Diagnostic(
                        exc.file or "",
                        exc.line,
                        1,
                        "tool-declaration",
                        "error",
                        exc.problem,
                        exc.hint,
                    )
                )
    if diagnostics:
        raise ConfigError(diagnostics, "\n".join(d.format() for d in diagnostics))


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def load_python_agent(file: Path) -> tuple[Any, set[str], Any]:
    """The ``root_agent`` that ``file`` defines, the names of the modules imported from its
    folder, and its ``app`` (a yadk ``App``, or None); ``ConfigError`` (with a located
    diagnostic) when the agent cannot be had."""
    folder = file.parent
    parent = str(folder.parent)
    if parent not in sys.path:
        sys.path.insert(0, parent)
    install()
    module_name = folder.name if file.name == "__init__.py" else f"{folder.name}.agent"
    before = set(sys.modules)
    try:
        module = importlib.import_module(module_name)
    except (Exception, SystemExit) as exc:
        raise _problem(
            file,
            *_where(exc, folder),
            "import-failed",
            f"Importing `{module_name}` failed: {type(exc).__name__}: {exc}",
            "Fix the error in the agent's code.",
        ) from None
    agent, app = _root_of(module)
    if agent is None and file.name == "__init__.py" and (folder / "agent.py").is_file():
        agent, app = _root_of(importlib.import_module(f"{folder.name}.agent"))
    from yadk.agents import BaseAgent

    if agent is None:
        raise _problem(
            file,
            0,
            0,
            "missing-root-agent",
            f"{file.name} defines no `root_agent`.",
            "Define the agent as `root_agent = LlmAgent(...)` (from yadk import LlmAgent),"
            " or add a root_agent.yaml to the folder.",
        )
    if not isinstance(agent, BaseAgent):
        adk = adk_object_problem("root_agent", agent, "a yadk agent")
        if adk is not None:
            raise _problem(file, 0, 0, "adk-object", *adk)
        what = f"a {type(agent).__name__}"
        raise _problem(
            file,
            0,
            0,
            "wrong-kind",
            f"`root_agent` is {what}, expected a yadk agent.",
            "Build it with yadk's API: `from yadk import LlmAgent` (google-adk's arguments).",
        )
    _anchor_scripted_models(agent, folder)
    _check_declarations(agent)
    prefixes = (str(folder) + os.sep, os.path.realpath(folder) + os.sep)
    modules = {
        name
        for name in set(sys.modules) - before | {module_name}
        if str(getattr(sys.modules.get(name), "__file__", "") or "").startswith(prefixes)
    }
    from yadk.apps import App

    return agent, modules, app if isinstance(app, App) else None


def _root_of(module: Any) -> tuple[Any, Any]:
    """The module's ``app``'s root agent and the app (google-adk looks for ``app`` first), else
    its ``root_agent`` (and no app)."""
    app = getattr(module, "app", None)
    if app is not None and hasattr(app, "root_agent"):
        return app.root_agent, app
    return getattr(module, "root_agent", None), None


def _where(exc: BaseException, folder: Path) -> tuple[int, int]:
    if isinstance(exc, SyntaxError) and exc.lineno:
        return exc.lineno, exc.offset or 1
    line = 0
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename.startswith(str(folder)):
            line = frame.lineno or 0
    return line, 1 if line else 0


def _problem(file: Path, line: int, column: int, rule: str, message: str, hint: str) -> ConfigError:
    diagnostic = Diagnostic(str(file), line, column, rule, "error", message, hint)
    return ConfigError([diagnostic], diagnostic.format())
