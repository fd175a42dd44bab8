"""The trust policy for code that YAML may reach: which modules, and who may receive ``args:``.

A config can name Python objects, so a config is code. These rules keep a config from doing more
than its project intends:

* What a config may reach at all is an allowlist (``_reach``): the agent folder's own modules,
  yadk's built-ins, and what the project trusts (below).
* References may never name the standard library (all of it: ``os``, ``subprocess``, but also
  ``timeit``/``cProfile`` which execute strings), nor YAML machinery (``yaml``, ``ruamel``,
  ``yadk.config``) whose unsafe loaders build objects from text, whatever the project trusts.
* ``args:`` (data passed to a constructor or factory) reaches only built-in tools, classes and
  functions that declare the argument names they accept from YAML
  (``yadk_config_args = {"name", ...}``), and names the project trusts.
* Code a config makes run on this machine (``CODE_EXECUTION_KINDS``) and ``${env:...}`` values
  sent to a server need the project's opt-in too::

      [tool.yadk]
      trusted_modules = ["my_agents"]          # reachable, and anything under them takes args
      allow_args = ["vendor.tools.Search"]     # exactly these names
      trust_project = true                     # the project's own packages are reachable
      allow_code_execution = ["stdio_mcp"]     # or "skill_scripts", or true for every kind
      trusted_hosts = ["mcp.example.com"]      # ${env:...} may be sent there

Trust is the user's, not the config's: it comes from the project root (the nearest
pyproject.toml at or above the working directory), ``yadk --trust`` and
``yadk --allow-code-execution``. A pyproject.toml inside or above an agent folder can narrow it,
never widen it: an agent folder cannot vouch for itself. (Reading those files: ``_pyproject``.)
Whether a name is blocked is judged by the module that *defines* the object (``origin_module``),
so ``from subprocess import check_output`` in some package does not launder it.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import ipaddress
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

from yadk._blocked_modules import blocked_module

__all__ = [
    "ARGS_ATTRIBUTE",
    "CODE_EXECUTION_KINDS",
    "TrustPolicy",
    "TrustProblem",
    "allow_code_execution_on_command_line",
    "blocked_module",
    "command_line_code_execution",
    "command_line_trust",
    "declared_args",
    "origin_module",
    "trust_on_command_line",
]

ARGS_ATTRIBUTE: Final = "yadk_config_args"
# What a config can make run on this machine, each needing the project's opt-in
# (`allow_code_execution` under [tool.yadk], or `--allow-code-execution KIND`).
CODE_EXECUTION_KINDS: Final = ("skill_scripts", "stdio_mcp")


def declared_args(obj: Any) -> frozenset[str] | None:
    """The argument names ``obj`` (a class or function) declares safe to take from YAML."""
    declared = getattr(obj, ARGS_ATTRIBUTE, None)
    if declared is None or isinstance(declared, (str, bytes)):
        return None
    try:
        return frozenset(str(name) for name in declared)
    except TypeError:
        return None


def origin_module(obj: Any, _depth: int = 0) -> str | None:
    """The module that defines ``obj``, whatever name it was imported under; for callables only
    (data cannot run code). ``functools.partial`` objects and bound methods count as what they
    wrap, other callable instances as their class."""
    if _depth > 8 or not callable(obj):
        return None
    if isinstance(obj, functools.partial):
        return origin_module(obj.func, _depth + 1)
    if inspect.ismethod(obj):
        return origin_module(obj.__func__, _depth + 1)
    if inspect.isclass(obj) or inspect.isfunction(obj) or inspect.isbuiltin(obj):
        module = getattr(obj, "__module__", None)
        if isinstance(module, str):
            return module
        owner = getattr(obj, "__self__", None)
        if inspect.ismodule(owner):
            return owner.__name__
        return None if owner is None else type(owner).__module__
    module = getattr(type(obj), "__module__", None)
    return module if isinstance(module, str) else None


@dataclasses.dataclass(frozen=True)
class TrustPolicy:
    """What a project allows beyond the defaults, read from ``[tool.yadk]`` in pyproject.toml.

    ``narrowed_by`` are the ``[tool.yadk]`` tables of pyproject.toml files nested between the
    project root and a config: a name passes only if every one of them allows it too.
    """

    trusted_modules: tuple[str, ...] = ()
    allow_args: tuple[str, ...] = ()
    source: Path | None = None
    narrowed_by: tuple[TrustPolicy, ...] = ()
    code_execution: frozenset[str] = frozenset()
    trust_project: bool = False
    trusted_hosts: tuple[str, ...] = ()

    def trusts_host(self, host: str) -> bool:
        """Whether configs may send ``${env:...}`` values to ``host``: a loopback address or
        name, or a host under ``trusted_hosts`` (``api.example.com``, ``*.example.com``)."""
        return _loopback(host) or self._lists_host(host)

    def _lists_host(self, host: str) -> bool:
        host = host.lower().rstrip(".")
        own = any(
            host == pattern or (pattern.startswith("*.") and host.endswith(pattern[1:]))
            for pattern in (p.lower().rstrip(".") for p in self.trusted_hosts)
        )
        return own and all(nested._lists_host(host) for nested in self.narrowed_by)

    def allows_code_execution(self, kind: str) -> bool:
        """Whether configs may make code of ``kind`` (one of ``CODE_EXECUTION_KINDS``) run on
        this machine: skill scripts, stdio MCP servers' commands."""
        return kind in self.code_execution and all(
            nested.allows_code_execution(kind) for nested in self.narrowed_by
        )

    def allows_stdio_mcp_servers(self) -> bool:
        """Whether configs may declare stdio MCP servers (whose ``command`` yadk launches)."""
        return self.allows_code_execution("stdio_mcp")

    def trusts_project(self) -> bool:
        """Whether configs may reach the project's own modules (files under the project root,
        outside virtual environments and installed packages)."""
        return self.trust_project and all(nested.trusts_project() for nested in self.narrowed_by)

    def reaches(self, qualified_name: str) -> bool:
        """Whether the project trusts ``qualified_name`` (a module, or an object by its dotted
        name) explicitly: under ``trusted_modules``/``--trust``, or listed in ``allow_args``."""
        return self.trusts_module(qualified_name) or self.allows_args(qualified_name)

    def allows_args(self, qualified_name: str) -> bool:
        """Whether the project lets ``qualified_name`` receive any ``args:``."""
        return self._own_allows(qualified_name) and all(
            nested.allows_args(qualified_name) for nested in self.narrowed_by
        )

    def trusts_module(self, name: str) -> bool:
        """Whether ``name`` is under ``trusted_modules`` (or ``--trust``), here and in every
        narrowing table: ``yadk validate --import`` imports a Python agent folder only then."""
        own = any(
            name == module or name.startswith(module + ".") for module in self.trusted_modules
        )
        return own and all(nested.trusts_module(name) for nested in self.narrowed_by)

    def _own_allows(self, qualified_name: str) -> bool:
        if qualified_name in self.allow_args:
            return True
        return any(
            qualified_name == module or qualified_name.startswith(module + ".")
            for module in self.trusted_modules
        )


