"""Resumable invocations against google-adk 2.13's (recorded/resume.json, record_resume.py).

Each scenario stops reading a turn after some events (what a killed process leaves stored),
then resumes it with ``run_async(invocation_id=...)``: the model calls and tool runs, and the
stored events, equal google-adk's, leaving out google-adk's checkpoint events (yadk writes
none). Where yadk deliberately differs, ``DIFFERENCES`` says how and why.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from yadk import Runner
from yadk.agents import BaseAgent, LlmAgent, SequentialAgent
from yadk.apps import App, ResumabilityConfig
from yadk.errors import ResumeError
from yadk.events import Event
from yadk.models import BaseLlm, LlmRequest, LlmResponse
from yadk.sessions import BaseSessionService, InMemorySessionService
from yadk.tools import LongRunningFunctionTool
from yadk.types import Content, FunctionCall, FunctionResponse, Part, UserContent

RECORDED: dict[str, Any] = json.loads(
    (Path(__file__).parent / "recorded" / "resume.json").read_text(encoding="utf-8")
)

# What yadk does instead of google-adk, scenario by scenario: (calls, events or the error).
DIFFERENCES: dict[str, Any] = {
    # google-adk marks an agent finished with a checkpoint event written after its answer, so an
    # answer stored without it (the process died in between) is asked for again; yadk reads the
    # stored answer as the completed step and goes on with the next agent.
    "second_agent_of_a_sequence": ["model:a", "--", "model:b", "tool:echo", "model:b"],
    # google-adk calls the model again for an invocation that had ended; yadk has nothing to do.
    "already_finished": ["model:a", "--"],
    # google-adk runs a new invocation under an id it does not know, and re-runs an invocation
    # of an app that is not resumable; yadk says why it cannot resume.
    "unknown_invocation": ResumeError,
    "not_resumable": ResumeError,
}


class Scripted(BaseLlm):
    def __init__(self, who: str, answers: list[Any], log: list[str]) -> None:
        self.model = "scripted"
        self.who = who
        self.answers = list(answers)
        self.log = log

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        self.log.append(f"model:{self.who}")
        answer = self.answers.pop(0) if self.answers else "ok"
        if isinstance(answer, dict):
            name, args = answer["call"]
            part = Part(function_call=FunctionCall(name=name, args=args))
        else:
            part = Part(text=answer)
        yield LlmResponse(content=Content(role="model", parts=[part]))


def build(spec: dict[str, Any], log: list[str]) -> BaseAgent:
    def echo(x: str) -> dict[str, str]:
        """Echo x."""
        log.append("tool:echo")
        return {"echo": x}

    def wait_for_approval() -> None:
        """Ask a person to approve."""
        log.append("tool:wait_for_approval")

    def llm(name: str, **kw: Any) -> LlmAgent:
        model = Scripted(name, spec["model"].get(name, []), log)
        tools = [echo, LongRunningFunctionTool(wait_for_approval)]
        return LlmAgent(name=name, model=model, instruction="x", tools=tools, **kw)

    if spec["shape"] == "sequential":
        return SequentialAgent(name="seq", sub_agents=[llm("a"), llm("b")])
    if spec["shape"] == "transfer":
        return llm("a", sub_agents=[llm("b")])
    return llm("a")


def summary(event: Event, ids: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "author": event.author,
        "invocation": ids.setdefault(event.invocation_id, str(len(ids) + 1)),
    }
    for part in event.content.parts if event.content is not None else []:
        if part.text is not None:
            out["text"] = out.get("text", "") + part.text
        if part.function_call is not None:
            out.setdefault("calls", []).append(part.function_call.name)
        if part.function_response is not None:
            out.setdefault("responses", []).append(
                {part.function_response.name: part.function_response.response}
            )
    if event.error_code:
        out["error_code"] = event.error_code
    return out


async def interrupt(
    runner: Runner, session_id: str, stop_after: int, message: str = "hello"
) -> str:
    """Run a turn and stop reading it after ``stop_after`` events (the user's not counted), as
    a killed process would; the invocation's id."""
    if stop_after == 0:  # killed before the agent ran: only the user's message is stored
        session = await runner.session_service.get_session(
            app_name=runner.app_name, user_id="u", session_id=session_id
        )
        assert session is not None
        first = Event(author="user", invocation_id="e-first", content=UserContent(message))
        await runner.session_service.append_event(session, first)
        return "e-first"
    seen = 0
    invocation_id = ""
    run = runner.run_async(user_id="u", session_id=session_id, new_message=message)
    async with contextlib.aclosing(run) as events:
        async for event in events:
            invocation_id = event.invocation_id
            if event.author == "user":
                continue
            seen += 1
            if seen >= stop_after:
                break
    return invocation_id


def answer(events: list[Event], spec: dict[str, Any]) -> Content | None:
    if "message" not in spec:
        return None
    name, response = next(iter(spec["message"].items()))
    call_id = next(c.id for e in events for c in e.get_function_calls() if c.name == name)
    reply = FunctionResponse(id=call_id, name=name, response=response)
    return Content(role="user", parts=[Part(function_response=reply)])


async def replay(
    spec: dict[str, Any], service: BaseSessionService | None = None
) -> tuple[list[str], list[dict[str, Any]], BaseException | None]:
    log: list[str] = []
    resumable = ResumabilityConfig(is_resumable=spec.get("resumable", True))
    app = App(name="resume", root_agent=build(spec, log), resumability_config=resumable)
    runner = Runner(app=app, session_service=service or InMemorySessionService())
    session = await runner.session_service.create_session(app_name="resume", user_id="u")
    invocation_id = await interrupt(runner, session.id, spec["stop_after"])
    log.append("--")
    # A new runner, as in a new process: nothing but the session is shared.
    log_after: list[str] = log
    again = Runner(
        app=App(name="resume", root_agent=build(spec, log_after), resumability_config=resumable),
        session_service=runner.session_service,
    )
    stored = await again.session_service.get_session(
        app_name="resume", user_id="u", session_id=session.id
    )
    assert stored is not None
    # The models of the new runner start where the interrupted ones stopped.
    for agent_name, answers in spec["model"].items():
        model = again.agent.find_agent(agent_name).canonical_model  # type: ignore[union-attr]
        used = sum(1 for entry in log if entry == f"model:{agent_name}")
        model.answers = list(answers)[used:]  # type: ignore[attr-defined]
    raised = None
    try:
        async for _ in again.run_async(
            user_id="u",
            session_id=session.id,
            invocation_id=spec.get("invocation_id", invocation_id),
            new_message=answer(stored.events, spec),
        ):
            pass
    except ResumeError as exc:
        raised = exc
    stored = await again.session_service.get_session(
        app_name="resume", user_id="u", session_id=session.id
    )
    assert stored is not None
    ids: dict[str, str] = {}
    return log, [summary(e, ids) for e in stored.events], raised


def without_checkpoints(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if not e.get("checkpoint")]


@pytest.mark.parametrize("name", sorted(set(RECORDED) - set(DIFFERENCES)))
async def test_resuming_goes_on_as_google_adk_does(name: str) -> None:
    recorded = RECORDED[name]
    calls, events, raised = await replay(recorded["spec"])
    assert (calls, events, raised) == (
        recorded["calls"],
        without_checkpoints(recorded["events"]),
        None,
    )


@pytest.mark.parametrize("name", sorted(DIFFERENCES))
async def test_where_yadk_resumes_differently(name: str) -> None:
    recorded = RECORDED[name]
    calls, events, raised = await replay(recorded["spec"])
    expected = DIFFERENCES[name]
    if expected is ResumeError:
        assert isinstance(raised, ResumeError)
        assert calls == ["model:a", "--"]
        return
    assert raised is None
    assert calls == expected
    assert calls != recorded["calls"]  # still a difference from google-adk
    # The events are google-adk's but for the answer it asked the model for again ("ok").
    again = [e for e in without_checkpoints(recorded["events"]) if e.get("text") == "ok"]
    assert len(again) == 1
    assert events == [e for e in without_checkpoints(recorded["events"]) if e not in again]


async def test_resume_errors_say_what_to_do() -> None:
    spec = RECORDED["unknown_invocation"]["spec"]
    with pytest.raises(ResumeError) as unknown:
        await _resume_raising(spec)
    assert str(unknown.value).startswith("Invocation 'e-unknown' is not in session ")
    assert "pass the invocation_id of one of the session's events" in str(unknown.value)
    not_resumable = {**RECORDED["not_resumable"]["spec"]}
    with pytest.raises(ResumeError) as refused:
        await _resume_raising(not_resumable)
    assert "resumability_config=ResumabilityConfig(is_resumable=True)" in str(refused.value)


async def _resume_raising(spec: dict[str, Any]) -> None:
    _, _, raised = await replay(spec)
    if raised is not None:
        raise raised


async def test_a_long_running_answer_resumes_its_invocation_without_an_id() -> None:
    spec = RECORDED["long_running_tool_answered"]["spec"]
    log: list[str] = []
    app = App(
        name="resume",
        root_agent=build(spec, log),
        resumability_config=ResumabilityConfig(is_resumable=True),
    )
    runner = Runner(app=app)
    session = await runner.session_service.create_session(app_name="resume", user_id="u")
    first = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="hi")
    ]
    later = [
        e
        async for e in runner.run_async(
            user_id="u", session_id=session.id, new_message=answer(first, spec)
        )
    ]
    assert {e.invocation_id for e in first} == {e.invocation_id for e in later}
    assert [summary(e, {}).get("text") for e in later][-1] == "approved"


