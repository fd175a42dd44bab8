"""Workflow agents that run sub-agents without a model: in sequence, or in a loop."""

from __future__ import annotations

from collections.abc import AsyncGenerator

from pydantic import field_validator

from yadk._contexts import InvocationContext
from yadk.agents._base_agent import BaseAgent
from yadk.events import Event

__all__ = ["LoopAgent", "SequentialAgent"]


class SequentialAgent(BaseAgent):
    """Runs its sub-agents once each, in order, in one invocation; each sees what the previous
    ones wrote to state."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        for sub in self.sub_agents:
            async for event in sub.run_async(ctx):
                yield event


class LoopAgent(BaseAgent):
    """Repeats its sub-agents up to ``max_iterations`` times (forever when unset), stopping
    early after an event that escalates (e.g. from the ``exit_loop`` tool)."""

    max_iterations: int | None = None

    @field_validator("max_iterations")
    @classmethod
    def _positive(cls, value: int | None) -> int | None:
        if value is not None and value < 1:
            raise ValueError("max_iterations must be at least 1 (or unset for no limit)")
        return value

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        iteration = 0
        while self.max_iterations is None or iteration < self.max_iterations:
            iteration += 1
            for sub in self.sub_agents:
                escalated = False
                async for event in sub.run_async(ctx):
                    escalated = escalated or bool(event.actions.escalate)
                    yield event
                if escalated:
                    return