def _loopback(host: str) -> bool:
    name = host.lower().rstrip(".").strip("[]")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


@dataclasses.dataclass(frozen=True)
class TrustProblem:
    """A problem with a ``[tool.yadk]`` table, at a 1-based line and column of its file."""

    path: Path
    line: int
    column: int
    rule: str
    message: str
    hint: str = ""
    severity: str = "error"


# Modules trusted on the command line (`yadk --trust MODULE ...`), on top of the project root's.
_command_line_trust: list[str] = []


def trust_on_command_line(modules: Iterable[str]) -> None:
    """Trust ``modules`` for this process as ``[tool.yadk] trusted_modules`` of the project root
    would (the CLI's ``--trust``); standard-library modules stay blocked."""
    _command_line_trust[:] = list(modules)


def command_line_trust() -> list[str]:
    """The modules ``trust_on_command_line`` trusts."""
    return list(_command_line_trust)


# Kinds of code execution allowed on the command line (`yadk --allow-code-execution KIND`).
_command_line_execution: list[str] = []


def allow_code_execution_on_command_line(kinds: Iterable[str]) -> None:
    """Allow ``kinds`` of code execution (``CODE_EXECUTION_KINDS``, or ``all``) for this process,
    as ``[tool.yadk] allow_code_execution`` of the project root would."""
    _command_line_execution[:] = list(kinds)


def command_line_code_execution() -> frozenset[str]:
    """The kinds ``allow_code_execution_on_command_line`` allows (``all`` expanded)."""
    if "all" in _command_line_execution:
        return frozenset(CODE_EXECUTION_KINDS)
    return frozenset(k for k in _command_line_execution if k in CODE_EXECUTION_KINDS)
