"""A real A2A server built with the official a2a-sdk (1.x, with its 0.3 compatibility), on
127.0.0.1 in a thread of the test process: an echo agent that yadk's ``RemoteA2aAgent`` calls.

The agent answers ``echo #N: TEXT`` (N counts the messages of its context, TEXT joins the text
parts with `` | ``) as an artifact, followed by the message's other parts (data, files). ``fail`` fails the task;
``ask`` stops it in ``input-required`` ("Which city?"), and the next message on that task completes
it with ``resumed: TEXT``. Every request's headers and message are recorded.

The card at ``/.well-known/agent-card.json`` is a 1.0 card; ``/v03/.well-known/agent-card.json``
is the same agent described as A2A 0.3 does (a legacy ``url``), and ``/elsewhere/...`` a card whose
endpoint is on another origin.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from a2a.helpers.proto_helpers import new_task, new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events.event_queue_v2 import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Part,
    Role,
    TaskState,
)
from google.protobuf.json_format import MessageToDict
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

BOUND = 20.0


@dataclass
class Recorded:
    """What the server received."""

    headers: list[dict[str, str]] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    turns: dict[str, int] = field(default_factory=dict)


class EchoExecutor(AgentExecutor):
    def __init__(self, recorded: Recorded) -> None:
        self.recorded = recorded

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        message = context.message
        assert message is not None
        self.recorded.messages.append(MessageToDict(message))
        headers = context.call_context.state.get("headers", {})
        self.recorded.headers.append({k.lower(): v for k, v in dict(headers).items()})
        key = context.context_id or ""
        updater = TaskUpdater(event_queue, context.task_id or "", key)
        if context.current_task is None:
            await event_queue.enqueue_event(
                new_task(
                    context.task_id or "",
                    key,
                    TaskState.TASK_STATE_SUBMITTED,
                    history=[message],
                )
            )
        texts = [p.text for p in message.parts if p.HasField("text")]
        data = [p for p in message.parts if not p.HasField("text")]
        joined = " | ".join(texts)
        self.recorded.turns[key] = self.recorded.turns.get(key, 0) + 1
        paused = (
            context.current_task is not None
            and context.current_task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        )
        if paused:
            await updater.add_artifact([Part(text=f"resumed: {joined}")])
            await updater.complete()
            return
        if "fail" in texts:
            await updater.failed(
                new_text_message("told to fail", context_id=key, role=Role.ROLE_AGENT)
            )
            return
        if "ask" in texts:
            await updater.requires_input(
                new_text_message("Which city?", context_id=key, role=Role.ROLE_AGENT)
            )
            return
        answer = [Part(text=f"echo #{self.recorded.turns[key]}: {joined}")]
        for part in data:
            copy = Part()
            copy.CopyFrom(part)
            answer.append(copy)
        await updater.add_artifact(answer, name="answer")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


@dataclass
class SdkServer:
    url: str
    recorded: Recorded
    server: uvicorn.Server


def _card(url: str) -> AgentCard:
    return AgentCard(
        name="sdk_echo",
        description="Echoes what it is told (a2a-sdk).",
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0")
        ],
        capabilities=AgentCapabilities(streaming=False),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="echo", name="echo", description="echoes", tags=["echo"])],
    )


def _legacy_card(url: str) -> dict[str, Any]:
    return {
        "name": "sdk_echo",
        "description": "Echoes what it is told (a2a-sdk, described as A2A 0.3).",
        "url": url,
        "preferredTransport": "JSONRPC",
        "protocolVersion": "0.3.0",
        "version": "1.0.0",
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [],
    }


@contextmanager
def sdk_server() -> Iterator[SdkServer]:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = int(listener.getsockname()[1])
    url = f"http://127.0.0.1:{port}/"
    recorded = Recorded()
    card = _card(url)
    handler = DefaultRequestHandler(
        agent_executor=EchoExecutor(recorded), task_store=InMemoryTaskStore(), agent_card=card
    )

    async def legacy(request: Request) -> JSONResponse:
        return JSONResponse(_legacy_card(url))

    async def elsewhere(request: Request) -> JSONResponse:
        other = _legacy_card("http://127.0.0.2:9/")
        return JSONResponse(other)

    routes = [
        *create_agent_card_routes(card),
        Route("/v03/.well-known/agent-card.json", legacy),
        Route("/elsewhere/.well-known/agent-card.json", elsewhere),
        *create_jsonrpc_routes(handler, "/", enable_v0_3_compat=True),
    ]
    app = Starlette(routes=routes)
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + BOUND
        while not server.started:
            if time.monotonic() > deadline:
                raise AssertionError("the a2a-sdk server did not start")
            time.sleep(0.02)
        yield SdkServer(url=url.rstrip("/"), recorded=recorded, server=server)
    finally:
        server.should_exit = True
        thread.join(timeout=BOUND)
        listener.close()
