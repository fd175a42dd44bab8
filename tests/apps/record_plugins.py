"""Record google-adk 2.13's plugin order and short-circuit rules as ``recorded/plugins.json``.

Each scenario (``SCENARIOS`` below, copied into the JSON so test_plugins.py builds the same
thing in yadk) runs one turn of an LlmAgent with two recording plugins (``p1``, ``p2``) and
recording agent callbacks, a scripted model and two tools (``echo`` answers, ``fail`` raises).
The recording is each callback in the order it ran (``p1.before_model_callback``,
``agent.before_model_callback``, ``model``, ``tool.echo``), the session's events after the turn,
and the exception the run raised, if any.

A scenario's ``returns`` makes a plugin callback return a value (the short-circuit); its
``raises`` makes a plugin callback raise ``ValueError('boom')``.

Re-record (google-adk 2.13.0 in its own venv, never a yadk dependency):

    /opt/adkvenv/bin/python tests/apps/record_plugins.py
"""

from __future__ import annotations

import asyncio
import json
import logging
import warnings
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "recorded" / "plugins.json"

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

CALL_ECHO = {"call": ["echo", {"x": "hi"}]}
CALL_FAIL = {"call": ["fail", {}]}

# name -> model answers, plugin returns/raises ("p1.before_model_callback": "text"), agent
# callbacks that return ("before_model_callback": "text").
SCENARIOS: dict[str, dict[str, Any]] = {
    "order": {"model": [CALL_ECHO, "done"]},
    "user_message_replaced": {
        "model": ["done"],
        "returns": {"p1.on_user_message_callback": "rewritten"},
    },
    "before_run_ends": {"model": ["done"], "returns": {"p1.before_run_callback": "stopped"}},
    "before_agent_answers": {
        "model": ["done"],
        "returns": {"p1.before_agent_callback": "from plugin"},
    },
    "before_agent_second_plugin": {
        "model": ["done"],
        "returns": {"p2.before_agent_callback": "from p2"},
    },
    "agent_callback_answers": {
        "model": ["done"],
        "agent_returns": {"before_agent_callback": "from agent"},
    },
    "after_agent_answers": {
        "model": ["done"],
        "returns": {"p1.after_agent_callback": "after"},
    },
    "before_model_answers": {
        "model": ["unused"],
        "returns": {"p1.before_model_callback": "cached"},
    },
    "after_model_replaces": {
        "model": ["done"],
        "returns": {"p2.after_model_callback": "altered"},
    },
    "before_tool_answers": {
        "model": [CALL_ECHO, "done"],
        "returns": {"p1.before_tool_callback": {"blocked": True}},
    },
    "after_tool_replaces": {
        "model": [CALL_ECHO, "done"],
        "returns": {"p1.after_tool_callback": {"replaced": True}},
    },
    "on_event_replaces": {
        "model": ["done"],
        "returns": {"p1.on_event_callback": "seen"},
    },
    "model_error_recovered": {
        "model": [{"raise": "model down"}],
        "returns": {"p1.on_model_error_callback": "recovered"},
    },
    "tool_error_recovered": {
        "model": [CALL_FAIL, "done"],
        "returns": {"p2.on_tool_error_callback": {"handled": True}},
    },
    "plugin_raises": {"model": ["done"], "raises": ["p2.before_model_callback"]},
}


def _summary(event: Any) -> dict[str, Any]:
    """What a test compares of an event: author, then its text, calls or responses."""
    out: dict[str, Any] = {"author": event.author}
    parts = event.content.parts if event.content is not None and event.content.parts else []
    for part in parts:
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


