"""Package facades whose names load on first use (PEP 562).

A facade lists its public names in ``__all__``, imports them under ``TYPE_CHECKING`` for type
checkers, and hands the name -> private module table to ``lazy_facade``::

    __getattr__, __dir__ = lazy_facade(globals(), {"Skill": "yadk.skills._models", ...})

so ``import yadk.skills`` costs nothing until a name is used, and a command that needs one
private module (``yadk validate`` needs the skill checks, not the toolset) imports only that.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_facade"]


def lazy_facade(
    namespace: dict[str, Any], names: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of the package whose ``globals()`` is
    ``namespace``: ``names`` maps each lazy attribute to the module that defines it."""
    package = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value  # later lookups find it without calling __getattr__
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *namespace.get("__all__", ())})

    return __getattr__, __dir__
