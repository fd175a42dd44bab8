"""Which code a config may reach: an allowlist, judged by both the name a config writes and the
module that really defines the object.

A config reaches, by default:

* the agent folder's own modules (``.tools.search``, ``my_agent.tools.search``, ``tools.search``
  for files inside the folder of the root config, symlinks resolved);
* yadk's built-ins, through its public facades (``yadk.tools.exit_loop``); google-adk's names
  for them are mapped to these before any import (``_dialect``);
* what the project root trusts explicitly: ``trusted_modules`` / ``allow_args`` under
  ``[tool.yadk]`` or ``yadk --trust PACKAGE``;
* the project's own packages (files under the project root, outside virtual environments and
  installed packages), when the project root sets ``trust_project = true``.

Anything else, any installed package included, is refused: a config is untrusted input, and an
installed package's helpers (``pip._internal.utils.misc.rmtree``, ``jinja2.utils.open_if_exists``)
make a tool out of a file deletion or a process launch. The name a config writes and the module
that defines the object must both be reachable, so a re-export through an allowed module cannot
launder a third-party function.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path
from typing import Any, Final

from yadk.config._trust import TrustPolicy, origin_module

__all__ = ["CodeSource", "object_source", "unreachable"]

# yadk's facades a config may name; what they export is built-in tools, agents, models, example
# stores and types. The CLI, the server, the reload machinery, the config layer and the file
# helpers are not tools.
_YADK_FACADES: Final = frozenset(
    {
        "yadk",
        "yadk.agents",
        "yadk.apps",
        "yadk.code_executors",
        "yadk.events",
        "yadk.examples",
        "yadk.memory",
        "yadk.models",
        "yadk.tools",
        "yadk.types",
        "yadk.workflow",
    }
)
# yadk modules an object reached through a facade may not be defined in.
_YADK_CLOSED: Final = ("yadk.cli", "yadk.config", "yadk.reload", "yadk.serve")
_ENVIRONMENT_PARTS: Final = frozenset({"site-packages", "dist-packages", "node_modules"})


@dataclasses.dataclass(frozen=True)
class CodeSource:
    """A module and, when known, the file it was loaded (or would be loaded) from."""

    module: str
    file: str | None


def object_source(obj: Any) -> CodeSource | None:
    """The module that defines ``obj`` (a class's for an instance; what a yadk ``FunctionTool``
    wraps for one), with its file; None for plain data."""
    func = getattr(obj, "func", None)
    if callable(func) and type(obj).__module__.startswith("yadk."):
        wrapped = object_source(func)
        if wrapped is not None and not wrapped.module.startswith("yadk."):
            return wrapped
    module = origin_module(obj)
    if module is None and not isinstance(obj, type(sys)):
        module = type(obj).__module__
        if module == "builtins":
            return None  # a str, a list, a dict: data runs nothing
    if module is None:
        return None
    return CodeSource(module, getattr(sys.modules.get(module), "__file__", None))


def unreachable(
    named: CodeSource,
    origin: CodeSource | None,
    *,
    qualified_name: str,
    agent_folder: Path,
    policy: TrustPolicy,
) -> CodeSource | None:
    """The first of ``named`` (the module a config writes) and ``origin`` (the module defining
    the object) the config may not reach, or None when both are allowed."""
    if not _reachable(named, qualified_name, agent_folder, policy, facade=True):
        return named
    if origin is not None and origin.module != named.module:
        target = f"{origin.module}.{qualified_name.rsplit('.', 1)[-1]}"
        if not _reachable(origin, target, agent_folder, policy, facade=False):
            return origin
    return None


def _reachable(
    source: CodeSource, name: str, agent_folder: Path, policy: TrustPolicy, *, facade: bool
) -> bool:
    module = source.module
    if module == "yadk" or module.startswith("yadk."):
        if facade:
            return module in _YADK_FACADES
        return not any(module == m or module.startswith(m + ".") for m in _YADK_CLOSED)
    if policy.reaches(module) or policy.reaches(name):
        return True
    if source.file is None:
        return False
    real = os.path.realpath(source.file)
    if _within(real, os.path.realpath(agent_folder)):
        return True
    if policy.trusts_project() and policy.source is not None:
        return _project_file(real, os.path.realpath(policy.source.parent))
    return False


def _within(path: str, folder: str) -> bool:
    try:
        return os.path.commonpath([path, folder]) == folder
    except ValueError:  # different drives
        return False


def _project_file(path: str, root: str) -> bool:
    """Whether ``path`` is the project's own source: under ``root``, not in a virtual
    environment, an installed package, or a hidden folder (``.venv``, ``.tox``)."""
    if not _within(path, root):
        return False
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    if any(_within(path, prefix) for prefix in prefixes if prefix != root):
        return False
    parts = Path(os.path.relpath(path, root)).parts[:-1]
    return not any(p in _ENVIRONMENT_PARTS or p.startswith(".") or p == "venv" for p in parts)
