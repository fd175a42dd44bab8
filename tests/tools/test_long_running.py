"""LongRunningFunctionTool and the human-in-the-loop resume, against google-adk 2.13's recorded
behaviour (fixtures/adk_long_running.json, made by fixtures/record_adk_long_running.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from yadk import LlmAgent, Runner
from yadk.models import ScriptedModel
from yadk.tools import LongRunningFunctionTool
from yadk.types import Content, FunctionResponse, Part

ADK = json.loads(Path(__file__).with_name("fixtures").joinpath("adk_long_running.json").read_text())


def ask_for_approval(purpose: str, amount: float) -> dict[str, Any]:
    """Ask for approval for the reimbursement."""
    return {"status": "pending", "approver": "Sean Zhou", "purpose": purpose, "amount": amount}


def wait_silently(purpose: str) -> None:
    """Start a job whose result arrives later."""


def shape(event: Any) -> dict[str, Any]:
    return {
        "author": event.author,
        "long_running": bool(event.long_running_tool_ids),
        "final": event.is_final_response(),
        "content": event.content.model_dump(exclude_none=True, mode="json")
        if event.content
        else None,
    }


def without_ids(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_ids(v) for k, v in value.items() if k != "id"}
    if isinstance(value, list):
        return [without_ids(v) for v in value]
    return value


def test_declaration_is_google_adks() -> None:
    declaration = LongRunningFunctionTool(ask_for_approval).declaration()
    assert declaration.to_dict() == ADK["declaration"]


async def test_pending_then_resumed_by_a_function_response() -> None:
    model = ScriptedModel(
        turns=[
            {
                "function_calls": [
                    {"name": "ask_for_approval", "args": {"purpose": "taxi", "amount": 200.0}}
                ]
            },
            {"text": "Your request is pending."},
            {"text": "Approved, reimbursing."},
        ]
    )
    agent = LlmAgent(
        name="reimburse",
        model=model,
        instruction="Reimburse.",
        tools=[LongRunningFunctionTool(ask_for_approval)],
    )
    runner = Runner(app_name="app", agent=agent)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    first = [
        e
        async for e in runner.run_async(user_id="u", session_id=session.id, new_message="taxi 200")
        if e.author != "user"
    ]
    assert without_ids([shape(e) for e in first]) == without_ids(ADK["first_invocation"])
    call = first[0].get_function_calls()[0]
    assert first[0].long_running_tool_ids == {call.id}

    answer = Content(
        role="user",
        parts=[
            Part(
                function_response=FunctionResponse(
                    id=call.id, name=call.name, response={"status": "approved"}
                )
            )
        ],
    )
    second = [
        e
        async for e in runner.run_async(user_id="u", session_id=session.id, new_message=answer)
        if e.author != "user"
    ]
    assert without_ids([shape(e) for e in second]) == without_ids(ADK["second_invocation"])
    assert len(model.requests) == ADK["model_calls"]
    resumed = [c.model_dump(exclude_none=True, mode="json") for c in model.requests[-1].contents]
    assert resumed == ADK["resumed_request_contents"]


async def test_a_tool_that_answers_nothing_ends_the_invocation_waiting() -> None:
    model = ScriptedModel(
        turns=[
            {"function_calls": [{"name": "wait_silently", "args": {"purpose": "x"}}]},
            {"text": "Done: 42."},
        ]
    )
    agent = LlmAgent(name="jobs", model=model, tools=[LongRunningFunctionTool(wait_silently)])
    runner = Runner(app_name="app", agent=agent)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="go")
    ]
    assert [e.author for e in events] == ["user", "jobs"]
    assert events[-1].is_final_response() and len(model.requests) == 1
    stored = await runner.session_service.get_session(
        app_name="app", user_id="u", session_id=session.id
    )
    assert stored is not None and stored.events[-1].long_running_tool_ids


@pytest.fixture
def reimburse(tmp_path: Path) -> Path:
    folder = tmp_path / "reimburse"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "tools.py").write_text(
        "def reimburse(purpose: str, amount: float) -> dict:\n"
        '    """Reimburse the amount of money to the employee."""\n'
        '    return {"status": "ok"}\n\n\n'
        "def ask_for_approval(purpose: str, amount: float) -> dict:\n"
        '    """Ask for approval for the reimbursement."""\n'
        '    return {"status": "pending", "amount": amount, "ticketId": "reimbursement-ticket-001"}\n'
    )
    # As google-adk's tool_human_in_the_loop_config sample writes it.
    (folder / "root_agent.yaml").write_text(
        "agent_class: LlmAgent\nname: reimbursement_agent\nmodel: gemini-2.5-flash\n"
        "instruction: |\n  You are an agent whose job is to handle the reimbursement process.\n"
        "tools:\n  - name: reimburse.tools.reimburse\n"
        "  - name: LongRunningFunctionTool\n    args:\n      func: reimburse.tools.ask_for_approval\n"
    )
    (tmp_path / "script.yaml").write_text(
        "turns:\n"
        "  - function_calls: [{name: ask_for_approval, args: {purpose: taxi, amount: 200}}]\n"
        "  - text: Your request is pending approval.\n"
        "  - function_calls: [{name: reimburse, args: {purpose: taxi, amount: 200}}]\n"
        "  - text: Reimbursed.\n"
    )
    return folder


def test_yadk_run_lets_the_user_answer_the_pending_call(
    reimburse: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import io

    from yadk.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO('taxi 200\n{"status": "approved"}\n'))
    code = main(
        ["run", str(reimburse), "--model", f"scripted:{tmp_path / 'script.yaml'}", "--json"]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert 'ask_for_approval({"amount": 200, "purpose": "taxi"}) is waiting for its result' in err
    events = [json.loads(line) for line in out.splitlines()]
    answer = next(
        e
        for e in events
        if e["author"] == "user" and "function_response" in e["content"]["parts"][0]
    )
    assert answer["content"]["parts"][0]["function_response"]["response"] == {"status": "approved"}
    assert events[-1]["content"]["parts"][0]["text"] == "Reimbursed."
