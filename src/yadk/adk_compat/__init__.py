"""Running agent code written for google-adk on yadk, unchanged.

An import shim serves google-adk 2.13's public modules (``google.adk``, ``google.adk.agents``,
``google.adk.tools``, ``google.adk.runners``, ... and their submodules) and ``google.genai.types``
from yadk's objects, to the code yadk loads from a config or an agent folder. It takes
precedence over an installed google-adk; ``--no-adk-compat`` (or ``YADK_ADK_COMPAT=0``) keeps it
off. A name it does not provide fails at import (and in ``yadk validate``, at the import line)
with the reason and what yadk offers instead. See docs/adk_compat.md.
"""

from yadk.adk_compat._finder import (
    disable,
    enable,
    install,
    installed,
    real_package_importable,
    shim_active,
)
from yadk.adk_compat._imports import UnprovidedImport, unprovided_imports, unprovided_imports_in
from yadk.adk_compat._table import provided_names, unprovided_reason

__all__ = [
    "UnprovidedImport",
    "disable",
    "enable",
    "install",
    "installed",
    "provided_names",
    "real_package_importable",
    "shim_active",
    "unprovided_imports",
    "unprovided_imports_in",
    "unprovided_reason",
]
