"""What a model name says about the model (google-adk's tests on names), with no imports:
the config checker uses these without loading the engine."""

from __future__ import annotations

import re

__all__ = ["is_gemini_model", "supports_search_with_functions"]

_GEMINI = re.compile(r"^gemini-")
_GEMINI_VERSION = re.compile(r"^gemini-(\d+)")


def is_gemini_model(model: str | None) -> bool:
    """google-adk's test: the model name (after any ``provider/`` path) starts with ``gemini-``.
    yadk's offline ``ScriptedModel`` (named ``scripted...``) passes too, so configs using
    Gemini's built-in tools run in tests."""
    if not model:
        return False
    if model.startswith("scripted"):
        return True
    return _GEMINI.match(model.rsplit("/", 1)[-1].removeprefix("gemini:")) is not None


def supports_search_with_functions(model: str | None) -> bool:
    """Gemini 3 and later accept a built-in search next to function declarations."""
    name = (model or "").rsplit("/", 1)[-1]
    found = _GEMINI_VERSION.match(name)
    return found is not None and int(found.group(1)) >= 3
