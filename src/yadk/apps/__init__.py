"""Apps: an agent tree with plugins, event compaction, context caching, resumability, budgets."""

from __future__ import annotations

from yadk._usage import Budget, ModelPrice
from yadk.apps._app import App
from yadk.apps._configs import ContextCacheConfig, EventsCompactionConfig, ResumabilityConfig
from yadk.apps._plugin import BasePlugin
from yadk.apps._summarizer import BaseEventsSummarizer, LlmEventSummarizer

__all__ = [
    "App",
    "BaseEventsSummarizer",
    "BasePlugin",
    "Budget",
    "ContextCacheConfig",
    "EventsCompactionConfig",
    "LlmEventSummarizer",
    "ModelPrice",
    "ResumabilityConfig",
]
