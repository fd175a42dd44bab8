"""Apps: an agent tree with plugins, event compaction, context caching, resumability, budgets."""

from __future__ import annotations

from typing import TYPE_CHECKING

from yadk._lazy import lazy_facade
from yadk._usage import Budget, ModelPrice
from yadk.apps._app import App
from yadk.apps._configs import ContextCacheConfig, EventsCompactionConfig, ResumabilityConfig
from yadk.apps._plugin import BasePlugin
from yadk.apps._summarizer import BaseEventsSummarizer, LlmEventSummarizer

if TYPE_CHECKING:
    from yadk.apps._files_plugin import SaveFilesAsArtifactsPlugin
    from yadk.apps._logging_plugins import DebugLoggingPlugin, LoggingPlugin
    from yadk.apps._request_plugins import ContextFilterPlugin, GlobalInstructionPlugin
    from yadk.apps._retry_plugin import ReflectAndRetryToolPlugin, TrackingScope

__all__ = [
    "App",
    "BaseEventsSummarizer",
    "BasePlugin",
    "Budget",
    "ContextCacheConfig",
    "ContextFilterPlugin",
    "DebugLoggingPlugin",
    "EventsCompactionConfig",
    "GlobalInstructionPlugin",
    "LlmEventSummarizer",
    "LoggingPlugin",
    "ModelPrice",
    "ReflectAndRetryToolPlugin",
    "ResumabilityConfig",
    "SaveFilesAsArtifactsPlugin",
    "TrackingScope",
]

# The built-in plugins load when first named.
__getattr__, __dir__ = lazy_facade(
    globals(),
    {
        "ContextFilterPlugin": "yadk.apps._request_plugins",
        "DebugLoggingPlugin": "yadk.apps._logging_plugins",
        "GlobalInstructionPlugin": "yadk.apps._request_plugins",
        "LoggingPlugin": "yadk.apps._logging_plugins",
        "ReflectAndRetryToolPlugin": "yadk.apps._retry_plugin",
        "SaveFilesAsArtifactsPlugin": "yadk.apps._files_plugin",
        "TrackingScope": "yadk.apps._retry_plugin",
    },
)
