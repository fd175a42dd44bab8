"""Record google-adk 2.13's resumable invocations as ``recorded/resume.json``.

Each scenario (``SCENARIOS``, copied into the JSON so test_resume.py builds the same thing in
yadk) runs one turn of a resumable app and stops reading it after ``stop_after`` events with content
(the user's message and google-adk's checkpoints not counted): the runner has stored those events, and nothing after them ran, as
when a process is killed. Then ``run_async(invocation_id=...)`` resumes it (with ``message``, a
function response to the pending call, when given). The recording: each model call and tool run
in order (``model:a``, ``tool:echo``; ``--`` marks the resumption), the content of every stored
event with its invocation (``1`` the interrupted one, ``2`` a new one), and the exception the
resumption raised, if any. google-adk's checkpoint events (``agent_state``, ``end_of_agent``,
written only by resumable apps) are recorded as ``checkpoint``: yadk writes none (it reads the
point to resume from the events themselves), so test_resume.py leaves them out.

Re-record (google-adk 2.13.0 in its own venv, never a yadk dependency):

    /opt/adkvenv/bin/python tests/apps/record_resume.py
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import warnings
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "recorded" / "resume.json"

ECHO = {"call": ["echo", {"x": "hi"}]}
WAIT = {"call": ["wait_for_approval", {}]}

# shape: "llm" (one LlmAgent "a"), "sequential" (SequentialAgent "seq" of LlmAgents a, b) or
# "transfer" (LlmAgent "a" with sub-agent "b"); model: answers per agent.
SCENARIOS: dict[str, dict[str, Any]] = {
    "before_the_tool_ran": {
        "shape": "llm",
        "model": {"a": [ECHO, "done"]},
        "stop_after": 1,
    },
    "after_the_tool_ran": {
        "shape": "llm",
        "model": {"a": [ECHO, "done"]},
        "stop_after": 2,
    },
    "before_the_first_model_call": {
        "shape": "llm",
        "model": {"a": ["done"]},
        "stop_after": 0,
    },
    "already_finished": {
        "shape": "llm",
        "model": {"a": ["done"]},
        "stop_after": 99,
    },
    "second_agent_of_a_sequence": {
        "shape": "sequential",
        "model": {"a": ["first"], "b": [ECHO, "second"]},
        "stop_after": 1,
    },
    "inside_the_second_agent": {
        "shape": "sequential",
        "model": {"a": ["first"], "b": [ECHO, "second"]},
        "stop_after": 2,
    },
    "after_a_transfer": {
        "shape": "transfer",
        "model": {"a": [{"call": ["transfer_to_agent", {"agent_name": "b"}]}], "b": ["from b"]},
        "stop_after": 2,
    },
    "long_running_tool_pending": {
        "shape": "llm",
        "model": {"a": [WAIT, "approved"]},
        "stop_after": 99,
    },
    "long_running_tool_answered": {
        "shape": "llm",
        "model": {"a": [WAIT, "approved"]},
        "stop_after": 99,
        "message": {"wait_for_approval": {"status": "approved"}},
    },
    "unknown_invocation": {
        "shape": "llm",
        "model": {"a": ["done"]},
        "stop_after": 99,
        "invocation_id": "e-unknown",
    },
    "not_resumable": {
        "shape": "llm",
        "model": {"a": ["done"]},
        "stop_after": 99,
        "resumable": False,
    },
}


def _summary(event: Any, ids: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "author": event.author,
        "invocation": ids.setdefault(event.invocation_id, str(len(ids) + 1)),
    }
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
    actions = event.actions
    if actions.agent_state is not None or actions.end_of_agent:
        out["checkpoint"] = True
    if event.error_code:
        out["error_code"] = event.error_code
    return out


async def _record(spec: dict[str, Any]) -> dict[str, Any]:
    from google.adk.agents import LlmAgent, SequentialAgent
    from google.adk.apps import App, ResumabilityConfig
    from google.adk.events import Event
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_response import LlmResponse
    from google.adk.runners import InMemoryRunner
    from google.adk.tools import LongRunningFunctionTool
    from google.genai import types
    from pydantic import Field

    log: list[str] = []

    class Scripted(BaseLlm):
        model: str = "scripted"
        who: str = ""
        answers: list[Any] = Field(default_factory=list)

        async def generate_content_async(
            self, llm_request: Any, stream: bool = False
        ) -> AsyncGenerator[LlmResponse, None]:
            log.append(f"model:{self.who}")
            answer = self.answers.pop(0) if self.answers else "ok"
            if isinstance(answer, dict):
                call_name, args = answer["call"]
                part = types.Part(function_call=types.FunctionCall(name=call_name, args=args))
            else:
                part = types.Part(text=answer)
            yield LlmResponse(content=types.Content(role="model", parts=[part]))

    def echo(x: str) -> dict[str, str]:
        """Echo x."""
        log.append("tool:echo")
        return {"echo": x}

    def wait_for_approval() -> None:
        """Ask a person to approve."""
        log.append("tool:wait_for_approval")

    def llm(name: str, **kw: Any) -> Any:
        model = Scripted(who=name, answers=list(spec["model"].get(name, [])))
        tools = [echo, LongRunningFunctionTool(func=wait_for_approval)]
        return LlmAgent(name=name, model=model, instruction="x", tools=tools, **kw)

    shape = spec["shape"]
    if shape == "sequential":
        root: Any = SequentialAgent(name="seq", sub_agents=[llm("a"), llm("b")])
    elif shape == "transfer":
        root = llm("a", sub_agents=[llm("b")])
    else:
        root = llm("a")
    resumable = ResumabilityConfig(is_resumable=spec.get("resumable", True))
    app = App(name="resume", root_agent=root, resumability_config=resumable)
    runner = InMemoryRunner(app=app)
    session = await runner.session_service.create_session(app_name="resume", user_id="u")
    message = types.Content(role="user", parts=[types.Part(text="hello")])
    seen = 0
    invocation_id = ""
    if spec["stop_after"] > 0:
        run = runner.run_async(user_id="u", session_id=session.id, new_message=message)
        async with contextlib.aclosing(run) as events:
            async for event in events:
                invocation_id = event.invocation_id
                if event.content is None:
                    continue  # a checkpoint: only events with content are counted
                seen += 1
                if seen >= spec["stop_after"]:
                    break
    else:  # stopped before the agent ran: only the user's message is stored
        first = Event(author="user", invocation_id="e-first", content=message)
        await runner.session_service.append_event(session, first)
        invocation_id = "e-first"
    log.append("--")
    stored = await runner.session_service.get_session(
        app_name="resume", user_id="u", session_id=session.id
    )
    assert stored is not None
    resume_message = None
    if "message" in spec:
        name, response = next(iter(spec["message"].items()))
        call_id = next(
            c.id for e in stored.events for c in e.get_function_calls() if c.name == name
        )
        resume_message = types.Content(
            role="user",
            parts=[
                types.Part(
                    function_response=types.FunctionResponse(
                        id=call_id, name=name, response=response
                    )
                )
            ],
        )
    raised = None
    try:
        async for _ in runner.run_async(
            user_id="u",
            session_id=session.id,
            invocation_id=spec.get("invocation_id", invocation_id),
            new_message=resume_message,
        ):
            pass
    except Exception as exc:
        raised = f"{type(exc).__name__}: {exc}"
    stored = await runner.session_service.get_session(
        app_name="resume", user_id="u", session_id=session.id
    )
    assert stored is not None
    ids: dict[str, str] = {}
    return {
        "spec": spec,
        "calls": log,
        "events": [_summary(e, ids) for e in stored.events],
        "raised": raised,
    }


async def main() -> None:
    warnings.simplefilter("ignore")
    logging.disable(logging.CRITICAL)
    recorded = {name: await _record(spec) for name, spec in SCENARIOS.items()}
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({len(recorded)} scenarios)")


if __name__ == "__main__":
    asyncio.run(main())
