"""RemoteA2aAgent against a real A2A server built with the official a2a-sdk, on 127.0.0.1."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.a2a.sdk_server import SdkServer, sdk_server

from yadk import Runner
from yadk.a2a import A2AClientError, AgentCardResolutionError, RemoteA2aAgent
from yadk.agents import RunConfig
from yadk.events import Event
from yadk.sessions import InMemorySessionService
from yadk.types import Blob, Content, FileData, Part


@pytest.fixture
def unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def server() -> Iterator[SdkServer]:
    with sdk_server() as live:
        yield live


async def converse(agent: RemoteA2aAgent, *messages: str | Content) -> list[list[Event]]:
    """Each message's events (the user's own left out), in one session."""
    service = InMemorySessionService()
    async with Runner(app_name="app", agent=agent, session_service=service) as runner:
        session = await service.create_session(app_name="app", user_id="u")
        turns = []
        for message in messages:
            events = runner.run_async(user_id="u", session_id=session.id, new_message=message)
            turns.append([e async for e in events if e.author != "user"])
    return turns


async def test_a_message_goes_out_and_the_answer_comes_back(server: SdkServer) -> None:
    agent = RemoteA2aAgent(name="echo", agent_card=server.url)
    [[event]] = await converse(agent, "hello")
    assert event.author == "echo"
    assert event.content == Content(role="model", parts=[Part(text="echo #1: hello")])
    assert event.error_code is None
    assert event.custom_metadata is not None
    assert event.custom_metadata["a2a:task_state"] == "completed"
    assert agent.description == "Echoes what it is told (a2a-sdk)."  # taken from the card
    assert server.recorded.headers[-1]["a2a-version"] == "1.0"


async def test_the_conversation_keeps_one_remote_context(server: SdkServer) -> None:
    agent = RemoteA2aAgent(name="echo", agent_card=f"{server.url}/.well-known/agent-card.json")
    first, second = await converse(agent, "one", "two")
    assert [e.text for e in first + second] == ["echo #1: one", "echo #2: two"]
    assert first[0].custom_metadata is not None and second[0].custom_metadata is not None
    context = first[0].custom_metadata["a2a:context_id"]
    assert second[0].custom_metadata["a2a:context_id"] == context
    # Only what is new since the remote agent last answered is sent.
    sent = server.recorded.messages[-1]
    assert sent["contextId"] == context
    assert sent["parts"] == [{"text": "two"}]


async def test_a_card_in_the_0_3_shape_is_called_with_0_3_methods(server: SdkServer) -> None:
    agent = RemoteA2aAgent(name="echo", agent_card=f"{server.url}/v03")
    first, second = await converse(agent, "old", "school")
    assert [e.text for e in first + second] == ["echo #1: old", "echo #2: school"]
    assert "a2a-version" not in server.recorded.headers[-1]


async def test_headers_go_with_every_request(server: SdkServer) -> None:
    agent = RemoteA2aAgent(
        name="echo", agent_card=server.url, headers={"Authorization": "Bearer s3cret"}
    )
    await converse(agent, "hi")
    assert server.recorded.headers[-1]["authorization"] == "Bearer s3cret"


async def test_data_and_files_cross_both_ways(server: SdkServer) -> None:
    agent = RemoteA2aAgent(name="echo", agent_card=server.url)
    wrapped = b'<a2a_datapart_json>{"city": "Paris"}</a2a_datapart_json>'
    png = Part(inline_data=Blob(data=b"\x89PNG", mime_type="image/png", display_name="a.png"))
    pdf = Part(
        file_data=FileData(file_uri="https://files.example/r.pdf", mime_type="application/pdf")
    )
    data = Part(inline_data=Blob(data=wrapped, mime_type="text/plain"))
    message = Content(role="user", parts=[Part(text="see data"), data, png, pdf])
    [[event]] = await converse(agent, message)
    assert server.recorded.messages[-1]["parts"] == [
        {"text": "see data"},
        {"data": {"city": "Paris"}},
        {"raw": "iVBORw==", "mediaType": "image/png", "filename": "a.png"},
        {"url": "https://files.example/r.pdf", "mediaType": "application/pdf"},
    ]
    assert event.content is not None
    assert event.content.parts == [Part(text="echo #1: see data"), data, png, pdf]


async def test_input_required_is_resumed_by_the_next_message(server: SdkServer) -> None:
    agent = RemoteA2aAgent(name="echo", agent_card=server.url)
    asked, answered = await converse(agent, "ask", "Paris")
    assert [e.text for e in asked] == ["Which city?"]
    assert asked[0].custom_metadata is not None
    assert asked[0].custom_metadata["a2a:task_state"] == "input-required"
    assert [e.text for e in answered] == ["resumed: Paris"]
    assert server.recorded.messages[-1]["taskId"] == asked[0].custom_metadata["a2a:task_id"]


async def test_a_failed_remote_task_is_one_error_event(server: SdkServer) -> None:
    agent = RemoteA2aAgent(name="echo", agent_card=server.url)
    [events] = await converse(agent, "fail")
    assert [(e.author, e.error_code, e.error_message) for e in events] == [
        ("echo", "A2A_ERROR", "The remote agent sdk_echo reported its task failed: told to fail")
    ]


async def test_the_error_is_raised_when_asked(server: SdkServer) -> None:
    agent = RemoteA2aAgent(name="echo", agent_card=server.url)
    service = InMemorySessionService()
    session = await service.create_session(app_name="app", user_id="u")
    async with Runner(app_name="app", agent=agent, session_service=service) as runner:
        with pytest.raises(A2AClientError, match="reported its task failed"):
            async for _ in runner.run_async(
                user_id="u",
                session_id=session.id,
                new_message="fail",
                run_config=RunConfig(raise_errors=True),
            ):
                pass


async def test_a_card_that_points_elsewhere_is_refused(server: SdkServer) -> None:
    agent = RemoteA2aAgent(name="echo", agent_card=f"{server.url}/elsewhere")
    [events] = await converse(agent, "hi")
    [event] = events
    assert event.error_code == "A2A_ERROR"
    assert event.error_message is not None
    assert "another origin than the one it was fetched from" in event.error_message


async def test_a_server_that_is_not_there(unused_port: int) -> None:
    agent = RemoteA2aAgent(name="echo", agent_card=f"http://127.0.0.1:{unused_port}", timeout=5)
    [[event]] = await converse(agent, "hi")
    assert event.error_code == "A2A_ERROR"
    assert event.error_message is not None
    assert event.error_message.startswith(
        f"Fetching the agent card failed: http://127.0.0.1:{unused_port}"
        "/.well-known/agent-card.json could not be reached: ConnectError"
    )


async def test_a_card_file_is_read(server: SdkServer, tmp_path: Path) -> None:
    card = httpx.get(f"{server.url}/.well-known/agent-card.json").json()
    path = tmp_path / "card.json"
    path.write_text(json.dumps(card), encoding="utf-8")
    agent = RemoteA2aAgent(name="echo", agent_card=str(path))
    [[event]] = await converse(agent, "from a file")
    assert event.text == "echo #1: from a file"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot be read: No such file or directory"),
        ("{nope", "is not valid JSON: Expecting property name"),
        ("[]", "is not a JSON object"),
        (
            '{"name": "x", "supportedInterfaces": [{"url": "grpc://h", "protocolBinding": "GRPC"}]}',
            "offers no JSON-RPC interface (found: GRPC)",
        ),
        ('{"name": "x", "url": "ftp://h/"}', "expected an http:// or https:// URL"),
        ('{"url": "http://h/"}', "has no `name`"),
    ],
    ids=["missing", "not_json", "not_an_object", "no_jsonrpc", "not_http", "no_name"],
)
async def test_card_file_problems(tmp_path: Path, content: str | None, message: str) -> None:
    path = tmp_path / "card.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    agent = RemoteA2aAgent(name="echo", agent_card=str(path))
    with pytest.raises(AgentCardResolutionError, match=re.escape(message)):
        await agent.resolve_card()


async def test_a_traced_call_carries_the_agents_span_as_traceparent(server: SdkServer) -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    agent = RemoteA2aAgent(name="echo", agent_card=server.url)
    runner = Runner(agent=agent, app_name="app", session_service=InMemorySessionService())
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    config = RunConfig(tracer_provider=provider)
    async for _ in runner.run_async(
        user_id="u", session_id=session.id, new_message="hi", run_config=config
    ):
        pass
    await runner.close()
    (span,) = [s for s in exporter.get_finished_spans() if s.name == "invoke_agent echo"]
    context = span.get_span_context()
    expected = f"00-{context.trace_id:032x}-{context.span_id:016x}-{context.trace_flags:02x}"
    assert server.recorded.headers[-1]["traceparent"] == expected
    untraced = RemoteA2aAgent(name="echo", agent_card=server.url)
    await converse(untraced, "hi")
    assert "traceparent" not in server.recorded.headers[-1]
