"""Instruction templates: ``{var}``, ``{var?}``, ``{artifact.name}``, and the Jinja2 engine.

``inject_session_state`` renders an instruction against a context's session state, exactly as
google-adk 2.13 does (same placeholders, same errors), with templates compiled once per text.
``find_placeholders`` reports what a template reads and the near-misses that would silently stay
literal, for ``yadk validate`` and editors.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from yadk.templating._artifacts import artifact_to_text
    from yadk.templating._cache import clear_template_caches
    from yadk.templating._inject import InstructionProvider, inject_session_state
    from yadk.templating._placeholders import Placeholder, find_placeholders

__all__ = [
    "InstructionProvider",
    "Placeholder",
    "artifact_to_text",
    "clear_template_caches",
    "find_placeholders",
    "inject_session_state",
]

# Loaded on first use: the linter needs find_placeholders without the engine behind injection.
_LAZY = {
    "InstructionProvider": "yadk.templating._inject",
    "Placeholder": "yadk.templating._placeholders",
    "artifact_to_text": "yadk.templating._artifacts",
    "clear_template_caches": "yadk.templating._cache",
    "find_placeholders": "yadk.templating._placeholders",
    "inject_session_state": "yadk.templating._inject",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'yadk.templating' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
