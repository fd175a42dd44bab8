"""The placeholder grammar of the default engine: what counts as ``{name}``, ``{name?}``,
``{artifact.file}``, and which names are state names.

Both the compiler and the linter read templates through this module, so they cannot disagree.
"""

from __future__ import annotations

import re
from typing import Final, Literal, NamedTuple

__all__ = [
    "ARTIFACT_PREFIX",
    "PLACEHOLDER_PATTERN",
    "STATE_PREFIXES",
    "Inner",
    "is_valid_state_name",
    "parse_inner",
]

# A run of "{", brace-free text, a run of "}". The look-behind keeps "${x}" (config-style
# substitution) and "\{x}" literal; it also stops a match from starting inside a "{{" run, so the
# whole run is consumed with the placeholder ("{{x}}" renders the value, braces and all).
PLACEHOLDER_PATTERN: Final = re.compile(r"(?<![${\\])\{+[^{}]*\}+")

ARTIFACT_PREFIX: Final = "artifact."
STATE_PREFIXES: Final = ("app:", "user:", "temp:")

Kind = Literal["state", "artifact", "literal"]


class Inner(NamedTuple):
    """What one regex match means: its name, whether it ends in ``?``, and how it renders."""

    name: str
    optional: bool
    kind: Kind


def is_valid_state_name(name: str) -> bool:
    """Whether ``name`` is a state key a placeholder may name: an identifier, or one of the
    ``app:``/``user:``/``temp:`` prefixes followed by an identifier."""
    prefix, sep, rest = name.partition(":")
    if not sep:
        return name.isidentifier()
    return prefix + sep in STATE_PREFIXES and rest.isidentifier()


def parse_inner(raw: str) -> Inner:
    """Interpret the text of one match (braces included), exactly as the renderer does.

    The inner text is stripped once, then a single trailing ``?`` is removed and the rest is not
    stripped again: ``{ name? }`` is optional ``name`` but ``{name ?}`` is no placeholder at all.
    """
    name = raw.lstrip("{").rstrip("}").strip()
    optional = name.endswith("?")
    if optional:
        name = name[:-1]
    if name.startswith(ARTIFACT_PREFIX):
        return Inner(name[len(ARTIFACT_PREFIX) :], optional, "artifact")
    if is_valid_state_name(name):
        return Inner(name, optional, "state")
    return Inner(name, optional, "literal")
