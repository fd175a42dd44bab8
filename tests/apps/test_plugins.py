"""Plugins run in google-adk 2.13's order with its short-circuit rules (recorded/plugins.json,
written by record_plugins.py), and a failing plugin ends the run with one named error event."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from yadk import Runner
from yadk.agents import LlmAgent
from yadk.apps import App, BasePlugin
from yadk.events import Event
from yadk.models import BaseLlm, LlmResponse
from yadk.sessions import InMemorySessionService
from yadk.types import Content, FunctionCall, Part

RECORDED = json.loads(
    (Path(__file__).parent / "recorded" / "plugins.json").read_text(encoding="utf-8")
)
CALLBACKS = [
    "on_user_message_callback",
    "before_run_callback",
    "on_event_callback",
    "after_run_callback",
    "before_agent_callback",
    "after_agent_callback",
    "before_model_callback",
    "after_model_callback",
    "on_model_error_callback",
    "before_tool_callback",
    "after_tool_callback",
    "on_tool_error_callback",
    "on_agent_error_callback",
    "on_run_error_callback",
]


class Scripted(BaseLlm):
    """Answers in order (text, a call, or a failure), logging each call."""

    model = "scripted"

    def __init__(self, answers: list[Any], log: list[str]) -> None:
        self.answers = answers
        self.log = log

    async def generate_content_async(self, llm_request: Any, stream: bool = False) -> Any:
        self.log.append("model")
        answer = self.answers.pop(0) if self.answers else "ok"
        if isinstance(answer, dict) and "raise" in answer:
            raise RuntimeError(answer["raise"])
        if isinstance(answer, dict):
            name, args = answer["call"]
            part = Part(function_call=FunctionCall(name=name, args=args))
        else:
            part = Part(text=answer)
        yield LlmResponse(content=Content(role="model", parts=[part]))


def _value(callback: str, raw: Any) -> Any:
    if callback in ("before_model_callback", "after_model_callback", "on_model_error_callback"):
        return LlmResponse(content=Content(role="model", parts=[Part(text=raw)]))
    if callback == "on_event_callback":
        return Event(author="", custom_metadata={"note": raw})
    if isinstance(raw, str):
        return Content(role="model", parts=[Part(text=raw)])
    return raw


def _recorder(log: list[str], spec: dict[str, Any]) -> type[BasePlugin]:
    returns: dict[str, Any] = spec.get("returns", {})
    raises: list[str] = spec.get("raises", [])

    def method(callback: str) -> Any:
        async def call(self: BasePlugin, **kwargs: Any) -> Any:
            key = f"{self.name}.{callback}"
            log.append(key)
            if key in raises:
                raise ValueError("boom")
            return _value(callback, returns[key]) if key in returns else None

        return call

    return type("Recorder", (BasePlugin,), {c: method(c) for c in CALLBACKS})


def _agent_callback(log: list[str], kind: str, spec: dict[str, Any]) -> Any:
    returns = spec.get("agent_returns", {})

    def callback(**kwargs: Any) -> Any:
        log.append(f"agent.{kind}")
        return _value(kind, returns[kind]) if kind in returns else None

    return callback


def _summary(event: Event) -> dict[str, Any]:
    out: dict[str, Any] = {"author": event.author}
    for part in event.content.parts if event.content is not None else []:
        if part.text is not None:
            out["text"] = out.get("text", "") + part.text
        if part.function_call is not None:
            out.setdefault("calls", []).append(part.function_call.name)
        if part.function_response is not None:
            out.setdefault("responses", []).append(
                {part.function_response.name: part.function_response.response}
            )
    if event.custom_metadata:
        out["custom_metadata"] = event.custom_metadata
    if event.error_code:
        out["error_code"] = event.error_code
        out["error_message"] = event.error_message
    return out


async def _run(spec: dict[str, Any]) -> tuple[list[str], list[dict[str, Any]]]:
    log: list[str] = []

    def echo(x: str) -> dict[str, str]:
        """Echo x."""
        log.append("tool.echo")
        return {"echo": x}

    def fail() -> dict[str, str]:
        """Fail."""
        log.append("tool.fail")
        raise ValueError("tool broke")

    kinds = ["before_agent", "after_agent", "before_model", "after_model", "before_tool"]
    callbacks = {
        f"{k}_callback": _agent_callback(log, f"{k}_callback", spec) for k in [*kinds, "after_tool"]
    }
    agent = LlmAgent(
        name="agent",
        model=Scripted(answers=list(spec["model"]), log=log),
        instruction="x",
        tools=[echo, fail],
        **callbacks,
    )
    recorder = _recorder(log, spec)
    app = App(name="plugins", root_agent=agent, plugins=[recorder("p1"), recorder("p2")])
    sessions = InMemorySessionService()
    runner = Runner(app=app, session_service=sessions)
    session = await sessions.create_session(app_name="plugins", user_id="u")
    async for _ in runner.run_async(user_id="u", session_id=session.id, new_message="hello"):
        pass
    stored = await sessions.get_session(app_name="plugins", user_id="u", session_id=session.id)
    assert stored is not None
    return log, [_summary(e) for e in stored.events]


@pytest.mark.parametrize("name", sorted(RECORDED))
async def test_callbacks_run_as_google_adk_runs_them(name: str) -> None:
    recorded = RECORDED[name]
    calls, events = await _run(recorded["spec"])
    assert calls == recorded["calls"]
    if recorded["raised"] is None:
        assert events == recorded["events"]
        return
    # google-adk raises a RuntimeError after storing an error event; yadk ends the invocation
    # with that one event, named by its code, and raises nothing.
    *before, error = events
    *recorded_before, recorded_error = recorded["events"]
    assert before == recorded_before
    assert recorded_error["error_code"] == "RuntimeError"
    assert error["error_code"] == "PLUGIN_ERROR"
    assert recorded_error["error_message"] + " (ValueError)" == (
        "Error in plugin 'p2' during 'before_model_callback' callback: boom (ValueError)"
    )
    assert error["error_message"] == (
        "Error in plugin 'p2' during 'before_model_callback' callback: ValueError: boom"
    )


class _FailsAfterRun(BasePlugin):
    async def after_run_callback(self, *, invocation_context: Any) -> None:
        raise OSError("disk full")


async def test_a_failing_after_run_ends_the_invocation_with_one_error_event() -> None:
    from yadk.models import ScriptedModel

    agent = LlmAgent(name="agent", model=ScriptedModel(turns=[{"text": "ok"}]))
    runner = Runner(app=App(name="plugins", root_agent=agent, plugins=[_FailsAfterRun("tidy")]))
    session = await runner.session_service.create_session(app_name="plugins", user_id="u")
    events = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="hi")
    ]
    assert [(e.author, e.error_code) for e in events] == [
        ("user", None),
        ("agent", None),
        ("agent", "PLUGIN_ERROR"),
    ]
    assert events[-1].error_message == (
        "Error in plugin 'tidy' during 'after_run_callback' callback: OSError: disk full"
    )


def test_plugin_names_are_unique() -> None:
    from yadk.models import ScriptedModel

    agent = LlmAgent(name="agent", model=ScriptedModel(turns=[]))
    plugins = [BasePlugin("same"), BasePlugin("same")]
    with pytest.raises(ValueError, match="Plugin with name 'same' already registered."):
        Runner(app=App(name="plugins", root_agent=agent, plugins=plugins))


async def test_runner_takes_plugins_with_an_agent_as_google_adk_does() -> None:
    from yadk.models import ScriptedModel

    log: list[str] = []
    recorder = _recorder(log, {})
    agent = LlmAgent(name="agent", model=ScriptedModel(turns=[{"text": "ok"}]))
    runner = Runner(agent=agent, app_name="plugins", plugins=[recorder("p1")])
    session = await runner.session_service.create_session(app_name="plugins", user_id="u")
    async for _ in runner.run_async(user_id="u", session_id=session.id, new_message="hi"):
        pass
    assert log[:2] == ["p1.on_user_message_callback", "p1.before_run_callback"]
    with pytest.raises(ValueError, match="pass plugins= only with agent="):
        Runner(app=App(name="x", root_agent=LlmAgent(name="b", model="m")), plugins=[recorder("p")])
