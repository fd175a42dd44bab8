"""Instruction templates: ``{var}``, ``{var?}``, ``{artifact.name}``, and the Jinja2 engine.

``inject_session_state`` renders an instruction against a context's session state, exactly as
google-adk 2.13 does (same placeholders, same errors), with templates compiled once per text.
``find_placeholders`` reports what a template reads and the near-misses that would silently stay
literal, for ``yadk validate`` and editors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from yadk._lazy import lazy_facade

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

# For yadk's own packages; not part of the public contract (``__all__``). Loaded on first
# use (table below), as the names above are.
if TYPE_CHECKING:
    from yadk.templating._syntax import is_valid_state_name as is_valid_state_name

# Loaded on first use: the linter needs find_placeholders without the engine behind injection.
__getattr__, __dir__ = lazy_facade(
    globals(),
    {
        "InstructionProvider": "yadk.templating._inject",
        "Placeholder": "yadk.templating._placeholders",
        "artifact_to_text": "yadk.templating._artifacts",
        "clear_template_caches": "yadk.templating._cache",
        "find_placeholders": "yadk.templating._placeholders",
        "inject_session_state": "yadk.templating._inject",
        # for yadk's own packages; not part of the public contract
        "is_valid_state_name": "yadk.templating._syntax",
    },
)
