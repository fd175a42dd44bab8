"""Where an agent's instruction placeholders were written, so a template error at run time can
name the file and line (``reviser.yaml:6:23``) and the hint a linter gave for it.

The engine knows nothing of config files: whoever builds an agent from files (the YAML config
layer) attaches the locations with ``attach_placeholder_sources``, and the request builder uses
them to locate a ``TemplateKeyError`` for a missing state key. Agents built in Python have none,
and their errors stay as they are.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING

from yadk.errors import TemplateKeyError

if TYPE_CHECKING:
    from yadk.agents._llm_agent import LlmAgent

__all__ = ["PlaceholderSource", "attach_placeholder_sources", "located_template_error"]


@dataclasses.dataclass(frozen=True)
class PlaceholderSource:
    """Where a placeholder is written (``path:line:col`` as shown to the user), and what to do
    when its key is missing."""

    location: str
    hint: str = ""


def attach_placeholder_sources(agent: LlmAgent, sources: Mapping[str, PlaceholderSource]) -> None:
    """Record where each state key ``agent``'s instruction reads is written (first place)."""
    agent._placeholder_sources = dict(sources)


def located_template_error(agent: LlmAgent, error: TemplateKeyError) -> TemplateKeyError:
    """``error`` with its placeholder's location in front and the hint after, when known."""
    source = agent._placeholder_sources.get(error.key or "")
    if source is None:
        return error
    message = f"{source.location}: {error.message}"
    if source.hint:
        message += f"\n  hint: {source.hint}"
    located = TemplateKeyError(message)
    located.key = error.key
    return located
