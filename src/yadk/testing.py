"""Helpers for users' own tests: the offline ScriptedModel and ready-made contexts.

``readonly_context(state={"customer_name": "Ada"})`` gives what an InstructionProvider receives;
``tool_context(...)`` what a tool receives. Both are backed by in-memory services, so
``inject_session_state`` and artifact helpers work on them. Unlike ``create_session``, ``temp:``
keys in ``state`` are kept, as they would be inside an invocation. ``evaluate(agent, evalset)``
runs google-adk eval sets from pytest and fails with every failing case, metric and score.

The eval runner and model registry are imported only by ``evaluate``, so ``import yadk.testing``
stays light for tests that never evaluate.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from yadk._contexts import InvocationContext, ReadonlyContext, ToolContext, new_invocation_id
from yadk.agents import LlmAgent
from yadk.artifacts import InMemoryArtifactService
from yadk.models import ScriptedModel
from yadk.runner import Runner
from yadk.sessions import InMemorySessionService
from yadk.types import Content, Part

if TYPE_CHECKING:
    from yadk.eval import EvalSetResult

__all__ = [
    "ScriptedModel",
    "evaluate",
    "invocation_context",
    "readonly_context",
    "tool_context",
]


def invocation_context(
    state: Mapping[str, Any] | None = None,
    *,
    artifacts: Mapping[str, str | bytes | Part] | None = None,
    with_artifact_service: bool = True,
    agent_name: str = "agent",
    user_content: Content | str | None = None,
    app_name: str = "test_app",
    user_id: str = "test_user",
) -> InvocationContext:
    """An InvocationContext over fresh in-memory services (see the module docstring)."""
    sessions = InMemorySessionService()
    initial = dict(state or {})
    session = sessions.create_session_sync(app_name=app_name, user_id=user_id, state=initial)
    for key, value in initial.items():
        if key.startswith("temp:"):
            session.state[key] = value
    artifact_service = InMemoryArtifactService() if with_artifact_service else None
    if artifacts:
        if artifact_service is None:
            raise ValueError("artifacts= needs with_artifact_service=True")
        for name, value in artifacts.items():
            artifact_service.save_artifact_sync(
                app_name=app_name,
                user_id=user_id,
                session_id=session.id,
                filename=name,
                artifact=_as_part(value),
            )
    if isinstance(user_content, str):
        user_content = Content(role="user", parts=[Part(text=user_content)])
    return InvocationContext(
        invocation_id=new_invocation_id(),
        agent=LlmAgent(name=agent_name),
        session=session,
        session_service=sessions,
        artifact_service=artifact_service,
        user_content=user_content,
        runner_factory=Runner,
    )


def readonly_context(
    state: Mapping[str, Any] | None = None,
    *,
    artifacts: Mapping[str, str | bytes | Part] | None = None,
    with_artifact_service: bool = True,
    agent_name: str = "agent",
) -> ReadonlyContext:
    """A ReadonlyContext whose session holds ``state`` and whose artifacts are ``artifacts``
    (name → text, bytes, or Part)."""
    return ReadonlyContext(
        invocation_context(
            state,
            artifacts=artifacts,
            with_artifact_service=with_artifact_service,
            agent_name=agent_name,
        )
    )


def tool_context(
    state: Mapping[str, Any] | None = None,
    *,
    artifacts: Mapping[str, str | bytes | Part] | None = None,
    with_artifact_service: bool = True,
    agent_name: str = "agent",
    user_content: Content | str | None = None,
    function_call_id: str | None = None,
) -> ToolContext:
    """A ToolContext like the one a tool receives; writes land in ``ctx.actions.state_delta``."""
    return ToolContext(
        invocation_context(
            state,
            artifacts=artifacts,
            with_artifact_service=with_artifact_service,
            agent_name=agent_name,
            user_content=user_content,
        ),
        function_call_id=function_call_id,
    )


def _as_part(value: str | bytes | Part) -> Part:
    if isinstance(value, Part):
        return value
    if isinstance(value, bytes):
        return Part.from_bytes(data=value, mime_type="application/octet-stream")
    return Part(text=value)


def evaluate(
    agent_path: str | os.PathLike[str],
    evalset_path: str | os.PathLike[str],
    *,
    num_runs: int = 1,
    judge_model: str | None = None,
) -> list[EvalSetResult]:
    """Run the eval set(s) at ``evalset_path`` (a file, ``FILE:case,...``, or a folder) against
    the agent at ``agent_path``, as ``yadk eval`` does, and return the results.

    ``judge_model`` (a model name) grades the judged metrics (``final_response_match_v2``, the
    rubric-based ones, ``hallucinations_v1``); without it they are not evaluated. Raises ``AssertionError`` naming each failing case, metric,
    score and threshold, and
    ``ConfigError`` (a ``ValueError``) listing every problem of a malformed eval set or config.
    """
    from yadk.eval import agent_factory, load_targets, run_targets

    targets, _ = load_targets([os.fspath(evalset_path)])
    factory = agent_factory(agent_path)
    judge = None
    if judge_model is not None:
        from yadk.models import resolve_model

        judge = resolve_model(judge_model)
    coroutine = run_targets(factory, targets, num_runs=num_runs, judge=judge)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        results = asyncio.run(coroutine)
    else:
        # Called from an async test: run on a private loop in a worker thread.
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            results = pool.submit(asyncio.run, coroutine).result()
    failed = [(r, c) for r in results for c in r.cases if not c.passed]
    if failed:
        total = sum(len(r.cases) for r in results)
        lines = [f"{len(failed)} of {total} eval cases failed:"]
        for result, case in failed:
            run = f" (run {case.run})" if num_runs > 1 else ""
            for reason in case.failures():
                lines.append(f"  {result.eval_set.path.name} {case.eval_id}{run}: {reason}")
        raise AssertionError("\n".join(lines))
    return results
