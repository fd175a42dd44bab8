"""The dev loop's machinery, shared by ``yadk dev``, ``yadk serve --reload`` and ``yadk web``:
which files changed (``ChangeSource``) and validate-then-swap of a loaded agent
(``AgentReloader``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from yadk._lazy import lazy_facade

if TYPE_CHECKING:
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

# Loaded on first use: `yadk run` and `yadk inspect` need the loading helpers, not the watcher.
__getattr__, __dir__ = lazy_facade(
    globals(),
    {
        "check_models": "yadk.reload._loading",
        "llm_agents": "yadk.reload._loading",
        "load": "yadk.reload._loading",
        "load_failure": "yadk.reload._loading",
        "set_model": "yadk.reload._loading",
        "AgentReloader": "yadk.reload._reloader",
        "Reload": "yadk.reload._reloader",
        "changed_files_text": "yadk.reload._reloader",
        "ChangeSource": "yadk.reload._watch",
        "ScriptedChanges": "yadk.reload._watch",
        "WatchFailed": "yadk.reload._watch",
        "WatchfilesChanges": "yadk.reload._watch",
        "matters": "yadk.reload._watch",
        "watch_roots": "yadk.reload._watch",
    },
)
