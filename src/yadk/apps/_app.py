"""App: one agent tree with the settings that apply to every agent, model and tool call in it.

The Gemini backend is imported only to check an app that asks for context caching.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from yadk._usage import Budget
from yadk.agents import BaseAgent, LlmAgent
from yadk.apps._configs import ContextCacheConfig, EventsCompactionConfig, ResumabilityConfig
from yadk.errors import YadkError

__all__ = ["App"]

logger = logging.getLogger("yadk.apps")

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

    @model_validator(mode="after")
    def _caching_backends(self) -> App:
        if self.context_cache_config is not None:
            _warn_uncached(self.root_agent)
        return self


def _warn_uncached(root: BaseAgent) -> None:
    """One warning naming the agents whose model is not Gemini: context caching is a Gemini
    feature, and those agents' calls go out whole."""
    from yadk.models import Gemini

    others: list[str] = []
    pending: list[BaseAgent] = [root]
    while pending:
        agent = pending.pop(0)
        pending.extend(agent.sub_agents)
        if not isinstance(agent, LlmAgent):
            continue
        try:
            model = agent.canonical_model
        except YadkError:  # a model that does not resolve fails at its first call
            continue
        if not isinstance(model, Gemini):
            others.append(f"{agent.name} ({model.model or type(model).__name__})")
    if others:
        logger.warning(
            "context_cache_config applies to Gemini models only; these agents' calls are not"
            " cached: %s",
            ", ".join(others),
        )
