"""The modules no reference from outside code may name, whatever a project trusts: the standard
library (all of it: ``os``, ``subprocess``, but also ``timeit``/``cProfile`` which execute
strings), and YAML machinery (``yaml``, ``ruamel``, ``yadk.config``) whose unsafe loaders build
objects from text.

The rule the config layer's trust policy always enforces, here at the bottom so that the engine
(``ExampleTool``'s resolver of dotted names) applies the same rule without importing the config
layer.
"""

from __future__ import annotations

import sys
from typing import Final

__all__ = ["blocked_module"]

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
