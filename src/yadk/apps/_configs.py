"""The settings an ``App`` switches on, with google-adk 2.13's names, fields and bounds."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["ContextCacheConfig", "EventsCompactionConfig", "ResumabilityConfig"]


class ResumabilityConfig(BaseModel):
    """Whether an invocation interrupted midway (a process killed, a long-running tool
    pending, a workflow waiting for input) resumes from its last completed step."""

    model_config = ConfigDict(extra="forbid")

    is_resumable: bool = False


class EventsCompactionConfig(BaseModel):
    """When old events are summarised into one compaction event.

    ``compaction_interval`` and ``overlap_size`` go together (every N new invocations, the
    invocations before the last ``overlap_size`` are summarised); so do ``token_threshold`` and
    ``event_retention_size`` (after an invocation whose prompt reached the threshold, all but the
    last N events are summarised). ``summarizer`` summarises; ``None`` uses the root agent's model.
    """

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    summarizer: Any = None
    compaction_interval: int | None = Field(default=None, gt=0)
    overlap_size: int | None = Field(default=None, ge=0)
    token_threshold: int | None = Field(default=None, gt=0)
    event_retention_size: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _paired(self) -> EventsCompactionConfig:
        if (self.token_threshold is None) != (self.event_retention_size is None):
            raise ValueError("token_threshold and event_retention_size must be set together.")
        if (self.compaction_interval is None) != (self.overlap_size is None):
            raise ValueError("compaction_interval and overlap_size must be set together.")
        return self


class ContextCacheConfig(BaseModel):
    """Gemini context caching: how long a cached prefix lives and how often it is renewed."""

    model_config = ConfigDict(extra="forbid")

    cache_intervals: int = Field(default=10, ge=1, le=100)
    ttl_seconds: int = Field(default=1800, gt=0)
    min_tokens: int = Field(default=0, ge=0)
