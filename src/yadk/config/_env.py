"""``${env:VAR}`` and ``${env:VAR:-default}`` in config string values (a yadk addition).

A missing variable without a default is reported by name, never replaced by an empty string.
``$${env:VAR}`` writes the reference literally. Any other ``${...}`` is left alone: instruction
templates use ``${x}`` as literal text on purpose.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping

__all__ = ["EnvReference", "as_scalar", "env_references", "substitute_env", "whole_reference"]

_REFERENCE = re.compile(r"\$?\$\{env:(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?::-(?P<default>[^}]*))?\}")
_NUMBER = re.compile(r"[-+]?(?:\d+|\d*\.\d+(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+)")


@dataclasses.dataclass(frozen=True)
class EnvReference:
    """A variable a string refers to that is not set and has no default."""

    name: str
    offset: int


def substitute_env(
    text: str, environ: Mapping[str, str] | None = None
) -> tuple[str, list[EnvReference]]:
    """``text`` with every ``${env:...}`` replaced, and the unset variables without default."""
    if "${env:" not in text:
        return text, []
    env = os.environ if environ is None else environ
    missing: list[EnvReference] = []

    def replace(match: re.Match[str]) -> str:
        whole = match.group()
        if whole.startswith("$$"):
            return whole[1:]
        name = match.group("name")
        value = env.get(name)
        if value is not None:
            return value
        default = match.group("default")
        if default is not None:
            return default
        missing.append(EnvReference(name, match.start()))
        return whole

    return _REFERENCE.sub(replace, text), missing


def env_references(text: str) -> list[EnvReference]:
    """Every ``${env:...}`` reference in ``text`` (``$${env:...}`` is literal text, not one)."""
    if "${env:" not in text:
        return []
    return [
        EnvReference(match.group("name"), match.start())
        for match in _REFERENCE.finditer(text)
        if not match.group().startswith("$$")
    ]


def whole_reference(text: str) -> bool:
    """Whether ``text`` is exactly one ``${env:...}`` reference (so a number it yields may
    become a number, as if written unquoted)."""
    match = _REFERENCE.fullmatch(text)
    return match is not None and not text.startswith("$$")


def as_scalar(text: str) -> str | int | float | bool:
    """A substituted plain scalar read the way YAML reads numbers and ``true``/``false``."""
    if text in ("true", "false"):
        return text == "true"
    if _NUMBER.fullmatch(text):
        return float(text) if any(c in text for c in ".eE") else int(text)
    return text
