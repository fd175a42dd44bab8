"""The import shim: ``google.adk`` / ``google.genai`` modules served from yadk's objects.

Installed (once, process-wide) when yadk loads code from a config or an agent folder. It goes
first on ``sys.meta_path``, so it takes precedence over an installed google-adk or google-genai:
code yadk loads gets yadk's objects either way (yadk's engine runs only its own), and
``--no-adk-compat`` / ``YADK_ADK_COMPAT=0`` keep it off (google-adk's own modules are then
imported, and yadk reports their objects as google-adk's). A module's names resolve on first
use; a google-adk name the shim does not provide raises an ``ImportError`` that says why and
what yadk offers instead.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import types
from collections.abc import Callable, Sequence
from typing import Any

from yadk.adk_compat._table import (
    MODULES,
    ROOTS,
    is_shim_module,
    provided_names,
    target_available,
    target_of,
    unprovided_reason,
    value_of,
)

__all__ = [
    "disable",
    "enable",
    "install",
    "installed",
    "real_package_importable",
    "shim_active",
]

_state: dict[str, Any] = {"finder": None, "disabled": False}


def real_package_importable(root: str) -> bool:
    """Whether ``root`` (``google.adk`` or ``google.genai``) is really installed (on
    ``sys.path``, whatever the shim serves)."""
    try:
        google = importlib.machinery.PathFinder.find_spec("google")
        if google is None or not google.submodule_search_locations:
            return False
        found = importlib.machinery.PathFinder.find_spec(
            root, list(google.submodule_search_locations)
        )
        return found is not None
    except (ImportError, ValueError):
        return False


def shim_active() -> bool:
    """Whether code yadk loads gets the shim (it is installed, or will be when code loads)."""
    return not _switched_off()


def _switched_off() -> bool:
    return bool(_state["disabled"]) or os.environ.get("YADK_ADK_COMPAT", "").strip() == "0"


def disable() -> None:
    """``--no-adk-compat``: never install the shim in this process (and remove it if it was)."""
    _state["disabled"] = True
    finder = _state["finder"]
    if finder is not None:
        sys.meta_path.remove(finder)
        for name in [n for n in sys.modules if n == "google" or n.startswith(ROOTS)]:
            if getattr(sys.modules[name], "__yadk_shim__", False):
                del sys.modules[name]
        _state["finder"] = None


def enable() -> None:
    """Undo ``disable()``: the next ``install()`` may install the shim again."""
    _state["disabled"] = False


def installed() -> bool:
    return _state["finder"] is not None


def install() -> bool:
    """Install the shim (unless switched off); whether it is active.

    Modules of a real google-adk / google-genai imported before are forgotten, so code loaded
    from now on imports the shim's (objects already built from them stay what they are).
    """
    if _switched_off():
        return False
    if _state["finder"] is not None:
        return True
    finder = _ShimFinder()
    for name in [n for n in sys.modules if n.startswith(ROOTS)]:
        del sys.modules[name]
    sys.meta_path.insert(0, finder)
    _state["finder"] = finder
    return True


class _ShimFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname == "google":
            # A real ``google`` namespace (protobuf, ...) stays; the shim serves below it.
            if importlib.machinery.PathFinder.find_spec("google") is not None:
                return None
        elif not fullname.startswith(ROOTS) or fullname.split(".")[1] not in ("adk", "genai"):
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        name = module.__name__
        if not is_shim_module(name):
            raise ImportError(unprovided_reason(name), name=name)
        module.__path__ = []
        module.__yadk_shim__ = True  # type: ignore[attr-defined]
        names = provided_names(name)
        module.__all__ = sorted(names)  # type: ignore[attr-defined]
        setattr(module, "__getattr__", _attribute_getter(name))  # noqa: B010
        module.__doc__ = (
            f"google-adk's `{name}`, served by yadk's compatibility layer (yadk.adk_compat)."
        )

    def __repr__(self) -> str:
        return "yadk adk-compat shim (google.adk, google.genai)"


def _attribute_getter(module_name: str) -> Callable[[str], Any]:
    """A module's ``__getattr__``: a provided name resolves to yadk's object (then cached in the
    module), a submodule imports, anything else fails with the reason."""

    def __getattr__(name: str) -> Any:
        module = sys.modules[module_name]
        if name.startswith("__"):
            raise AttributeError(name)
        submodule = f"{module_name}.{name}"
        if submodule in MODULES:
            value: Any = importlib.import_module(submodule)
        else:
            target = target_of(module_name, name)
            if target is None:
                raise ImportError(unprovided_reason(module_name, name), name=submodule)
            if not target_available(target):  # yadk.apps / yadk.workflow, in a yadk without them
                raise ImportError(unprovided_reason(module_name, name), name=submodule)
            value = value_of(target)
        setattr(module, name, value)
        return value

    return __getattr__
