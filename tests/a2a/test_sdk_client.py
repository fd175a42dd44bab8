"""The official a2a-sdk client against a real `yadk serve` app on 127.0.0.1: card resolution,
send (blocking and streaming), get, cancel, subscribe, resume after input-required, errors; in
A2A 1.0 and, with a card that offers only its 0.3 interface, in 0.3."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.types import (
    AgentCard,
    CancelTaskRequest,
    GetTaskRequest,
    Message,
    Part,
    Role,
    SendMessageConfiguration,
    SendMessageRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    Task,
    TaskState,
)
from a2a.utils.errors import TaskNotFoundError
from tests.serve.live import BOUND, Live, live_server

from yadk.sessions import SqliteSessionService

SERVED = Path(__file__).with_name("served")


def serve(root: Path) -> Iterator[Live]:
    shutil.copytree(SERVED, root / "served", ignore=shutil.ignore_patterns("__pycache__"))
    store = SqliteSessionService(root / "sessions.db")
    with live_server(root / "served", session_service=store) as running:
        yield running


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    """One server for the tests of the agents whose scripts repeat (capital, slow)."""
    yield from serve(tmp_path_factory.mktemp("sdk"))


@pytest.fixture
def own(tmp_path: Path) -> Iterator[Live]:
    """A server of the test's own: the approval agent's script is used up as it runs."""
    yield from serve(tmp_path)


async def card_of(live: Live, app: str, version: str) -> AgentCard:
    async with httpx.AsyncClient(timeout=BOUND) as http:
        card = await A2ACardResolver(http, f"{live.url}/a2a/{app}").get_agent_card()
    keep = [i for i in card.supported_interfaces if i.protocol_version == version]
    del card.supported_interfaces[:]
    card.supported_interfaces.extend(keep)
    return card


def message(text: str, *, task_id: str = "", context_id: str = "") -> Message:
    return Message(
        message_id="m-1",
        role=Role.ROLE_USER,
        parts=[Part(text=text)],
        task_id=task_id,
        context_id=context_id,
    )


def answer(task: Task) -> str:
    return " ".join(p.text for a in task.artifacts for p in a.parts if p.text)


async def send(card: AgentCard, msg: Message, *, streaming: bool) -> list[StreamResponse]:
    client = await create_client(card, client_config=ClientConfig(streaming=streaming))
    try:
        request = SendMessageRequest(message=msg)
        return [event async for event in client.send_message(request)]
    finally:
        await client.close()


async def test_the_card_resolves_with_the_endpoint_of_each_version(live: Live) -> None:
    async with httpx.AsyncClient(timeout=BOUND) as http:
        card = await A2ACardResolver(http, f"{live.url}/a2a/capital").get_agent_card()
    assert card.name == "capital"
    assert [(i.url, i.protocol_version) for i in card.supported_interfaces] == [
        (f"{live.url}/a2a/capital", "1.0"),
        (f"{live.url}/a2a/capital", "0.3"),
    ]
    assert card.capabilities.streaming


@pytest.mark.parametrize("version", ["1.0", "0.3"])
async def test_send_and_get(live: Live, version: str) -> None:
    card = await card_of(live, "capital", version)
    events = await send(card, message("France?"), streaming=False)
    assert len(events) == 1
    task = events[0].task
    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    assert answer(task) == "The capital of France is Paris."
    client = await create_client(card, client_config=ClientConfig(streaming=False))
    try:
        got = await client.get_task(GetTaskRequest(id=task.id))
        assert got.status.state == TaskState.TASK_STATE_COMPLETED
        assert answer(got) == "The capital of France is Paris."
        assert got.context_id == task.context_id
        with pytest.raises(TaskNotFoundError):
            await client.get_task(GetTaskRequest(id="no-such-task"))
    finally:
        await client.close()


@pytest.mark.parametrize("version", ["1.0", "0.3"])
async def test_stream(live: Live, version: str) -> None:
    card = await card_of(live, "capital", version)
    events = await send(card, message("Japan?"), streaming=True)
    kinds = [e.WhichOneof("payload") for e in events]
    assert kinds == ["task", "status_update", "artifact_update", "status_update"]
    assert events[0].task.status.state == TaskState.TASK_STATE_SUBMITTED
    assert events[1].status_update.status.state == TaskState.TASK_STATE_WORKING
    assert [p.text for p in events[2].artifact_update.artifact.parts] == [
        "The capital of Japan is Tokyo."
    ]
    assert events[3].status_update.status.state == TaskState.TASK_STATE_COMPLETED
    assert {e.status_update.task_id for e in events[1::2]} == {events[0].task.id}


@pytest.mark.parametrize("version", ["1.0", "0.3"])
async def test_input_required_then_resume(own: Live, version: str) -> None:
    card = await card_of(own, "approval", version)
    asked = (await send(card, message("reimburse my taxi"), streaming=False))[-1].task
    assert asked.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    assert asked.status.message.parts[0].text == "I need a manager's approval first."
    call = asked.status.message.parts[1]
    assert call.metadata["adk_type"] == "function_call"
    reply = message("approved", task_id=asked.id, context_id=asked.context_id)
    done = (await send(card, reply, streaming=False))[-1].task
    assert done.id == asked.id
    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    assert answer(done).endswith("Your taxi reimbursement of $150 is approved.")


@pytest.mark.parametrize("version", ["1.0", "0.3"])
async def test_subscribe_then_cancel(live: Live, version: str) -> None:
    card = await card_of(live, "slow", version)
    client = await create_client(card, client_config=ClientConfig(streaming=True))
    try:
        request = SendMessageRequest(
            message=message("take your time"),
            configuration=SendMessageConfiguration(return_immediately=True),
        )
        # A non-blocking send (0.3 sends it as blocking=false), then listen to the task.
        sender = await create_client(card, client_config=ClientConfig(streaming=False))
        sent = [e async for e in sender.send_message(request)]
        started = sent[0].task
        await sender.close()
        assert started.status.state in (
            TaskState.TASK_STATE_SUBMITTED,
            TaskState.TASK_STATE_WORKING,
        )
        updates = client.subscribe(SubscribeToTaskRequest(id=started.id))
        first = await anext(updates)
        assert first.task.id == started.id
        canceled = await client.cancel_task(CancelTaskRequest(id=started.id))
        assert canceled.status.state == TaskState.TASK_STATE_CANCELED
        rest = [e async for e in updates]
        assert rest[-1].status_update.status.state == TaskState.TASK_STATE_CANCELED
        got = await client.get_task(GetTaskRequest(id=started.id))
        assert got.status.state == TaskState.TASK_STATE_CANCELED
    finally:
        await client.close()


async def test_two_contexts_run_side_by_side(live: Live) -> None:
    card = await card_of(live, "capital", "1.0")
    results = await asyncio.gather(
        send(card, message("France?"), streaming=False),
        send(card, message("Japan?"), streaming=False),
    )
    assert sorted(answer(r[-1].task) for r in results) == [
        "The capital of France is Paris.",
        "The capital of Japan is Tokyo.",
    ]
