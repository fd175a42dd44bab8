"""Workflow agents that run sub-agents without a model: in sequence, or in a loop."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

from pydantic import field_validator

from yadk._contexts import InvocationContext
from yadk.agents._base_agent import BaseAgent
from yadk.events import Event

__all__ = ["LoopAgent", "SequentialAgent"]


class SequentialAgent(BaseAgent):
    """Runs its sub-agents once each, in order, in one invocation; each sees what the previous
    ones wrote to state. A sub-agent that fails (a model error) ends the sequence."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        for sub in self.sub_agents:
            async for event in sub.run_async(ctx):
                yield event
            if ctx.counter.failed:  # a failed sub-agent ends the sequence, as in google-adk
                return


class LoopAgent(BaseAgent):
    """Repeats its sub-agents up to ``max_iterations`` times (forever when unset), stopping
    early after an event that escalates (e.g. from the ``exit_loop`` tool) or when a sub-agent
    fails (a model error, ``max_llm_calls`` reached). Without sub-agents it returns at once."""

    max_iterations: int | None = None

    @field_validator("max_iterations")
    @classmethod
    def _positive(cls, value: int | None) -> int | None:
        if value is not None and value < 1:
            raise ValueError("max_iterations must be at least 1 (or unset for no limit)")
        return value

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        if not self.sub_agents:  # nothing to repeat: return at once, as google-adk does
            return
        iteration = 0
        while self.max_iterations is None or iteration < self.max_iterations:
            iteration += 1
            for sub in self.sub_agents:
                escalated = False
                async for event in sub.run_async(ctx):
                    escalated = escalated or bool(event.actions.escalate)
                    yield event
                if escalated or ctx.counter.failed:
                    return
            # Sub-agents that never await (no model, no I/O) must not starve the event loop.
            await asyncio.sleep(0)
