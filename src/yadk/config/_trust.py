"""The trust policy for code that YAML may reach: which modules, and who may receive ``args:``.

A config can name Python objects, so a config is code. Two rules keep a config from doing more
than its project intends:

* References may not name the standard library (all of it: ``os``, ``subprocess``, but also
  ``timeit``/``cProfile`` which execute strings), nor YAML machinery (``yaml``, ``ruamel``,
  ``yadk.config``) whose unsafe loaders build objects from text. This is always enforced.
* ``args:`` (data passed to a constructor or factory) reaches only built-in tools, classes and
  functions that declare the argument names they accept from YAML
  (``yadk_config_args = {"name", ...}``), and names the project trusts in ``pyproject.toml``::

      [tool.yadk]
      trusted_modules = ["my_agents"]          # anything under these packages
      allow_args = ["vendor.tools.Search"]     # exactly these names
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

__all__ = [
    "ARGS_ATTRIBUTE",
    "TrustPolicy",
    "blocked_module",
    "declared_args",
    "find_trust_policy",
    "origin_module",
]

ARGS_ATTRIBUTE: Final = "yadk_config_args"

# Not in sys.stdlib_module_names on every supported Python, or not standard library at all, but
# able to execute text handed to them: dropped-from-stdlib modules that come back from PyPI,
# CPython's test packages, and YAML libraries whose unsafe loaders build arbitrary objects.
_ALSO_BLOCKED: Final = frozenset(
    {
        "_testcapi",
        "_testinternalcapi",
        "asynchat",
        "asyncore",
        "cgi",
        "commands",
        "crypt",
        "distutils",
        "imp",
        "mailcap",
        "nntplib",
        "pipes",
        "ruamel",
        "smtpd",
        "telnetlib",
        "test",
        "uu",
        "yaml",
    }
)
_BLOCKED_TOP: Final = (
    frozenset(sys.stdlib_module_names) | frozenset(sys.builtin_module_names) | _ALSO_BLOCKED
)
_BLOCKED_PACKAGES: Final = ("yadk.config",)


def blocked_module(qualified_name: str) -> str | None:
    """The blocked module ``qualified_name`` would import, or ``None`` when it is allowed."""
    top = qualified_name.split(".", 1)[0]
    if top in _BLOCKED_TOP:
        return top
    for package in _BLOCKED_PACKAGES:
        if qualified_name == package or qualified_name.startswith(package + "."):
            return package
    return None


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
    import functools
    import inspect

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
    """What a project allows beyond the defaults, read from ``[tool.yadk]`` in pyproject.toml."""

    trusted_modules: tuple[str, ...] = ()
    allow_args: tuple[str, ...] = ()
    source: Path | None = None

    def allows_args(self, qualified_name: str) -> bool:
        """Whether the project lets ``qualified_name`` receive any ``args:``."""
        if qualified_name in self.allow_args:
            return True
        return any(
            qualified_name == module or qualified_name.startswith(module + ".")
            for module in self.trusted_modules
        )


_cache: dict[Path, tuple[float, TrustPolicy, list[str]]] = {}


def find_trust_policy(start: Path) -> tuple[TrustPolicy, list[str]]:
    """The policy of the nearest ``pyproject.toml`` at or above ``start``, and problems with it.

    The first pyproject.toml found decides, even without a ``[tool.yadk]`` table (then nothing
    beyond the defaults is trusted).
    """
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        try:
            mtime = candidate.stat().st_mtime
        except OSError:
            continue
        cached = _cache.get(candidate)
        if cached is not None and cached[0] == mtime:
            return cached[1], list(cached[2])
        policy, problems = _read(candidate)
        _cache[candidate] = (mtime, policy, problems)
        return policy, list(problems)
    return TrustPolicy(), []


def _read(path: Path) -> tuple[TrustPolicy, list[str]]:
    import tomllib

    try:
        with open(path, "rb") as handle:
            table = tomllib.load(handle).get("tool", {}).get("yadk", {})
    except (OSError, tomllib.TOMLDecodeError) as exc:
        return TrustPolicy(source=path), [f"cannot read the [tool.yadk] table: {exc}"]
    problems: list[str] = []
    values: dict[str, tuple[str, ...]] = {}
    for key in ("trusted_modules", "allow_args"):
        raw = table.get(key, [])
        if not isinstance(raw, list) or not all(isinstance(item, str) for item in raw):
            problems.append(f"[tool.yadk] {key} must be a list of strings")
            raw = []
        values[key] = tuple(_checked(raw, key, problems))
    return (
        TrustPolicy(values["trusted_modules"], values["allow_args"], source=path),
        problems,
    )


def _checked(names: Iterable[str], key: str, problems: list[str]) -> Iterable[str]:
    for name in names:
        blocked = blocked_module(name)
        if blocked is not None:
            problems.append(
                f"[tool.yadk] {key} cannot trust {name!r}: the {blocked!r} module is always blocked"
            )
            continue
        yield name