async def _record(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    from google.adk.agents import LlmAgent
    from google.adk.apps import App
    from google.adk.events import Event
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_response import LlmResponse
    from google.adk.plugins import BasePlugin
    from google.adk.runners import InMemoryRunner
    from google.genai import types
    from pydantic import Field

    log: list[str] = []
    returns: dict[str, Any] = spec.get("returns", {})
    raises: list[str] = spec.get("raises", [])
    agent_returns: dict[str, Any] = spec.get("agent_returns", {})

    def value(callback: str, raw: Any) -> Any:
        if callback in ("before_model_callback", "after_model_callback", "on_model_error_callback"):
            return LlmResponse(content=types.Content(role="model", parts=[types.Part(text=raw)]))
        if callback == "on_event_callback":
            return Event(author="", custom_metadata={"note": raw})
        if isinstance(raw, str):
            return types.Content(role="model", parts=[types.Part(text=raw)])
        return raw

    class Recorder(BasePlugin):
        pass

    def plugin_method(callback: str) -> Any:
        async def method(self: Any, **kwargs: Any) -> Any:
            key = f"{self.name}.{callback}"
            log.append(key)
            if key in raises:
                raise ValueError("boom")
            if key in returns:
                return value(callback, returns[key])
            return None

        return method

    for callback in CALLBACKS:
        setattr(Recorder, callback, plugin_method(callback))

    def agent_callback(kind: str) -> Any:
        def callback(**kwargs: Any) -> Any:
            log.append(f"agent.{kind}")
            if kind in agent_returns:
                return value(kind, agent_returns[kind])
            return None

        return callback

    class Scripted(BaseLlm):
        model: str = "scripted"
        answers: list[Any] = Field(default_factory=list)

        async def generate_content_async(
            self, llm_request: Any, stream: bool = False
        ) -> AsyncGenerator[LlmResponse, None]:
            log.append("model")
            answer = self.answers.pop(0) if self.answers else "ok"
            if isinstance(answer, dict) and "raise" in answer:
                raise RuntimeError(answer["raise"])
            if isinstance(answer, dict):
                call_name, args = answer["call"]
                part = types.Part(function_call=types.FunctionCall(name=call_name, args=args))
            else:
                part = types.Part(text=answer)
            yield LlmResponse(content=types.Content(role="model", parts=[part]))

    def echo(x: str) -> dict[str, str]:
        """Echo x."""
        log.append("tool.echo")
        return {"echo": x}

    def fail() -> dict[str, str]:
        """Fail."""
        log.append("tool.fail")
        raise ValueError("tool broke")

    agent = LlmAgent(
        name="agent",
        model=Scripted(answers=list(spec["model"])),
        instruction="x",
        tools=[echo, fail],
        before_agent_callback=agent_callback("before_agent_callback"),
        after_agent_callback=agent_callback("after_agent_callback"),
        before_model_callback=agent_callback("before_model_callback"),
        after_model_callback=agent_callback("after_model_callback"),
        before_tool_callback=agent_callback("before_tool_callback"),
        after_tool_callback=agent_callback("after_tool_callback"),
    )
    app = App(name="plugins", root_agent=agent, plugins=[Recorder("p1"), Recorder("p2")])
    runner = InMemoryRunner(app=app)
    session = await runner.session_service.create_session(app_name="plugins", user_id="u")
    raised = None
    try:
        async for _ in runner.run_async(
            user_id="u",
            session_id=session.id,
            new_message=types.Content(role="user", parts=[types.Part(text="hello")]),
        ):
            pass
    except Exception as exc:
        raised = f"{type(exc).__name__}: {exc}"
    stored = await runner.session_service.get_session(
        app_name="plugins", user_id="u", session_id=session.id
    )
    assert stored is not None
    return {
        "spec": spec,
        "calls": log,
        "events": [_summary(e) for e in stored.events],
        "raised": raised,
    }


async def main() -> None:
    warnings.simplefilter("ignore")
    logging.disable(logging.CRITICAL)  # google-adk logs each plugin failure with its traceback
    recorded = {name: await _record(name, spec) for name, spec in SCENARIOS.items()}
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({len(recorded)} scenarios)")


if __name__ == "__main__":
    asyncio.run(main())
