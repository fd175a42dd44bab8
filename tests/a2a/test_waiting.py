"""A task that waits for the caller, compared with what google-adk 2.13's server answers
(recorded by record_adk_waiting.py): a long-running tool's call, and a tool call that needs the
caller's confirmation (``FunctionTool(require_confirmation=True)``). Either is input-required,
its question the status message (the agent's words, the waiting call marked long-running), with
no answer artifact yet; the next message answers it: a ``function_response`` data part as
google-adk takes it, or (for a confirmation) yes/no."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.serve.live import BOUND, Live, live_server

from yadk.sessions import SqliteSessionService

SERVED = Path(__file__).with_name("served")
WAITING = json.loads(
    Path(__file__).with_name("recorded").joinpath("adk_waiting.json").read_text("utf-8")
)
RECORDED = WAITING["confirmation"]


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    # A server per test: the scripted model's turns (the call, then the answer) are used up.
    agents = tmp_path / "served"
    shutil.copytree(SERVED, agents, ignore=shutil.ignore_patterns("__pycache__"))
    db = tmp_path / "sessions.db"
    with live_server(agents, session_service=SqliteSessionService(db)) as running:
        yield running


def send(
    live: Live, parts: list[dict[str, Any]], task_id: str | None = None, *, app: str = "payments"
) -> dict[str, Any]:
    message: dict[str, Any] = {"kind": "message", "messageId": "m", "role": "user", "parts": parts}
    if task_id:
        message["taskId"] = task_id
    body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": message}}
    reply: dict[str, Any] = httpx.post(f"{live.url}/a2a/{app}", json=body, timeout=BOUND).json()
    return reply


def ask(live: Live) -> dict[str, Any]:
    task: dict[str, Any] = send(live, [{"kind": "text", "text": "send Bob 250"}])["result"]
    return task


def shape(task: dict[str, Any]) -> tuple[str, list[Any], bool]:
    """What the recording and yadk must agree on: the state, each part of the status message
    as its kind, text, metadata, call name and the confirmation it asks for, and whether the
    task has artifacts."""
    parts = []
    for part in task["status"].get("message", {}).get("parts", []):
        data = part.get("data") or {}
        args = data.get("args") or {}
        original = args.get("originalFunctionCall") or {}
        parts.append(
            (
                part["kind"],
                part.get("text"),
                part.get("metadata"),
                data.get("name"),
                original.get("name"),
                original.get("args", {}).get("to"),
                args.get("toolConfirmation"),
            )
        )
    return task["status"]["state"], parts, bool(task.get("artifacts"))


def test_a_long_running_call_is_input_required_as_google_adk_answers_it(live: Live) -> None:
    asked = send(live, [{"kind": "text", "text": "reimburse my taxi"}], app="approval")["result"]
    recorded = WAITING["long_running"]["asked"]["result"]
    assert shape(asked) == shape(recorded)
    assert shape(asked)[0] == "input-required"


def test_a_confirmation_request_is_input_required_as_google_adk_answers_it(live: Live) -> None:
    asked = ask(live)
    assert shape(asked) == shape(RECORDED["asked"]["result"])
    assert shape(asked)[0] == "input-required"
    (call,) = asked["status"]["message"]["parts"]
    answer = {
        "kind": "data",
        "data": {
            "id": call["data"]["id"],
            "name": "adk_request_confirmation",
            "response": {"confirmed": True},
        },
        "metadata": {"adk_type": "function_response"},
    }
    done = send(live, [answer], asked["id"])["result"]
    recorded = RECORDED["answered"]["result"]
    assert done["status"]["state"] == recorded["status"]["state"] == "completed"
    texts = [p["text"] for a in done["artifacts"] for p in a["parts"] if "text" in p]
    assert texts[-1] == recorded["artifacts"][0]["parts"][0]["text"] == "Sent $250 to Bob."
    # The tool ran once confirmed: its response is in the task's history.
    responses = [
        p["data"]["response"]
        for m in done["history"]
        for p in m["parts"]
        if p.get("metadata") == {"adk_type": "function_response"}
        and p["data"]["name"] == "transfer_money"
    ]
    assert responses[-1] == {"status": "sent", "amount": 250, "to": "Bob"}


@pytest.mark.parametrize(
    ("text", "tool_response"),
    [
        ("yes", {"status": "sent", "amount": 250, "to": "Bob"}),
        ('{"confirmed": true}', {"status": "sent", "amount": 250, "to": "Bob"}),
        ("no", {"error": "This tool call is rejected."}),
    ],
)
def test_a_text_answers_the_confirmation(
    live: Live, text: str, tool_response: dict[str, Any]
) -> None:
    asked = ask(live)
    done = send(live, [{"kind": "text", "text": text}], asked["id"])["result"]
    assert done["status"]["state"] == "completed"
    responses = [
        p["data"]["response"]
        for m in done["history"]
        for p in m["parts"]
        if p.get("metadata") == {"adk_type": "function_response"}
        and p["data"]["name"] == "transfer_money"
    ]
    assert responses[-1] == tool_response


def test_a_text_that_is_no_answer_is_an_error_and_the_task_still_waits(live: Live) -> None:
    asked = ask(live)
    reply = send(live, [{"kind": "text", "text": "maybe later"}], asked["id"])
    assert reply["error"]["code"] == -32602
    assert reply["error"]["message"] == (
        f"Task {asked['id']!r} waits for the confirmation of the tool call transfer_money():"
        ' answer yes or no, or a JSON object ({"confirmed": true, "payload": ...}),'
        " not 'maybe later'"
    )
    body = {"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"id": asked["id"]}}
    got = httpx.post(f"{live.url}/a2a/payments", json=body, timeout=BOUND).json()["result"]
    assert got["status"]["state"] == "input-required"
