"""Running agent code written for google-adk when google-adk is not installed.

A narrow import shim serves the names ADK agent code imports for types (``ToolContext``,
``CallbackContext``, ``ReadonlyContext``, ``LlmRequest``/``LlmResponse``, ``google.genai.types``'s
``Content``, ``Part``, ``FunctionCall``, ``FunctionResponse``, ``Blob``, ``GenerateContentConfig``)
from yadk's equivalents. The config layer installs it before importing code a config names; it is
never active when google-adk (or google-genai, for ``google.genai``) is importable, and
``--no-adk-compat`` (or ``YADK_ADK_COMPAT=0``) keeps it off. See docs/adk_compat.md.
"""

from yadk.adk_compat._finder import disable, enable, install, installed, real_package_importable
from yadk.adk_compat._imports import UnprovidedImport, unprovided_imports, unprovided_imports_in
from yadk.adk_compat._table import PROVIDED

__all__ = [
    "PROVIDED",
    "UnprovidedImport",
    "disable",
    "enable",
    "install",
    "installed",
    "real_package_importable",
    "unprovided_imports",
    "unprovided_imports_in",
]
