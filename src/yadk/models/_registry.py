"""Model names to backends: ``resolve_model("scripted:turns.yaml")``, ``register_model(...)``.

A name is ``provider:model`` or a bare model name. Providers come from ``register_model`` calls
and from the ``yadk.models`` entry-point group (loaded lazily, once, one by one). Bare names are
matched against registered regular expressions (e.g. ``gemini-.*``).

A plugin that fails to load never stops the others: its error is kept and reported, naming the
plugin, when a model it would provide is asked for (``NAME:...`` for an entry point called
``NAME``, or a bare name nothing else matches).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

from yadk._model_names import BARE_NAMES, BARE_PATTERNS, did_you_mean
from yadk.errors import ModelError
from yadk.models._base import BaseLlm

__all__ = ["register_model", "registered_providers", "resolve_model", "serves"]

ModelFactory = Callable[[str], BaseLlm]

_providers: dict[str, ModelFactory] = {}
_patterns: list[tuple[re.Pattern[str], ModelFactory]] = []
_entry_points_loaded = False
_broken_plugins: dict[str, str] = {}  # entry-point name -> what went wrong

logger = logging.getLogger("yadk.models")


def register_model(
    provider: str | None = None,
    factory: ModelFactory | None = None,
    *,
    pattern: str | None = None,
) -> Any:
    """Register a backend factory for ``provider:NAME`` names, or for bare names matching ``pattern``.

    The factory receives the part after ``provider:`` (or the whole bare name). Usable as a
    decorator: ``@register_model("mine")``.
    """

    def add(fn: ModelFactory) -> ModelFactory:
        if provider is not None:
            _providers[provider] = fn
        if pattern is not None:
            _patterns.insert(0, (re.compile(pattern), fn))
        if provider is None and pattern is None:
            raise ValueError("register_model needs a provider name or a pattern")
        return fn

    return add(factory) if factory is not None else add


def registered_providers() -> list[str]:
    _load_entry_points()
    return sorted(_providers)


def serves(name: str) -> bool:
    """Whether a backend (built in, registered, or from a plugin) takes ``name``, without
    building the model."""
    _load_entry_points()
    provider, sep, _ = name.partition(":")
    if sep and provider in _providers:
        return True
    return any(regex.fullmatch(name) for regex, _ in _patterns)


def resolve_model(name: str | BaseLlm) -> BaseLlm:
    """The backend for a model name; raises ``ModelError`` naming the known providers."""
    if isinstance(name, BaseLlm):
        return name
    _load_entry_points()
    provider, sep, rest = name.partition(":")
    if sep and provider in _providers:
        return _providers[provider](rest)
    for regex, factory in _patterns:
        if regex.fullmatch(name):
            return factory(name)
    if sep and provider in _broken_plugins:
        raise ModelError(f"No model backend for {name!r}: {_broken_plugins[provider]}")
    known = ", ".join(f"{p}:..." for p in sorted(_providers))
    close = did_you_mean(name, _providers)
    suggestion = f" Did you mean {close!r}?" if close else ""
    if not sep:
        suggestion += f" For a model behind an OpenAI-compatible API, write 'openai:{name}'."
    broken = "".join(f" {problem}" for problem in _broken_plugins.values())
    raise ModelError(
        f"No model backend for {name!r}. Known: {known}, {BARE_NAMES}, and names registered with"
        f" yadk.models.register_model() or the 'yadk.models' entry-point group.{suggestion}{broken}"
    )


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    from importlib_metadata import entry_points

    for entry in entry_points(group="yadk.models"):
        try:
            entry.load()
        except Exception as exc:  # a broken plugin must not break the others
            problem = (
                f"Model plugin {entry.name!r} ({entry.value}) failed to load:"
                f" {type(exc).__name__}: {exc}. Fix or reinstall the package that provides it,"
                " or uninstall it."
            )
            _broken_plugins[entry.name] = problem
            logger.info("%s", problem)


def _scripted(path: str) -> BaseLlm:
    from yadk.models._scripted import ScriptedModel

    if not path:
        raise ModelError("'scripted:' needs a file path, e.g. --model scripted:turns.yaml")
    return ScriptedModel.from_file(path)


def _gemini(name: str) -> BaseLlm:
    # Imported on first use: ``import yadk.models`` stays free of urllib and the REST code.
    from yadk.models._gemini import Gemini

    if not name:
        raise ModelError("'gemini:' needs a model name, e.g. --model gemini:gemini-2.5-flash")
    return Gemini(name)


def _openai(name: str) -> BaseLlm:
    from yadk.models._openai import OpenAIChat

    if not name:
        raise ModelError(
            "'openai:' needs a model name, e.g. --model openai:gpt-4o-mini, or openai:llama3"
            " with OPENAI_BASE_URL=http://localhost:11434/v1"
        )
    return OpenAIChat(name)


def _anthropic(name: str) -> BaseLlm:
    from yadk.models._anthropic import AnthropicLlm

    if not name:
        raise ModelError(
            "'anthropic:' needs a model name, e.g. --model anthropic:claude-sonnet-4-5"
        )
    return AnthropicLlm(name)


register_model("scripted", _scripted)
register_model("gemini", _gemini, pattern=BARE_PATTERNS["gemini"])


def _litellm(name: str) -> BaseLlm:
    from yadk.models._litellm import litellm_model

    return litellm_model(name)


register_model("openai", _openai, pattern=BARE_PATTERNS["openai"])
register_model("anthropic", _anthropic, pattern=BARE_PATTERNS["anthropic"])
register_model(factory=_litellm, pattern=BARE_PATTERNS["litellm"])
