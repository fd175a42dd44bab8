"""Tool confirmation (``FunctionTool(require_confirmation=...)``,
``tool_context.request_confirmation``) against google-adk 2.13's recorded behaviour
(fixtures/adk_confirmation.json, made by fixtures/record_adk_confirmation.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from yadk import LlmAgent, Runner
from yadk.events import Event
from yadk.models import ScriptedModel
from yadk.sessions import SqliteSessionService
from yadk.tools import FunctionTool, ToolConfirmation, ToolContext
from yadk.types import Content, FunctionResponse, Part

ADK = json.loads(Path(__file__).with_name("fixtures").joinpath("adk_confirmation.json").read_text())


def transfer_money(amount: int, to: str) -> dict[str, Any]:
    """Transfer money to someone."""
    return {"status": "sent", "amount": amount, "to": to}


def over_limit(amount: int, to: str) -> bool:
    return amount > 100


def book_room(nights: int, tool_context: ToolContext) -> dict[str, Any]:
    """Book a hotel room."""
    confirmation = tool_context.tool_confirmation
    if confirmation is None:
        tool_context.request_confirmation(
            hint="Confirm the booking and pick a room type.", payload={"room": "single"}
        )
        return {"status": "waiting for the user"}
    if not confirmation.confirmed:
        return {"status": "cancelled"}
    return {"status": "booked", "nights": nights, "room": confirmation.payload["room"]}


def shape(event: Event) -> dict[str, Any]:
    actions = event.actions.model_dump(mode="json", by_alias=True, exclude_none=True)
    return {
        "author": event.author,
        "final": event.is_final_response(),
        "content": event.content.model_dump(mode="json", by_alias=True, exclude_none=True)
        if event.content
        else None,
        "long_running_tool_ids": sorted(event.long_running_tool_ids or []),
        "skip_summarization": bool(actions.get("skip_summarization")),
        "requested_tool_confirmations": actions.get("requested_tool_confirmations", {}),
    }


def adk_shape(event: dict[str, Any]) -> dict[str, Any]:
    actions = event["actions"]
    return {
        **{k: event[k] for k in ("author", "final", "content", "long_running_tool_ids")},
        "skip_summarization": bool(actions.get("skipSummarization")),
        "requested_tool_confirmations": actions["requestedToolConfirmations"],
    }


def normalized(shapes: list[dict[str, Any]]) -> Any:
    """Call ids are random: each becomes its first-seen index (in content order), so the links
    between a call, its confirmation request and their responses are still compared."""
    names: dict[str, str] = {}

    def rename(value: Any) -> Any:
        if isinstance(value, str) and value.startswith("adk-"):
            return names.setdefault(value, f"id{len(names)}")
        if isinstance(value, dict):
            renamed = {rename(k): rename(v) for k, v in value.items()}
            if "long_running_tool_ids" in renamed:  # a set: its order is the random ids'
                renamed["long_running_tool_ids"] = sorted(renamed["long_running_tool_ids"])
            return renamed
        if isinstance(value, list):
            return [rename(v) for v in value]
        return value

    return rename(shapes)


SCENARIOS = {
    "confirmed": (lambda: FunctionTool(transfer_money, require_confirmation=True), 500),
    "rejected": (lambda: FunctionTool(transfer_money, require_confirmation=True), 500),
    "predicate_true": (lambda: FunctionTool(transfer_money, require_confirmation=over_limit), 500),
    "predicate_false": (lambda: FunctionTool(transfer_money, require_confirmation=over_limit), 20),
    "parallel_one_confirmed_one_rejected": (
        lambda: FunctionTool(transfer_money, require_confirmation=True),
        [500, 700],
    ),
    "requested_in_tool": (lambda: FunctionTool(book_room), None),
    "requested_in_tool_rejected": (lambda: FunctionTool(book_room), None),
}


def _agent(tool: FunctionTool, amount: int | list[int] | None) -> tuple[LlmAgent, ScriptedModel]:
    many: list[dict[str, Any]]
    if amount is None:
        many = [{"nights": 2}]
    elif isinstance(amount, list):
        many = [{"amount": a, "to": to} for a, to in zip(amount, ["Bob", "Eve"], strict=False)]
    else:
        many = [{"amount": amount, "to": "Bob"}]
    model = ScriptedModel(
        turns=[
            {"function_calls": [{"name": tool.name, "args": args} for args in many]},
            {"text": "Done."},
            {"text": "Done again."},
        ]
    )
    return LlmAgent(name="assistant", model=model, instruction="Help.", tools=[tool]), model


def _answer(first: list[Event], answer: dict[str, Any] | list[dict[str, Any]]) -> Content:
    """The user's answer to every confirmation request in ``first`` (one answer for all, or
    one per request)."""
    requests = [
        c for e in first for c in e.get_function_calls() if c.name == "adk_request_confirmation"
    ]
    answers = answer if isinstance(answer, list) else [answer] * len(requests)
    parts = [
        Part(function_response=FunctionResponse(id=r.id, name=r.name, response=a))
        for r, a in zip(requests, answers, strict=True)
    ]
    return Content(role="user", parts=parts)


async def _run(runner: Runner, session_id: str, message: Any) -> list[Event]:
    return [
        e
        async for e in runner.run_async(user_id="u", session_id=session_id, new_message=message)
        if e.author != "user"
    ]


@pytest.mark.parametrize("name", sorted(SCENARIOS))
async def test_events_are_google_adks(name: str) -> None:
    make_tool, amount = SCENARIOS[name]
    agent, model = _agent(make_tool(), amount)
    recorded = ADK[name]
    runner = Runner(app_name="app", agent=agent)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    first = await _run(runner, session.id, "please")
    events = [shape(e) for e in first]
    expected = [adk_shape(e) for e in recorded["first_invocation"]]
    if "answer" in recorded:
        events += [
            shape(e) for e in await _run(runner, session.id, _answer(first, recorded["answer"]))
        ]
        expected += [adk_shape(e) for e in recorded["second_invocation"]]
    assert normalized(events) == normalized(expected)
    assert len(model.requests) == recorded["model_calls"]
    contents = [
        c.model_dump(mode="json", by_alias=True, exclude_none=True)
        for c in model.requests[-1].contents
    ]
    assert normalized(contents) == normalized(recorded["last_request_contents"])


async def test_a_new_runner_on_the_same_sqlite_file_takes_the_answer(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    tool = FunctionTool(transfer_money, require_confirmation=True)
    agent, _ = _agent(tool, 500)
    first_service = SqliteSessionService(db)
    runner = Runner(app_name="app", agent=agent, session_service=first_service)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    first = await _run(runner, session.id, "please")
    assert [c.name for e in first for c in e.get_function_calls()] == [
        "transfer_money",
        "adk_request_confirmation",
    ]
    first_service.close_now()

    # Another process, as far as yadk can tell: a new tool, model, agent, service and runner.
    model = ScriptedModel(turns=[{"text": "Done."}])
    tool = FunctionTool(transfer_money, require_confirmation=True)
    agent = LlmAgent(name="assistant", model=model, instruction="Help.", tools=[tool])
    service = SqliteSessionService(db)
    runner = Runner(app_name="app", agent=agent, session_service=service)
    second = await _run(runner, session.id, _answer(first, {"confirmed": True}))
    assert [e.get_function_responses()[0].response for e in second[:1]] == [
        {"status": "sent", "amount": 500, "to": "Bob"}
    ]
    assert second[-1].content is not None and second[-1].content.parts[0].text == "Done."
    stored = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    assert stored is not None
    asked = [e for e in stored.events if e.actions.requested_tool_confirmations]
    assert len(asked) == 1
    (confirmation,) = asked[0].actions.requested_tool_confirmations.values()
    assert isinstance(confirmation, ToolConfirmation) and not confirmation.confirmed
    service.close_now()


async def test_an_answer_sent_again_runs_nothing_again() -> None:
    runs: list[int] = []

    def pay(amount: int) -> dict[str, Any]:
        """Pay."""
        runs.append(amount)
        return {"paid": amount}

    agent, model = _agent(FunctionTool(pay, require_confirmation=True), None)
    model.turns[0].function_calls[0].args = {"amount": 7}
    runner = Runner(app_name="app", agent=agent)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    first = await _run(runner, session.id, "please")
    answer = _answer(first, {"confirmed": True})
    await _run(runner, session.id, answer)
    again = await _run(runner, session.id, answer)
    assert runs == [7] and again == [] and len(model.requests) == 2


async def test_the_web_uis_wrapped_answer_and_a_wrong_answer() -> None:
    agent, _ = _agent(FunctionTool(transfer_money, require_confirmation=True), 500)
    runner = Runner(app_name="app", agent=agent)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    first = await _run(runner, session.id, "please")
    wrapped = {"response": json.dumps({"confirmed": False})}
    second = await _run(runner, session.id, _answer(first, wrapped))
    assert second[0].get_function_responses()[0].response == {
        "error": "This tool call is rejected."
    }

    session = await runner.session_service.create_session(app_name="app", user_id="u")
    agent.model = _agent(FunctionTool(transfer_money), 500)[1]
    first = await _run(runner, session.id, "please")
    events = await _run(runner, session.id, _answer(first, {"confirmed": "maybe"}))
    assert events[-1].error_message is not None
    assert "not a ToolConfirmation" in events[-1].error_message


async def test_a_predicate_may_take_the_tool_context() -> None:
    seen: list[Any] = []

    def needs_it(amount: int, tool_context: ToolContext) -> bool:
        seen.append((amount, tool_context.function_call_id))
        return bool(tool_context.state.get("strict"))

    agent, _ = _agent(FunctionTool(transfer_money, require_confirmation=needs_it), 500)
    runner = Runner(app_name="app", agent=agent)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = await _run(runner, session.id, "please")
    assert [c.name for e in events for c in e.get_function_calls()] == ["transfer_money"]
    assert seen == [(500, events[0].get_function_calls()[0].id)]


@pytest.fixture
def payments(tmp_path: Path) -> Path:
    folder = tmp_path / "payments"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "tools.py").write_text(
        "from google.adk.tools import FunctionTool\n"
        "from google.adk.tools.tool_confirmation import ToolConfirmation\n\n"
        "assert ToolConfirmation.__module__.startswith('yadk.')  # the shim's, not google-adk's\n\n\n"
        "def transfer_money(amount: int, to: str) -> dict:\n"
        '    """Transfer money to someone."""\n'
        '    return {"status": "sent", "amount": amount, "to": to}\n\n\n'
        "transfer = FunctionTool(transfer_money, require_confirmation=True)\n"
    )
    (folder / "root_agent.yaml").write_text(
        "agent_class: LlmAgent\nname: payments\nmodel: gemini-2.5-flash\n"
        "instruction: Pay.\ntools:\n  - name: payments.tools.transfer\n"
    )
    (tmp_path / "script.yaml").write_text(
        "turns:\n"
        "  - function_calls: [{name: transfer_money, args: {amount: 500, to: Bob}}]\n"
        "  - text: Sent.\n"
    )
    return folder


def test_yadk_run_asks_and_takes_a_yes(
    payments: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import io

    from yadk.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO("pay Bob 500\nyes\n"))
    code = main(["run", str(payments), "--model", f"scripted:{tmp_path / 'script.yaml'}", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert 'transfer_money({"amount": 500, "to": "Bob"}) is waiting for your confirmation' in err
    events = [json.loads(line) for line in out.splitlines()]
    answer = next(
        e
        for e in events
        if e["author"] == "user" and "function_response" in e["content"]["parts"][0]
    )
    assert answer["content"]["parts"][0]["function_response"]["response"] == {"confirmed": True}
    responses = [
        p["function_response"]["response"]
        for e in events
        if e["author"] == "payments"
        for p in e["content"]["parts"]
        if "function_response" in p
    ]
    assert responses[-1] == {"status": "sent", "amount": 500, "to": "Bob"}
    assert events[-1]["content"]["parts"][0]["text"] == "Sent."


async def test_yadk_serve_run_takes_the_answer_as_google_adks_api_server_does(
    payments: Path, tmp_path: Path
) -> None:
    import httpx

    from yadk.artifacts import InMemoryArtifactService
    from yadk.serve import create_app
    from yadk.sessions import InMemorySessionService

    (payments / "script.yaml").write_text((tmp_path / "script.yaml").read_text())
    config = (payments / "root_agent.yaml").read_text()
    (payments / "root_agent.yaml").write_text(
        config.replace("gemini-2.5-flash", "scripted:script.yaml")
    )
    app = create_app(
        tmp_path,
        session_service=InMemorySessionService(),
        artifact_service=InMemoryArtifactService(),
    )
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            sessions = "/apps/payments/users/u1/sessions"
            assert (await client.post(sessions, json={"sessionId": "s1"})).status_code == 200
            body = {"appName": "payments", "userId": "u1", "sessionId": "s1"}
            first = await client.post(
                "/run", json={**body, "newMessage": {"role": "user", "parts": [{"text": "pay"}]}}
            )
            assert first.status_code == 200, first.text
            asking = [e for e in first.json() if e.get("longRunningToolIds")]
            (call,) = [p["functionCall"] for p in asking[0]["content"]["parts"]]
            assert call["name"] == "adk_request_confirmation"
            assert call["args"]["originalFunctionCall"]["name"] == "transfer_money"
            held = first.json()[-1]
            assert held["actions"]["requestedToolConfirmations"] == {
                call["args"]["originalFunctionCall"]["id"]: call["args"]["toolConfirmation"]
            }
            answer = {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "id": call["id"],
                            "name": "adk_request_confirmation",
                            "response": {"confirmed": True},
                        }
                    }
                ],
            }
            second = await client.post("/run", json={**body, "newMessage": answer})
            assert second.status_code == 200, second.text
            events = second.json()
            assert events[0]["content"]["parts"][0]["functionResponse"]["response"] == {
                "status": "sent",
                "amount": 500,
                "to": "Bob",
            }
            assert events[-1]["content"]["parts"][0]["text"] == "Sent."


async def test_a_resumable_app_resumes_the_invocation_with_the_answer(tmp_path: Path) -> None:
    from yadk.apps import App, ResumabilityConfig

    def app(model: ScriptedModel) -> App:
        tool = FunctionTool(transfer_money, require_confirmation=True)
        agent = LlmAgent(name="assistant", model=model, instruction="Help.", tools=[tool])
        resumable = ResumabilityConfig(is_resumable=True)
        return App(name="app", root_agent=agent, resumability_config=resumable)

    db = tmp_path / "sessions.db"
    asking = ScriptedModel(
        turns=[{"function_calls": [{"name": "transfer_money", "args": {"amount": 5, "to": "B"}}]}]
    )
    service = SqliteSessionService(db)
    runner = Runner(app=app(asking), session_service=service)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    first = await _run(runner, session.id, "please")
    service.close_now()

    service = SqliteSessionService(db)
    runner = Runner(app=app(ScriptedModel(turns=[{"text": "Done."}])), session_service=service)
    second = await _run(runner, session.id, _answer(first, {"confirmed": True}))
    assert {e.invocation_id for e in second} == {first[0].invocation_id}
    assert second[0].get_function_responses()[0].response == {
        "status": "sent",
        "amount": 5,
        "to": "B",
    }
    assert second[-1].content is not None and second[-1].content.parts[0].text == "Done."
    service.close_now()


async def test_a_sub_agent_that_asked_takes_the_answer() -> None:
    payer_model = ScriptedModel(
        turns=[
            {"function_calls": [{"name": "transfer_money", "args": {"amount": 5, "to": "B"}}]},
            {"text": "Paid."},
        ]
    )
    tool = FunctionTool(transfer_money, require_confirmation=True)
    payer = LlmAgent(name="payer", model=payer_model, description="Pays.", tools=[tool])
    transfer = {"name": "transfer_to_agent", "args": {"agent_name": "payer"}}
    root_model = ScriptedModel(turns=[{"function_calls": [transfer]}])
    root = LlmAgent(name="root", model=root_model, sub_agents=[payer])
    runner = Runner(app_name="app", agent=root)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    first = await _run(runner, session.id, "pay B")
    asking = [e for e in first if e.long_running_tool_ids]
    assert [e.author for e in asking] == ["payer"]
    second = await _run(runner, session.id, _answer(first, {"confirmed": True}))
    assert [e.author for e in second] == ["payer", "payer"]
    assert second[0].get_function_responses()[0].response == {
        "status": "sent",
        "amount": 5,
        "to": "B",
    }
    assert len(root_model.requests) == 1 and len(payer_model.requests) == 2


async def test_an_answer_for_a_tool_no_longer_there_is_refused() -> None:
    agent, _ = _agent(FunctionTool(transfer_money, require_confirmation=True), 500)
    runner = Runner(app_name="app", agent=agent)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    first = await _run(runner, session.id, "please")

    # The agent redeployed without the tool; the session (and the answer) are the same.
    changed = LlmAgent(name="assistant", model=ScriptedModel(turns=[{"text": "x"}]))
    later = Runner(app_name="app", agent=changed, session_service=runner.session_service)
    events = await _run(later, session.id, _answer(first, {"confirmed": True}))
    (failed,) = events
    assert failed.error_message is not None
    assert "Tool 'transfer_money' is not registered." in failed.error_message


def test_requested_confirmations_cross_the_wire_both_ways() -> None:
    from yadk.serve._wire import event_from_json, event_json

    sent = {"c1": {"hint": "Sure?", "confirmed": False, "payload": {"room": "single"}}}
    event = event_from_json({"author": "a", "actions": {"requestedToolConfirmations": sent}})
    assert event.actions.requested_tool_confirmations == {
        "c1": ToolConfirmation(hint="Sure?", payload={"room": "single"})
    }
    assert event_json(event)["actions"]["requestedToolConfirmations"] == sent


async def test_a_call_interrupted_before_it_ran_asks_when_the_invocation_resumes() -> None:
    """Stopped right after the model's call (as a killed process would be), the resumed
    invocation holds the call back and asks, then the answer runs it."""
    import contextlib

    from yadk.apps import App, ResumabilityConfig
    from yadk.sessions import InMemorySessionService

    def build(model: ScriptedModel) -> App:
        tool = FunctionTool(transfer_money, require_confirmation=True)
        agent = LlmAgent(name="assistant", model=model, instruction="Help.", tools=[tool])
        resumable = ResumabilityConfig(is_resumable=True)
        return App(name="app", root_agent=agent, resumability_config=resumable)

    call = {"name": "transfer_money", "args": {"amount": 5, "to": "B"}}
    service = InMemorySessionService()
    runner = Runner(
        app=build(ScriptedModel(turns=[{"function_calls": [call]}])), session_service=service
    )
    session = await service.create_session(app_name="app", user_id="u")
    run = runner.run_async(user_id="u", session_id=session.id, new_message="please")
    async with contextlib.aclosing(run) as events:
        async for event in events:
            if event.get_function_calls():
                invocation_id = event.invocation_id
                break

    model = ScriptedModel(turns=[{"text": "Done."}])
    again = Runner(app=build(model), session_service=service)
    resumed = [
        e
        async for e in again.run_async(
            user_id="u", session_id=session.id, invocation_id=invocation_id
        )
    ]
    assert [c.name for e in resumed for c in e.get_function_calls()] == ["adk_request_confirmation"]
    assert model.requests == []
    second = await _run(again, session.id, _answer(resumed, {"confirmed": True}))
    assert second[0].get_function_responses()[0].response == {
        "status": "sent",
        "amount": 5,
        "to": "B",
    }
    assert second[-1].content is not None and second[-1].content.parts[0].text == "Done."
