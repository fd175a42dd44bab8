"""The dev loop's machinery, shared by ``yadk dev``, ``yadk serve --reload`` and ``yadk web``:
which files changed (``ChangeSource``) and validate-then-swap of a loaded agent
(``AgentReloader``)."""

from __future__ import annotations

from yadk.reload._loading import check_models, llm_agents, load, load_failure, set_model
from yadk.reload._reloader import AgentReloader, Reload, changed_files_text
from yadk.reload._watch import (
    ChangeSource,
    ScriptedChanges,
    WatchFailed,
    WatchfilesChanges,
    matters,
    watch_roots,
)

__all__ = [
    "AgentReloader",
    "ChangeSource",
    "Reload",
    "ScriptedChanges",
    "WatchFailed",
    "WatchfilesChanges",
    "changed_files_text",
    "check_models",
    "llm_agents",
    "load",
    "load_failure",
    "matters",
    "set_model",
    "watch_roots",
]
