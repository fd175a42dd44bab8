"""Workflow scenarios about limits: node timeouts and ``max_concurrency``. Registered in
scenarios.SCENARIOS when imported; run in google-adk 2.13 by record_adk.py and in yadk by
test_recorded.py.

A timed-out node awaits an event that is never set, so only its timeout ends it."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.workflow.scenarios import Scenario, scenario


@scenario
def node_timeout(k: Any) -> Scenario:
    never = asyncio.Event()

    def ok(node_input: str) -> str:
        return "ok"

    async def stuck(node_input: str) -> str:
        await never.wait()
        return "never"

    def after(node_input: str) -> str:
        return "never reached"

    flow = k.Workflow(name="timed", edges=[(k.START, ok, k.node(stuck, timeout=0.05), after)])
    return Scenario(flow)


@scenario
def node_timeout_retried(k: Any) -> Scenario:
    never = asyncio.Event()

    async def slow_first(node_input: str, ctx: Any) -> str:
        if ctx.attempt_count == 1:
            await never.wait()
        return f"attempt {ctx.attempt_count}"

    config = k.RetryConfig(max_attempts=2, initial_delay=0.0, jitter=0.0)
    slow = k.node(slow_first, timeout=0.05, retry_config=config)
    return Scenario(k.Workflow(name="timed", edges=[(k.START, slow)]))


@scenario
def max_concurrency(k: Any) -> Scenario:
    def branch(label: str) -> Any:
        async def run(node_input: str):  # type: ignore[no-untyped-def]
            yield k.Event(message=f"{label} starts on {node_input}")
            yield k.Event(state={label: "done"})
            yield f"{label}:{node_input}"

        return k.node(run, name=label)

    def merge(node_input: dict[str, str]) -> str:
        return ",".join(node_input[key] for key in sorted(node_input))

    branches = tuple(branch(f"b{i}") for i in range(5))
    flow = k.Workflow(
        name="bounded",
        edges=[(k.START, branches, k.JoinNode(name="gather"), merge)],
        max_concurrency=2,
    )
    return Scenario(flow)
