"""The import shim: ``google.adk`` / ``google.genai`` modules served from yadk's types.

Installed (once, process-wide) when yadk loads code from a config and the real package is not
importable; never when it is. Only the modules and names of ``PROVIDED`` exist; importing any
other ``google.adk`` module raises an ``ImportError`` that says the shim does not provide it.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import types
from collections.abc import Sequence
from typing import Any

from yadk.adk_compat._table import PROVIDED, value_of

__all__ = ["disable", "enable", "install", "installed", "real_package_importable"]

_ROOTS = ("google.adk", "google.genai")
_state: dict[str, Any] = {"finder": None, "disabled": False}


def real_package_importable(root: str) -> bool:
    """Whether ``root`` (``google.adk`` or ``google.genai``) is really installed."""
    finder = _state["finder"]
    if finder is not None and root in finder.roots:
        return False
    try:
        return importlib.util.find_spec(root) is not None
    except (ImportError, ValueError):
        return False


def disable() -> None:
    """``--no-adk-compat``: never install the shim in this process (and remove it if it was)."""
    _state["disabled"] = True
    finder = _state["finder"]
    if finder is not None:
        sys.meta_path.remove(finder)
        for name in [n for n in sys.modules if n.startswith(finder.roots)]:
            if getattr(sys.modules[name], "__yadk_shim__", False):
                del sys.modules[name]
        _state["finder"] = None


def enable() -> None:
    """Undo ``disable()``: the next ``install()`` may install the shim again."""
    _state["disabled"] = False


def installed() -> bool:
    return _state["finder"] is not None


def install() -> bool:
    """Install the shim for the roots that are not really importable; whether it is active.

    ``YADK_ADK_COMPAT=0`` in the environment (or ``disable()``) keeps it off.
    """
    if _state["disabled"] or os.environ.get("YADK_ADK_COMPAT", "").strip() == "0":
        return False
    if _state["finder"] is not None:
        return True
    roots = tuple(root for root in _ROOTS if not real_package_importable(root))
    if not roots:
        return False
    finder = _ShimFinder(roots)
    sys.meta_path.insert(0, finder)
    _state["finder"] = finder
    return True


class _ShimFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, roots: tuple[str, ...]) -> None:
        self.roots = roots

    def _covers(self, fullname: str) -> bool:
        if fullname == "google":
            return importlib.machinery.PathFinder.find_spec("google") is None
        return any(fullname == r or fullname.startswith(r + ".") for r in self.roots)

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if not self._covers(fullname):
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        name = module.__name__
        module.__path__ = []
        module.__yadk_shim__ = True  # type: ignore[attr-defined]
        provided = PROVIDED.get(name)
        if provided is None and not _is_parent(name):
            raise ImportError(
                f"`{name}` is not provided: google-adk is not installed, and yadk's compatibility"
                " shim only provides " + ", ".join(sorted(PROVIDED)) + ". Install google-adk, or"
                " import yadk's equivalent.",
                name=name,
            )
        for attribute, target in (provided or {}).items():
            setattr(module, attribute, value_of(target))
        if name == "google.genai":
            module.types = importlib.import_module("google.genai.types")  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return f"yadk adk-compat shim ({', '.join(self.roots)})"


def _is_parent(name: str) -> bool:
    """``google``, ``google.adk``, ``google.adk.agents``...: packages on the way to a provided
    module (empty, so ``from google.adk import Agent`` fails with a clear ImportError)."""
    return any(provided.startswith(name + ".") for provided in PROVIDED) or name in (
        "google",
        "google.adk",
        "google.genai",
    )
