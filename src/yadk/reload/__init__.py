"""The dev loop's machinery, shared by ``yadk dev``, ``yadk serve --reload`` and ``yadk web``:
which files changed (``ChangeSource``) and validate-then-swap of a loaded agent
(``AgentReloader``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from yadk._lazy import lazy_facade

if TYPE_CHECKING:
    from yadk.reload._loading import check_models, llm_agents, load, load_failure, set_model
    from yadk.reload._reloader import AgentReloader, Reload, changed_files_text
    from yadk.reload._runners import (
        RunTarget,
        run_target,
        runner_for,
        target_agent,
        target_name,
    )
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
    "RunTarget",
    "ScriptedChanges",
    "WatchFailed",
    "WatchfilesChanges",
    "changed_files_text",
    "check_models",
    "llm_agents",
    "load",
    "load_failure",
    "matters",
    "run_target",
    "runner_for",
    "set_model",
    "target_agent",
    "target_name",
    "watch_roots",
]

# For yadk's own packages; not part of the public contract (``__all__``). Loaded on first
# use (table below), as the names above are.
if TYPE_CHECKING:
    from yadk.reload._loading import missing_credentials as missing_credentials
    from yadk.reload._reloader import shown_names as shown_names

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
        "RunTarget": "yadk.reload._runners",
        "run_target": "yadk.reload._runners",
        "runner_for": "yadk.reload._runners",
        "target_agent": "yadk.reload._runners",
        "target_name": "yadk.reload._runners",
        "ChangeSource": "yadk.reload._watch",
        "ScriptedChanges": "yadk.reload._watch",
        "WatchFailed": "yadk.reload._watch",
        "WatchfilesChanges": "yadk.reload._watch",
        "matters": "yadk.reload._watch",
        "watch_roots": "yadk.reload._watch",
        # for yadk's own packages; not part of the public contract
        "missing_credentials": "yadk.reload._loading",
        "shown_names": "yadk.reload._reloader",
    },
)
