"""Placeholder locations for the engine: each built LlmAgent learns where the state keys its
instruction reads are written, so a missing key at run time is reported at its config line, with
the hint ``yadk validate`` gives for it (see ``yadk.agents._placeholder_sources``)."""

from __future__ import annotations

from collections.abc import Sequence

from yadk._paths import display_path
from yadk.agents import LlmAgent, PlaceholderSource, attach_placeholder_sources
from yadk.config._context import AgentRecord
from yadk.config._diagnostics import Diagnostic
from yadk.config._lint import placeholder_location
from yadk.templating import find_placeholders

__all__ = ["attach_sources"]

_FALLBACK_HINT = (
    "Give `{key}` a value before this agent runs (an earlier agent's output_key, a tool, a"
    " callback, --state), or write `{{{key}?}}` to make it optional."
)


def attach_sources(trees: Sequence[AgentRecord], diagnostics: Sequence[Diagnostic]) -> None:
    """Attach the placeholder locations of every built LlmAgent of ``trees``; a placeholder
    that a lint warning is about gets that warning's hint (e.g. its "did you mean")."""
    hints = {
        (d.path, d.line, d.column): d.hint
        for d in diagnostics
        if d.rule == "placeholder-unknown-key" and d.hint
    }
    for tree in trees:
        for record in tree.walk():
            if record.from_code or not isinstance(record.agent, LlmAgent):
                continue
            sources: dict[str, PlaceholderSource] = {}
            for source in record.instructions:
                for placeholder in find_placeholders(source.text):
                    if placeholder.kind != "state" or placeholder.name in sources:
                        continue
                    path, line, column = placeholder_location(source, placeholder)
                    hint = hints.get((str(path), line, column)) or _FALLBACK_HINT.format(
                        key=placeholder.name
                    )
                    location = f"{display_path(path)}:{line}:{column}"
                    sources[placeholder.name] = PlaceholderSource(location, hint)
            if sources:
                attach_placeholder_sources(record.agent, sources)
