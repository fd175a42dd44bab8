"""App: one agent tree with the settings that apply to every agent, model and tool call in it."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from yadk._usage import Budget
from yadk.agents import BaseAgent
from yadk.apps._configs import ContextCacheConfig, EventsCompactionConfig, ResumabilityConfig

__all__ = ["App"]

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


class App(BaseModel):
    """google-adk's ``App``: ``Runner(app=App(...))`` runs ``root_agent`` with the app's
    plugins and settings; an agent folder may define ``app = App(...)`` instead of
    ``root_agent``."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    name: str
    root_agent: BaseAgent
    plugins: list[Any] = Field(default_factory=list)
    events_compaction_config: EventsCompactionConfig | None = None
    context_cache_config: ContextCacheConfig | None = None
    resumability_config: ResumabilityConfig | None = None
    # yadk addition: token and cost limits for every invocation (RunConfig.budget replaces it).
    budget: Budget | None = None

    @field_validator("name")
    @classmethod
    def _identifier(cls, value: str) -> str:
        if not _NAME.fullmatch(value):
            raise ValueError(
                f"Invalid app name {value!r}: it must start with a letter and may hold only"
                " letters, digits, underscores and hyphens."
            )
        if value == "user":
            raise ValueError("App name cannot be 'user'; it is reserved for end-user input.")
        return value
