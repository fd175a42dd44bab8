"""Python agent folders (google-adk's convention): ``agent.py``, or a package ``__init__.py``,
defining ``root_agent`` (or ``app = App(...)``), with yadk's Python API or google-adk's (served
by yadk.adk_compat). Loaded through the same path as YAML configs, so run, dev (with reload),
inspect, serve, web and eval accept them alike."""

from __future__ import annotations

import importlib
import os
import re
import sys
import traceback
from pathlib import Path
from typing import Any

from yadk.config._diagnostics import Diagnostic
from yadk.errors import ConfigError

__all__ = ["load_python_agent", "python_agent_file"]


# ``app = App(...)`` at module level (google-adk looks for ``app`` before ``root_agent``).
_APP = re.compile(r"^app\s*(:[^=]*)?=", re.MULTILINE)


def python_agent_file(folder: Path, *, mentions_root_agent: bool = False) -> Path | None:
    """``agent.py`` (preferred) or ``__init__.py`` of ``folder``, when it could define
    ``root_agent`` or ``app`` (an ``__init__.py`` must mention one; ``mentions_root_agent``: so
    must ``agent.py``, as when searching a tree, where a module named agent.py may be no agent)."""
    for name in ("agent.py", "__init__.py"):
        candidate = folder / name
        if not candidate.is_file():
            continue
        if name == "agent.py" and not mentions_root_agent:
            return candidate
        text = _read(candidate)
        if "root_agent" in text or _APP.search(text):
            return candidate
    return None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def load_python_agent(file: Path) -> tuple[Any, set[str]]:
    """The ``root_agent`` that ``file`` defines, and the names of the modules imported from its
    folder; ``ConfigError`` (with a located diagnostic) when it cannot be had."""
    from yadk.adk_compat import install

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
    agent = _root_of(module)
    if agent is None and file.name == "__init__.py" and (folder / "agent.py").is_file():
        agent = _root_of(importlib.import_module(f"{folder.name}.agent"))
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
        from yadk.config._refs import adk_object_problem

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
    prefixes = (str(folder) + os.sep, os.path.realpath(folder) + os.sep)
    modules = {
        name
        for name in set(sys.modules) - before | {module_name}
        if str(getattr(sys.modules.get(name), "__file__", "") or "").startswith(prefixes)
    }
    return agent, modules


def _root_of(module: Any) -> Any:
    """The module's ``app``'s root agent (google-adk looks for ``app`` first), else its
    ``root_agent``."""
    app = getattr(module, "app", None)
    if app is not None and hasattr(app, "root_agent"):
        return app.root_agent
    return getattr(module, "root_agent", None)


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
