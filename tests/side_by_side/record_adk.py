"""Runs every config under cases/ in google-adk 2.13 with a scripted model (offline) and writes
what it did to recorded/<case>.json: each model request and each event. Run with google-adk's
Python (the yadk tests read the recordings; they never need google-adk):

    /opt/adkvenv/bin/python tests/side_by_side/record_adk.py [CASE ...]

A case is a folder holding root_agent.yaml (as google-adk's docs write configs) and script.json:
the model's turns, the invocations (a user message, or a function response answering the last
long-running call), and optionally artifacts and memories to seed.
"""

import asyncio
import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml
from google.adk.agents import LlmAgent
from google.adk.agents.config_agent_utils import from_config
from google.adk.artifacts import InMemoryArtifactService
from google.adk.code_executors import BuiltInCodeExecutor
from google.adk.events import Event
from google.adk.memory import InMemoryMemoryService
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

sys.path.insert(0, str(Path(__file__).parents[1]))
from adk_scripted import Scripted

HERE = Path(__file__).parent
SERVER = HERE.parent / "tools" / "mcp_server.py"


def dump(value):
    return value.model_dump(exclude_none=True, mode="json")


def request_shape(req):
    cfg = req.config
    return {
        "agent": req.config.labels.get("adk_agent_name") if cfg.labels else None,
        "system_instruction": cfg.system_instruction,
        "contents": [dump(c) for c in req.contents],
        "declarations": [
            {"name": d.name, "description": d.description, "parameters": d.parameters_json_schema}
            for t in (cfg.tools or [])
            for d in (t.function_declarations or [])
        ],
        "native_tools": [dump(t) for t in (cfg.tools or []) if not t.function_declarations],
        "response_schemas": {
            d.name: d.response_json_schema
            for t in (cfg.tools or [])
            for d in (t.function_declarations or [])
            if d.response_json_schema is not None
        },
    }


def event_shape(event):
    return {
        "author": event.author,
        "content": dump(event.content) if event.content else None,
        "final": event.is_final_response(),
        "long_running": bool(event.long_running_tool_ids),
        "state_delta": dict(event.actions.state_delta),
        "artifact_delta": dict(event.actions.artifact_delta),
    }


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_http_server():
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(SERVER), "http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("MCP server did not start") from None
            time.sleep(0.05)
    return process, f"http://127.0.0.1:{port}/mcp"


def prepared(case, workdir, url):
    """The case copied into workdir with its placeholders filled in for this Python."""
    target = workdir / case.name
    shutil.copytree(case, target)
    config = target / "root_agent.yaml"
    text = config.read_text()
    text = text.replace("command: PYTHON", f"command: {sys.executable}")
    text = text.replace("- MCP_SERVER", f"- {SERVER}").replace("url: MCP_URL", f"url: {url}")
    config.write_text(text)
    return config


def llm_agents(agent):
    yield agent
    for child in agent.sub_agents:
        yield from llm_agents(child)


def load(config):
    """google-adk's agent for the config; for a config google-adk's YAML cannot express
    (code_executor), the same agent built in Python, with the load error kept."""
    try:
        return from_config(str(config)), None
    except Exception as exc:
        data = yaml.safe_load(config.read_text())
        if data.get("code_executor") != "BuiltInCodeExecutor":
            raise
        agent = LlmAgent(
            name=data["name"],
            model=data["model"],
            instruction=data["instruction"],
            code_executor=BuiltInCodeExecutor(),
        )
        return agent, f"{type(exc).__name__}: {str(exc).splitlines()[0]}"


async def run_case(case, workdir, url):
    script = json.loads((case / "script.json").read_text())
    agent, load_error = load(prepared(case, workdir, url))
    model = Scripted(turns=list(script["turns"]))
    for each in llm_agents(agent):
        if isinstance(each, LlmAgent):
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
            content = types.Content(role=role, parts=[types.Part(text=text)])
            await sessions.append_event(
                old, Event(author=author, invocation_id="i0", content=content)
            )
        await memory.add_session_to_memory(
            await sessions.get_session(app_name="app", user_id="u", session_id=old.id)
        )
    session = await sessions.create_session(app_name="app", user_id="u")
    for name, blob in script.get("artifacts", {}).items():
        part = types.Part(
            inline_data=types.Blob(mime_type=blob["mime_type"], data=base64.b64decode(blob["data"]))
        )
        await artifacts.save_artifact(
            app_name="app", user_id="u", session_id=session.id, filename=name, artifact=part
        )
    events = []
    pending = {}
    for invocation in script["invocations"]:
        if "message" in invocation:
            part = types.Part(text=invocation["message"])
        else:
            answer = invocation["function_response"]
            part = types.Part(
                function_response=types.FunctionResponse(
                    id=pending[answer["name"]], name=answer["name"], response=answer["response"]
                )
            )
        message = types.Content(role="user", parts=[part])
        async for event in runner.run_async(
            user_id="u", session_id=session.id, new_message=message
        ):
            for call in event.get_function_calls():
                if call.id in (event.long_running_tool_ids or set()):
                    pending[call.name] = call.id
            events.append(event_shape(event))
    await runner.close()
    record = {
        "requests": [request_shape(r) for r in model.seen],
        "events": events,
        "unused_turns": len(model.turns),
    }
    if load_error:
        record["adk_load_error"] = load_error
    return record


async def main(names):
    os.environ["ADK_ALLOW_CONFIG_STDIO_MCP_SERVERS"] = "1"
    cases = sorted(p for p in (HERE / "cases").iterdir() if (p / "script.json").exists())
    if names:
        cases = [c for c in cases if c.name in names]
    out = HERE / "recorded"
    out.mkdir(exist_ok=True)
    process, url = start_http_server()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            sys.path.insert(0, tmp)
            for case in cases:
                record = await run_case(case, Path(tmp), url)
                (out / f"{case.name}.json").write_text(json.dumps(record, indent=2) + "\n")
                print(
                    case.name,
                    "requests:",
                    len(record["requests"]),
                    "events:",
                    len(record["events"]),
                )
    finally:
        process.terminate()
        process.wait(10)


asyncio.run(main(sys.argv[1:]))
