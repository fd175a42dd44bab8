"""Following a task another process runs: the store is read again after a pause that doubles
while nothing changes (up to a ceiling) and starts again after a change; the following ends
once the task stops. The clock is the test's: the pauses are read, not waited for."""

from __future__ import annotations

from tests.manual_clock import ManualClock

from yadk.serve._a2a_follow import FIRST_PAUSE, LAST_PAUSE, follow
from yadk.serve._a2a_tasks import TaskState, TaskView
from yadk.types import Part


def view(state: TaskState, answers: int = 0) -> TaskView:
    return TaskView(
        id="t",
        context_id="c",
        state=state,
        status_parts=[],
        answer=[Part(text=f"answer {n}") for n in range(answers)],
        history=[],
        timestamp=float(answers),
        pending=[],
        saved_artifacts={},
        last_invocation="i",
        agent="a",
    )


async def test_the_pause_doubles_while_nothing_changes_and_restarts_after_a_change() -> None:
    clock = ManualClock()
    reads = [view("working")] * 7 + [view("working", 1)] * 2 + [view("completed", 2)]
    script = iter(reads)

    async def read() -> TaskView:
        return next(script)

    seen = [(v.state, len(v.answer)) async for v in follow(read, clock, seen=view("working"))]
    assert seen == [("working", 1), ("completed", 2)]
    assert FIRST_PAUSE == 0.05 and LAST_PAUSE == 1.0
    assert clock.sleeps == [0.05, 0.1, 0.2, 0.4, 0.8, 1.0, 1.0, 1.0, 0.05, 0.1]
    assert next(script, None) is None  # nothing read after the task stopped


async def test_a_task_that_already_waits_for_input_is_not_read_again() -> None:
    clock = ManualClock()

    async def read() -> TaskView:
        raise AssertionError("read")

    assert [v async for v in follow(read, clock, seen=view("input-required"))] == []
    assert clock.sleeps == []
