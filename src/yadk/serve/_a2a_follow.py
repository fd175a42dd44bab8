"""Following a task that another process runs: its session read again from the store, with a
growing pause, until the task stops (ends, or waits for input).

A replica sharing the store has no channel to the process running the task, only the events
that process appends; ``refresh_session`` reads the events stored since the last read, so a poll
costs what is new. The pause starts short (a task often ends within a few model calls) and
doubles up to ``LAST_PAUSE`` while nothing changes; a change brings it back to the start. The
loop holds nothing between polls (no lock, no connection), and ends with the stream: a client
that goes away cancels it at its next pause.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Final

from yadk.serve._a2a_tasks import TERMINAL, TaskView

if TYPE_CHECKING:
    from yadk.sessions import Clock

__all__ = ["FIRST_PAUSE", "LAST_PAUSE", "follow", "stopped"]

FIRST_PAUSE: Final = 0.05
LAST_PAUSE: Final = 1.0


def stopped(view: TaskView) -> bool:
    """The task will not change until someone acts: it ended, or it waits for input."""
    return view.state in TERMINAL or view.state == "input-required"


async def follow(
    read: Callable[[], Awaitable[TaskView]],
    clock: Clock,
    *,
    seen: TaskView,
    first: float = FIRST_PAUSE,
    most: float = LAST_PAUSE,
) -> AsyncIterator[TaskView]:
    """Each new state of the task ``read`` returns (``seen`` is the one the caller has), the
    last one stopped."""
    pause = first
    mark = _mark(seen)
    while not stopped(seen):
        await clock.sleep(pause)
        seen = await read()
        if _mark(seen) == mark:
            pause = min(pause * 2, most)
            continue
        mark = _mark(seen)
        pause = first
        yield seen


def _mark(view: TaskView) -> tuple[str, int, int, float]:
    return view.state, len(view.history), len(view.answer), view.timestamp
