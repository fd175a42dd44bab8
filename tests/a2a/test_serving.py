"""`POST /a2a/{app}` of a real server on 127.0.0.1 (uvicorn in a thread, SQLite store): the card,
JSON-RPC in both protocol versions, tasks read back, input-required and resume, cancel, the
errors, and tasks surviving a restart."""

from __future__ import annotations

import json
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from tests.serve.live import BOUND, Live, live_server, wait_for

from yadk.artifacts import InMemoryArtifactService
from yadk.cli import main
from yadk.sessions import InMemorySessionService, SqliteSessionService

SERVED = Path(__file__).with_name("served")
ECHO = Path(__file__).parents[1] / "serve" / "agents"
WORKFLOWS = Path(__file__).parents[1] / "workflow" / "configs"
V1 = {"A2A-Version": "1.0"}


@pytest.fixture
def agents(tmp_path: Path) -> Path:
    target = tmp_path / "served"
    shutil.copytree(SERVED, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    """One server for the tests that only add tasks of their own (capital, slow, errors)."""
    root = tmp_path_factory.mktemp("shared")
    shutil.copytree(SERVED, root / "served", ignore=shutil.ignore_patterns("__pycache__"))
    with live_server(
        root / "served", session_service=SqliteSessionService(root / "sessions.db")
    ) as running:
        yield running


@pytest.fixture
def live(agents: Path, tmp_path: Path) -> Iterator[Live]:
    with live_server(
        agents,
        session_service=SqliteSessionService(tmp_path / "sessions.db"),
        artifact_service=InMemoryArtifactService(),
    ) as running:
        yield running


def rpc(
    live: Live,
    app: str,
    method: str,
    params: dict[str, Any] | None = None,
    *,
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": "r1", "method": method}
    if params is not None:
        body["params"] = params
    reply = httpx.post(f"{live.url}/a2a/{app}", json=body, headers=headers or {}, timeout=BOUND)
    assert reply.status_code == 200, reply.text
    data: dict[str, Any] = reply.json()
    assert data["jsonrpc"] == "2.0"
    assert data["id"] == "r1"
    return data


def message_1_0(text: str, **ids: str) -> dict[str, Any]:
    return {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": text}], **ids}


def message_0_3(text: str, **ids: str) -> dict[str, Any]:
    return {
        "messageId": "m-1",
        "kind": "message",
        "role": "user",
        "parts": [{"kind": "text", "text": text}],
        **ids,
    }


def answer_text(task: dict[str, Any]) -> str:
    return " ".join(p["text"] for a in task.get("artifacts", []) for p in a["parts"] if "text" in p)


def test_the_card_names_the_real_endpoint_in_both_versions(shared: Live) -> None:
    card = httpx.get(f"{shared.url}/a2a/capital/.well-known/agent-card.json", timeout=BOUND).json()
    endpoint = f"{shared.url}/a2a/capital"
    assert card["name"] == "capital"
    assert card["description"] == "Answers questions about capital cities."
    assert card["url"] == endpoint
    assert card["preferredTransport"] == "JSONRPC"
    assert card["supportedInterfaces"] == [
        {"url": endpoint, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        {"url": endpoint, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
    ]
    assert card["capabilities"]["streaming"] is True
    assert card["capabilities"]["pushNotifications"] is False
    assert [s["name"] for s in card["skills"]] == ["model"]
    extended = rpc(shared, "capital", "GetExtendedAgentCard", {}, headers=V1)["result"]
    assert extended == card


def test_one_app_served_publishes_its_card_at_the_root_too(agents: Path) -> None:
    with live_server(agents / "capital") as live:
        card = httpx.get(f"{live.url}/.well-known/agent-card.json", timeout=BOUND).json()
        assert card["url"] == f"{live.url}/a2a/capital"
        assert card["supportedInterfaces"][0]["url"] == f"{live.url}/a2a/capital"


def test_an_agent_json_in_the_app_folder_wins(agents: Path) -> None:
    (agents / "capital" / "agent.json").write_text(
        '{"name": "hand-written", "url": "https://agents.example/capital"}', encoding="utf-8"
    )
    with live_server(agents) as live:
        url = f"{live.url}/a2a/capital/.well-known/agent-card.json"
        assert httpx.get(url, timeout=BOUND).json() == {
            "name": "hand-written",
            "url": "https://agents.example/capital",
        }


def test_a_broken_agent_json_names_the_file_and_the_place(agents: Path) -> None:
    (agents / "capital" / "agent.json").write_text('{"name": \n  oops}', encoding="utf-8")
    with live_server(agents) as live:
        reply = httpx.get(f"{live.url}/a2a/capital/.well-known/agent-card.json", timeout=BOUND)
        assert reply.status_code == 500
        detail = reply.json()["detail"]
        assert "agent.json:2:3: the agent card cannot be published: not valid JSON" in detail
    (agents / "capital" / "agent.json").unlink()
    (agents / "capital" / "agent.json").symlink_to(agents.parent / "elsewhere.json")
    (agents.parent / "elsewhere.json").write_text('{"name": "outside"}', encoding="utf-8")
    with live_server(agents) as live:
        reply = httpx.get(f"{live.url}/a2a/capital/.well-known/agent-card.json", timeout=BOUND)
        assert reply.status_code == 500
        assert "is outside the folder" in reply.json()["detail"]


def test_send_message_1_0_completes_a_task_that_get_task_reads_back(shared: Live) -> None:
    sent = rpc(shared, "capital", "SendMessage", {"message": message_1_0("France?")}, headers=V1)
    task = sent["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    assert answer_text(task) == "The capital of France is Paris."
    assert [m["role"] for m in task["history"]] == ["ROLE_USER", "ROLE_AGENT"]
    got = rpc(shared, "capital", "GetTask", {"id": task["id"]}, headers=V1)["result"]
    assert got == task
    short = rpc(shared, "capital", "GetTask", {"id": task["id"], "historyLength": 1}, headers=V1)
    assert [m["role"] for m in short["result"]["history"]] == ["ROLE_AGENT"]
    old = rpc(shared, "capital", "tasks/get", {"id": task["id"]})["result"]
    assert old["kind"] == "task"
    assert old["status"]["state"] == "completed"
    assert old["artifacts"][0]["parts"] == [
        {"kind": "text", "text": "The capital of France is Paris."}
    ]


def test_the_context_is_the_session_of_the_a2a_user(shared: Live) -> None:
    first = rpc(shared, "capital", "message/send", {"message": message_0_3("France?")})["result"]
    context = first["contextId"]
    second = rpc(
        shared, "capital", "message/send", {"message": message_0_3("Japan?", contextId=context)}
    )["result"]
    assert second["contextId"] == context
    assert second["id"] != first["id"]
    assert answer_text(second) == "The capital of Japan is Tokyo."
    session = httpx.get(
        f"{shared.url}/apps/capital/users/A2A_USER_{context}/sessions/{context}", timeout=BOUND
    ).json()
    texts = [e["content"]["parts"][0]["text"] for e in session["events"] if e.get("content")]
    assert texts == [
        "France?",
        "The capital of France is Paris.",
        "Japan?",
        "The capital of Japan is Tokyo.",
    ]
    listed = rpc(shared, "capital", "ListTasks", {"contextId": context}, headers=V1)["result"]
    assert [t["id"] for t in listed["tasks"]] == [second["id"], first["id"]]
    assert listed["totalSize"] == 2


def test_a_long_running_tool_stops_the_task_in_input_required_and_the_next_message_resumes_it(
    live: Live,
) -> None:
    asked = rpc(live, "approval", "message/send", {"message": message_0_3("reimburse my taxi")})
    task = asked["result"]
    assert task["status"]["state"] == "input-required"
    question = task["status"]["message"]["parts"]
    assert question[0] == {"kind": "text", "text": "I need a manager's approval first."}
    # Marked as google-adk's server marks the call its RemoteA2aAgent is to answer.
    assert question[1]["metadata"] == {"adk_type": "function_call", "adk_is_long_running": True}
    # The question is not said again in the answer (google-adk's task has no artifact yet).
    assert "artifacts" not in task
    assert question[1]["data"]["name"] == "ask_for_approval"
    answered = rpc(
        live,
        "approval",
        "message/send",
        {"message": message_0_3("yes, approved", taskId=task["id"])},
    )["result"]
    assert answered["id"] == task["id"]
    assert answered["status"]["state"] == "completed"
    assert answer_text(answered).endswith("Your taxi reimbursement of $150 is approved.")
    again = rpc(
        live, "approval", "message/send", {"message": message_0_3("more", taskId=task["id"])}
    )
    assert again["error"]["code"] == -32602
    assert "is completed" in again["error"]["message"]


def test_cancel_task_cancels_the_invocation(shared: Live) -> None:
    started = rpc(
        shared,
        "slow",
        "SendMessage",
        {"message": message_1_0("take your time"), "configuration": {"returnImmediately": True}},
        headers=V1,
    )["result"]["task"]
    assert started["status"]["state"] in ("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING")
    canceled = rpc(shared, "slow", "CancelTask", {"id": started["id"]}, headers=V1)["result"]
    assert canceled["status"]["state"] == "TASK_STATE_CANCELED"
    got = rpc(shared, "slow", "GetTask", {"id": started["id"]}, headers=V1)["result"]
    assert got["status"]["state"] == "TASK_STATE_CANCELED"
    twice = rpc(shared, "slow", "CancelTask", {"id": started["id"]}, headers=V1)
    assert twice["error"]["code"] == -32002


@pytest.mark.parametrize(
    ("method", "params", "headers", "code"),
    [
        ("tasks/list/all", {}, {}, -32601),
        ("SendMessage", {"message": message_1_0("France?")}, {}, -32009),
        ("message/send", {"message": message_0_3("France?")}, V1, -32009),
        ("GetTask", {"id": "x"}, {"A2A-Version": "2.0"}, -32009),
        ("SendMessage", {}, V1, -32602),
        ("SendMessage", {"message": {"role": "ROLE_USER", "parts": "hi"}}, V1, -32602),
        ("SendMessage", {"message": message_1_0("hi", taskId="nope")}, V1, -32001),
        ("GetTask", {"id": "no-such-task"}, V1, -32001),
        ("GetTask", {}, V1, -32602),
        ("CancelTask", {"id": 7}, V1, -32602),
        ("tasks/get", {"id": "bm8.0123456789abcdef0123456789abcdef"}, {}, -32001),
        ("CreateTaskPushNotificationConfig", {}, V1, -32003),
        ("tasks/pushNotificationConfig/set", {}, {}, -32003),
    ],
)
def test_errors_are_json_rpc_errors(
    shared: Live, method: str, params: dict[str, Any], headers: dict[str, str], code: int
) -> None:
    reply = rpc(shared, "capital", method, params, headers=headers)
    assert reply["error"]["code"] == code, reply
    assert reply["error"]["message"]


def test_malformed_requests(shared: Live) -> None:
    url = f"{shared.url}/a2a/capital"
    parse = httpx.post(url, content=b"{not json", timeout=BOUND).json()
    assert parse["error"]["code"] == -32700
    assert parse["id"] is None
    batch = httpx.post(url, json=[{"jsonrpc": "2.0", "method": "tasks/get"}], timeout=BOUND)
    assert batch.json()["error"]["code"] == -32600
    no_version = httpx.post(url, json={"id": 7, "method": "tasks/get"}, timeout=BOUND).json()
    assert no_version == {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {"code": -32600, "message": "Invalid request: 'jsonrpc' must be exactly '2.0'"},
    }
    missing = httpx.post(f"{shared.url}/a2a/nobody", json={}, timeout=BOUND)
    assert missing.status_code == 404


def test_the_token_policy_applies(agents: Path) -> None:
    with live_server(agents, token="s3cret") as live:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "x"}}
        url = f"{live.url}/a2a/capital"
        assert httpx.post(url, json=body, timeout=BOUND).status_code == 401
        card = f"{url}/.well-known/agent-card.json"
        assert httpx.get(card, timeout=BOUND).status_code == 401
        allowed = httpx.post(
            url, json=body, headers={"Authorization": "Bearer s3cret"}, timeout=BOUND
        )
        assert allowed.json()["error"]["code"] == -32001


def test_tasks_survive_a_restart_on_sqlite(agents: Path, tmp_path: Path) -> None:
    db = tmp_path / "restart.db"
    with live_server(agents, session_service=SqliteSessionService(db)) as first:
        done = rpc(first, "capital", "SendMessage", {"message": message_1_0("France?")}, headers=V1)
        waiting = rpc(first, "approval", "message/send", {"message": message_0_3("reimburse")})
    # The restarted server's scripted model starts its script afresh: keep only the answer.
    (agents / "approval" / "turns.yaml").write_text(
        "turns:\n  - text: Approved after the restart.\n", encoding="utf-8"
    )
    with live_server(agents, session_service=SqliteSessionService(db)) as second:
        task_id = done["result"]["task"]["id"]
        got = rpc(second, "capital", "GetTask", {"id": task_id}, headers=V1)["result"]
        assert got == done["result"]["task"]
        resumed = rpc(
            second,
            "approval",
            "message/send",
            {"message": message_0_3("approved", taskId=waiting["result"]["id"])},
        )["result"]
        assert resumed["status"]["state"] == "completed"
        assert answer_text(resumed).endswith("Approved after the restart.")


def test_yadk_card_prints_the_card_the_server_publishes(
    live: Live, agents: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    endpoint = f"{live.url}/a2a/capital"
    assert main(["card", str(agents / "capital"), "--url", endpoint]) == 0
    printed = json.loads(capsys.readouterr().out)
    served = httpx.get(f"{endpoint}/.well-known/agent-card.json", timeout=BOUND).json()
    assert printed == served
    (agents / "capital" / "agent.json").write_text('{"name": "mine"}', encoding="utf-8")
    assert main(["card", str(agents / "capital")]) == 0
    assert json.loads(capsys.readouterr().out) == {"name": "mine"}
    (agents / "capital" / "agent.json").write_text("[1,", encoding="utf-8")
    assert main(["card", str(agents / "capital")]) == 1
    assert "agent.json:1:4: the agent card cannot be published: not valid JSON" in (
        capsys.readouterr().err
    )


def test_saved_files_are_artifacts_data_parts_round_trip_and_errors_fail_the_task() -> None:
    with live_server(ECHO) as live:
        saved = rpc(
            live, "echo", "SendMessage", {"message": message_1_0("remember milk")}, headers=V1
        )
        task = saved["result"]["task"]
        assert task["status"]["state"] == "TASK_STATE_COMPLETED"
        assert [(a["name"], a["parts"]) for a in task["artifacts"]] == [
            ("response", [{"text": "noted"}]),
            ("note.txt", [{"text": "milk"}]),
        ]
        parts = [{"text": "hello"}, {"data": {"k": [1, 2]}}]
        sent = {"messageId": "m-2", "role": "ROLE_USER", "parts": parts}
        echoed = rpc(live, "echo", "SendMessage", {"message": sent}, headers=V1)["result"]["task"]
        assert echoed["history"][0]["parts"] == parts
        assert answer_text(echoed) == "echo: hello"
        old = rpc(live, "echo", "tasks/get", {"id": echoed["id"]})["result"]
        assert old["history"][0]["parts"] == [
            {"kind": "text", "text": "hello"},
            {"kind": "data", "data": {"k": [1, 2]}},
        ]
        failed = rpc(live, "echo", "SendMessage", {"message": message_1_0("boom")}, headers=V1)
        status = failed["result"]["task"]["status"]
        assert status["state"] == "TASK_STATE_FAILED"
        assert "the model broke" in status["message"]["parts"][0]["text"]


def test_a_busy_context_and_a_finished_subscription_are_errors(agents: Path) -> None:
    with live_server(agents, busy_wait=0.05) as live:
        first = rpc(
            live,
            "slow",
            "SendMessage",
            {
                "message": message_1_0("take your time", contextId="c-1"),
                "configuration": {"returnImmediately": True},
            },
            headers=V1,
        )["result"]["task"]
        busy = rpc(
            live,
            "slow",
            "SendMessage",
            {"message": message_1_0("me too", contextId="c-1")},
            headers=V1,
        )
        assert busy["error"]["code"] == -32603
        assert "Context 'c-1' is busy" in busy["error"]["message"]
        rpc(live, "slow", "CancelTask", {"id": first["id"]}, headers=V1)
        ended = rpc(live, "slow", "SubscribeToTask", {"id": first["id"]}, headers=V1)
        assert ended["error"]["code"] == -32004


def test_list_tasks_across_contexts_filters_and_pages(live: Live) -> None:
    for text in ("France?", "Japan?", "France?"):
        rpc(live, "capital", "SendMessage", {"message": message_1_0(text)}, headers=V1)
    everything = rpc(live, "capital", "ListTasks", {}, headers=V1)["result"]
    assert everything["totalSize"] == 3
    assert len({t["contextId"] for t in everything["tasks"]}) == 3
    page = rpc(live, "capital", "ListTasks", {"pageSize": 2}, headers=V1)["result"]
    assert len(page["tasks"]) == 2
    rest = rpc(
        live,
        "capital",
        "ListTasks",
        {"pageSize": 2, "pageToken": page["nextPageToken"]},
        headers=V1,
    )["result"]
    assert len(rest["tasks"]) == 1
    assert rest["nextPageToken"] == ""
    done = {"status": "TASK_STATE_COMPLETED"}
    assert rpc(live, "capital", "ListTasks", done, headers=V1)["result"]["totalSize"] == 3
    waiting = {"status": "TASK_STATE_INPUT_REQUIRED"}
    assert rpc(live, "capital", "ListTasks", waiting, headers=V1)["result"]["tasks"] == []
    bad = rpc(live, "capital", "ListTasks", {"pageSize": 1000}, headers=V1)
    assert bad["error"]["code"] == -32602
    newest = everything["tasks"][0]["status"]["timestamp"]
    recent = {"statusTimestampAfter": newest}
    assert rpc(live, "capital", "ListTasks", recent, headers=V1)["result"]["totalSize"] >= 1
    future = {"statusTimestampAfter": "2999-01-01T00:00:00Z"}
    assert rpc(live, "capital", "ListTasks", future, headers=V1)["result"]["tasks"] == []
    garbled = rpc(live, "capital", "ListTasks", {"statusTimestampAfter": "soon"}, headers=V1)
    assert garbled["error"]["code"] == -32602


def test_yadk_web_answers_a2a_too(agents: Path) -> None:
    from yadk.serve._webapp import create_web_app

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = int(listener.getsockname()[1])
    app = create_web_app(
        agents,
        host="127.0.0.1",
        port=port,
        session_service=InMemorySessionService(),
        artifact_service=InMemoryArtifactService(),
    )
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", ws="none"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    try:
        wait_for(lambda: server.started, what="the web server starting")
        url = f"http://127.0.0.1:{port}/a2a/capital"
        card = httpx.get(f"{url}/.well-known/agent-card.json", timeout=BOUND).json()
        assert card["supportedInterfaces"][0]["url"] == url
        body = {"jsonrpc": "2.0", "id": 1, "method": "message/send"}
        body["params"] = {"message": message_0_3("France?")}
        task = httpx.post(url, json=body, timeout=BOUND).json()["result"]
        assert answer_text(task) == "The capital of France is Paris."
    finally:
        server.should_exit = True
        thread.join(timeout=BOUND)
        listener.close()


def test_a_workflow_question_is_input_required_and_the_answer_resumes_it(tmp_path: Path) -> None:
    shutil.copytree(WORKFLOWS, tmp_path / "wf", ignore=shutil.ignore_patterns("__pycache__"))
    with live_server(tmp_path / "wf") as live:
        refund = message_0_3("I want a refund for order 7")
        asked = rpc(live, "adk_desk", "message/send", {"message": refund})["result"]
        assert asked["status"]["state"] == "input-required"
        (call,) = asked["status"]["message"]["parts"]
        assert call["data"]["name"] == "adk_request_input"
        assert call["data"]["args"]["message"] == "Approve? (I want a refund for order 7)"
        yes = message_0_3("yes", taskId=asked["id"])
        done = rpc(live, "adk_desk", "message/send", {"message": yes})["result"]
        assert done["status"]["state"] == "completed"
        assert done["artifacts"][0]["parts"] == [{"kind": "text", "text": "Refund sent."}]


def test_replicas_sharing_a_store_share_the_tasks(agents: Path, tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    with live_server(agents, session_service=SqliteSessionService(db)) as one:
        asked = rpc(one, "approval", "message/send", {"message": message_0_3("reimburse")})
        task_id = asked["result"]["id"]
        # The second replica's scripted model has its own script: it only answers.
        (agents / "approval" / "turns.yaml").write_text(
            "turns:\n  - text: Approved by the other replica.\n", encoding="utf-8"
        )
        with live_server(agents, session_service=SqliteSessionService(db)) as two:
            seen = rpc(two, "approval", "tasks/get", {"id": task_id})["result"]
            assert seen["status"]["state"] == "input-required"
            reply = message_0_3("approved", taskId=task_id)
            done = rpc(two, "approval", "message/send", {"message": reply})["result"]
            assert done["status"]["state"] == "completed"
            assert answer_text(done).endswith("Approved by the other replica.")
            back = rpc(one, "approval", "GetTask", {"id": task_id}, headers=V1)["result"]
            assert back["status"]["state"] == "TASK_STATE_COMPLETED"


@pytest.mark.postgres
def test_tasks_live_in_postgresql_across_replicas(agents: Path, postgres_url: str) -> None:
    with live_server(agents, session_service=None, db=postgres_url) as one:
        done = rpc(one, "capital", "SendMessage", {"message": message_1_0("France?")}, headers=V1)
        asked = rpc(one, "approval", "message/send", {"message": message_0_3("reimburse")})
        (agents / "approval" / "turns.yaml").write_text(
            "turns:\n  - text: Approved on PostgreSQL.\n", encoding="utf-8"
        )
        with live_server(agents, session_service=None, db=postgres_url) as two:
            task = done["result"]["task"]
            assert rpc(two, "capital", "GetTask", {"id": task["id"]}, headers=V1)["result"] == task
            reply = message_0_3("approved", taskId=asked["result"]["id"])
            resumed = rpc(two, "approval", "message/send", {"message": reply})["result"]
            assert resumed["status"]["state"] == "completed"
            assert answer_text(resumed).endswith("Approved on PostgreSQL.")


def sse_results(live: Live, app: str, method: str, params: dict[str, Any]) -> list[Any]:
    body = {"jsonrpc": "2.0", "id": "s1", "method": method, "params": params}
    with httpx.stream("POST", f"{live.url}/a2a/{app}", json=body, timeout=BOUND) as reply:
        assert reply.headers["content-type"].startswith("text/event-stream")
        lines = [line for line in reply.iter_lines() if line.startswith("data: ")]
    return [json.loads(line[6:])["result"] for line in lines]


def test_0_3_streams_mark_the_last_update_final_and_a_waiting_task_streams_its_snapshot(
    live: Live,
) -> None:
    events = sse_results(live, "approval", "message/stream", {"message": message_0_3("reimburse")})
    # The task as submitted (the caller's message only), working, then the question: the
    # agent's words beside the waiting call come once, in the final status.
    assert [e["kind"] for e in events] == ["task", "status-update", "status-update"]
    assert [m["role"] for m in events[0]["history"]] == ["user"]
    assert "artifacts" not in events[0]
    assert [e.get("final") for e in events[1:]] == [False, True]
    assert events[-1]["status"]["state"] == "input-required"
    question = events[-1]["status"]["message"]["parts"]
    assert question[0] == {"kind": "text", "text": "I need a manager's approval first."}
    assert question[1]["metadata"] == {"adk_type": "function_call", "adk_is_long_running": True}
    (snapshot,) = sse_results(live, "approval", "tasks/resubscribe", {"id": events[0]["id"]})
    assert snapshot["kind"] == "task"
    assert snapshot["status"]["state"] == "input-required"
    card = rpc(live, "approval", "agent/getAuthenticatedExtendedCard", {})["result"]
    assert card["name"] == "approval"
