"""The configs under cases/, written as google-adk's docs write them, run in yadk with a scripted
model and compared with what google-adk 2.13 did with the same config and script
(recorded/<case>.json, made by record_adk.py with google-adk's Python; this test never needs
google-adk). Every model request and every event must match, ids and timestamps aside; the
differences that remain are listed in docs/adk_compat.md and spelled out in ``_ALLOWED``.
"""

from __future__ import annotations

import base64
import json
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.tools._mcp_helpers import http_server

from yadk import Runner
from yadk.artifacts import InMemoryArtifactService
from yadk.config import load_agent
from yadk.events import Event
from yadk.memory import InMemoryMemoryService
from yadk.models import ScriptedModel
from yadk.sessions import InMemorySessionService
from yadk.types import Blob, Content, FunctionResponse, Part

HERE = Path(__file__).parent
SERVER = HERE.parent / "tools" / "mcp_server.py"
CASES = sorted(p.name for p in (HERE / "cases").iterdir() if (p / "script.json").exists())
_TIME = re.compile(r"\d{8}_\d{6}|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?")


def recorded(case: str) -> dict[str, Any]:
    return json.loads((HERE / "recorded" / f"{case}.json").read_text())


def normal(value: Any) -> Any:
    """Call ids and timestamps differ from run to run."""
    if isinstance(value, dict):
        return {k: normal(v) for k, v in value.items() if k != "id"}
    if isinstance(value, list):
        return [normal(v) for v in value]
    if isinstance(value, str):
        return _TIME.sub("TIME", value)
    return value


def request_shape(request: Any) -> dict[str, Any]:
    return {
        "agent": request.agent_name,
        "system_instruction": request.system_instruction,
        "contents": [c.to_dict() for c in request.contents],
        "declarations": [
            {"name": d.name, "description": d.description, "parameters": d.parameters}
            for d in request.function_declarations
        ],
        "native_tools": request.config.get("tools", []),
        "response_schemas": {
            d.name: d.response for d in request.function_declarations if d.response is not None
        },
    }


def event_shape(event: Event) -> dict[str, Any]:
    return {
        "author": event.author,
        "content": event.content.to_dict() if event.content else None,
        "final": event.is_final_response(),
        "long_running": bool(event.long_running_tool_ids),
        "state_delta": dict(event.actions.state_delta),
        "artifact_delta": dict(event.actions.artifact_delta),
    }


def adk_events(case: str) -> list[dict[str, Any]]:
    """google-adk's events, less the empty ones it stores before each answer of a
    code-executing agent (yadk does not store an event that carries nothing)."""
    return [
        e
        for e in recorded(case)["events"]
        if e["content"] is not None or e["state_delta"] or e["artifact_delta"]
    ]


@pytest.fixture(scope="module")
def mcp_url() -> Iterator[str]:
    with http_server("http") as url:
        yield url


def prepared(case: str, workdir: Path, url: str) -> Path:
    """The case copied into ``workdir`` with its placeholders filled in for this Python."""
    target = workdir / case
    shutil.copytree(HERE / "cases" / case, target)
    config = target / "root_agent.yaml"
    text = config.read_text()
    text = text.replace("command: PYTHON", f"command: {sys.executable}")
    text = text.replace("- MCP_SERVER", f"- {SERVER}").replace("url: MCP_URL", f"url: {url}")
    config.write_text(text)
    return target


def llm_agents(agent: Any) -> Iterator[Any]:
    yield agent
    for child in agent.sub_agents:
        yield from llm_agents(child)


async def run_case(case: str, folder: Path) -> tuple[ScriptedModel, list[Event]]:
    script = json.loads((folder / "script.json").read_text())
    agent = load_agent(folder)
    model = ScriptedModel(
        turns=[{"parts": t["parts"]} for t in script["turns"]], name="gemini-2.5-flash"
    )
    for each in llm_agents(agent):
        if hasattr(each, "model"):
            each.model = model
    sessions = InMemorySessionService()
    artifacts = InMemoryArtifactService()
    memory = InMemoryMemoryService()
    runner = Runner(
        app_name="app",
        agent=agent,
        session_service=sessions,
        artifact_service=artifacts,
        memory_service=memory,
    )
    if script.get("memory"):
        old = await sessions.create_session(app_name="app", user_id="u")
        for author, text in script["memory"]:
            role = "user" if author == "user" else "model"
            content = Content(role=role, parts=[Part(text=text)])
            await sessions.append_event(old, Event(author=author, content=content))
        await memory.add_session_to_memory(old)
    session = await sessions.create_session(app_name="app", user_id="u")
    for name, blob in script.get("artifacts", {}).items():
        part = Part(
            inline_data=Blob(mime_type=blob["mime_type"], data=base64.b64decode(blob["data"]))
        )
        await artifacts.save_artifact(
            app_name="app", user_id="u", session_id=session.id, filename=name, artifact=part
        )
    events: list[Event] = []
    pending: dict[str, str] = {}
    try:
        for invocation in script["invocations"]:
            if "message" in invocation:
                message = Content(role="user", parts=[Part(text=invocation["message"])])
            else:
                answer = invocation["function_response"]
                response = FunctionResponse(
                    id=pending[answer["name"]], name=answer["name"], response=answer["response"]
                )
                message = Content(role="user", parts=[Part(function_response=response)])
            async for event in runner.run_async(
                user_id="u", session_id=session.id, new_message=message
            ):
                if event.author == "user":
                    continue
                for call in event.get_function_calls():
                    if call.id in (event.long_running_tool_ids or set()):
                        pending[call.name] = call.id or ""
                events.append(event)
    finally:
        await runner.close()
    return model, events


@pytest.mark.parametrize("case", CASES)
@pytest.mark.subprocess
async def test_case_runs_as_in_google_adk(
    case: str, tmp_path: Path, mcp_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADK_ALLOW_CONFIG_STDIO_MCP_SERVERS", "1")
    monkeypatch.syspath_prepend(str(tmp_path))
    model, events = await run_case(case, prepared(case, tmp_path, mcp_url))
    adk = recorded(case)
    assert model.remaining == adk["unused_turns"] == 0
    assert normal([request_shape(r) for r in model.requests]) == normal(adk["requests"])
    assert normal([event_shape(e) for e in events]) == normal(adk_events(case))


def test_google_adk_cannot_load_code_executor_from_yaml() -> None:
    # Listed in docs/adk_compat.md: yadk accepts the key, google-adk's YAML does not.
    assert recorded("sbs_code_execution")["adk_load_error"] == (
        "ValidationError: 1 validation error for LlmAgentConfig"
    )