async def test_a_workflow_waiting_for_input_resumes_its_invocation_at_that_node() -> None:
    from tests.workflow.resume_app import build as build_workflow

    from yadk.workflow._request_input import REQUEST_INPUT_FUNCTION_CALL_NAME

    app = App(
        name="resume",
        root_agent=build_workflow(),
        resumability_config=ResumabilityConfig(is_resumable=True),
    )
    runner = Runner(app=app)
    session = await runner.session_service.create_session(app_name="resume", user_id="u")
    first = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="essay")
    ]
    [ask] = [e for e in first if e.get_function_calls()]
    reply = FunctionResponse(
        id="approval", name=REQUEST_INPUT_FUNCTION_CALL_NAME, response={"result": "yes"}
    )
    resumed = [
        e
        async for e in runner.run_async(
            user_id="u",
            session_id=session.id,
            invocation_id=ask.invocation_id,
            new_message=Content(role="user", parts=[Part(function_response=reply)]),
        )
    ]
    assert {e.invocation_id for e in resumed} == {ask.invocation_id}
    outputs = [e.output for e in resumed if e.output is not None]
    assert outputs == ["draft of essay -> yes"]
    [question] = [c for e in resumed for c in e.get_function_calls()]
    assert question.args["message"] == "Your name?"


def test_the_docs_example_builds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    text = (Path(__file__).parents[2] / "docs" / "apps.md").read_text(encoding="utf-8")
    section = text.split("## Resumable invocations", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict[str, Any] = {}
    exec(compile(code, "docs/apps.md", "exec"), namespace)
    assert namespace["runner"].app.resumability_config.is_resumable
    assert callable(namespace["resume"])
