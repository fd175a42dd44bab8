"""ParallelAgent: sub-agents run concurrently, each on its own branch of the conversation."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from collections.abc import AsyncGenerator

from yadk._contexts import InvocationContext
from yadk.agents._base_agent import BaseAgent
from yadk.events import Event

__all__ = ["ParallelAgent"]


@dataclasses.dataclass(frozen=True)
class _BranchEnd:
    """Queue marker: the branch finished (``error`` set if it raised)."""

    error: BaseException | None = None


class ParallelAgent(BaseAgent):
    """Runs its sub-agents concurrently in one invocation, each on its own branch.

    Sub-agent ``s`` of parallel agent ``p`` runs on branch ``p.s`` (``<parent branch>.p.s`` when
    ``p`` is itself on a branch), as in google-adk: it sees the conversation up to the fan-out
    and its own events, never a sibling's. Session state is shared: a write is visible to every
    branch at once, and each event carries its own ``state_delta``, so no write is lost.

    **Event order.** Events are yielded branch by branch in ``sub_agents`` order: those of the
    first sub-agent as they are produced, then the second's (buffered while the first ran, then
    live), and so on. The session history is therefore the same on every run however the model
    latencies interleave (google-adk interleaves branches in arrival order). When two branches
    write the same state key, the value of the later sub-agent in that order is the one
    persisted.

    **Early stop.** An event that escalates, authored by a direct sub-agent, stops the branches
    still running (as in google-adk). If a branch raises, the branches still running are
    cancelled, every event produced so far is yielded in branch order (so their state writes are
    persisted), and the first failure in branch order is re-raised.
    """

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        if not self.sub_agents:
            return
        direct_names = {sub.name for sub in self.sub_agents}
        queues: list[asyncio.Queue[Event | _BranchEnd]] = [asyncio.Queue() for _ in self.sub_agents]
        tasks: list[asyncio.Task[None]] = []

        def stop_others(index: int) -> None:
            for other, task in enumerate(tasks):
                if other != index and not task.done():
                    task.cancel()

        async def run_branch(index: int, sub: BaseAgent) -> None:
            queue = queues[index]
            branch_ctx = _branch_context(self, sub, ctx)
            seen = branch_ctx.session.events
            events = sub.run_async(branch_ctx)
            try:
                async for event in events:
                    if not event.partial:
                        # The runner appends to the real session only when this branch's turn
                        # in the event order comes; the branch's own view must have it now so
                        # its next model call sees its tool calls and their results.
                        seen.append(event)
                    queue.put_nowait(event)
                    if event.actions.escalate and event.author in direct_names:
                        stop_others(index)
                        break
            except Exception:
                stop_others(index)
                raise
            finally:
                await events.aclose()

        def branch_done(queue: asyncio.Queue[Event | _BranchEnd], task: asyncio.Task[None]) -> None:
            # A callback, not a ``finally`` in the branch: a task cancelled before it started
            # never runs its body, yet its queue must still be closed.
            error = None if task.cancelled() else task.exception()
            queue.put_nowait(_BranchEnd(error))

        try:
            for index, sub in enumerate(self.sub_agents):
                task = asyncio.create_task(run_branch(index, sub), name=f"{self.name}.{sub.name}")
                task.add_done_callback(functools.partial(branch_done, queues[index]))
                tasks.append(task)
            failure: BaseException | None = None
            for queue in queues:
                while True:
                    item = await queue.get()
                    if isinstance(item, _BranchEnd):
                        failure = failure or item.error
                        break
                    yield item
            if failure is not None:
                raise failure
        finally:
            # Also reached when the consumer stops reading: no branch outlives the agent.
            for task in tasks:
                if not task.done():
                    task.cancel()
            if tasks:
                await asyncio.gather(*tasks, return_exceptions=True)


def _branch_context(
    parallel: ParallelAgent, sub: BaseAgent, ctx: InvocationContext
) -> InvocationContext:
    """A context on the sub-agent's branch, with its own view of the session's history.

    The view shares the session's ``state`` dict (writes are seen by everyone at once) but has
    its own event list: the history up to the fan-out plus what this branch produces.
    """
    suffix = f"{parallel.name}.{sub.name}"
    branch = f"{ctx.branch}.{suffix}" if ctx.branch else suffix
    view = dataclasses.replace(ctx.session, events=list(ctx.session.events))
    return dataclasses.replace(ctx, branch=branch, session=view)
