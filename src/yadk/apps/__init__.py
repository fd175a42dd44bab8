"""Apps: an agent tree with plugins, event compaction, context caching, resumability, budgets."""

from __future__ import annotations

from yadk.apps._app import App
from yadk.apps._configs import ContextCacheConfig, EventsCompactionConfig, ResumabilityConfig

__all__ = ["App", "ContextCacheConfig", "EventsCompactionConfig", "ResumabilityConfig"]
