"""The settings an ``App`` switches on, with google-adk 2.13's names, fields and bounds.

Compaction's code (``_compaction``) is imported only when a compaction is due, off the start of
every command that reads an app.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

if TYPE_CHECKING:
    from yadk._contexts import InvocationContext
    from yadk.events import Event
    from yadk.sessions import BaseSessionService, Session

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

    # The runner and the LLM flow sit below yadk.apps and reach compaction through these two
    # hooks of the app's config (yadk.apps._compaction says when and what is summarised).

    async def compact_after_invocation(
        self, *, session: Session, session_service: BaseSessionService, root_agent: Any
    ) -> Event | None:
        """Summarise what the triggers say is due after an invocation; the summary appended,
        or ``None``."""
        from yadk.apps._compaction import compact_after_invocation

        return await compact_after_invocation(
            self, session=session, session_service=session_service, root_agent=root_agent
        )

    async def compact_before_model_call(self, ctx: InvocationContext, agent: Any) -> Event | None:
        """Summarise before ``agent``'s next model call if its last prompt reached
        ``token_threshold``; the summary appended, or ``None``."""
        if self.token_threshold is None:
            return None
        from yadk.apps._compaction import compact_for_token_threshold

        return await compact_for_token_threshold(
            self,
            session=ctx.session,
            session_service=ctx.session_service,
            agent=agent,
            agent_name=agent.name,
            branch=ctx.branch,
        )


class ContextCacheConfig(BaseModel):
    """Gemini context caching: how long a cached prefix lives and how often it is renewed."""

    model_config = ConfigDict(extra="forbid")

    cache_intervals: int = Field(default=10, ge=1, le=100)
    ttl_seconds: int = Field(default=1800, gt=0)
    min_tokens: int = Field(default=0, ge=0)
