"""Human input: a node's RequestInput ends the invocation waiting; the next message resumes the
workflow at that node, from the session store alone (another process, another runner)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.workflow import (  # noqa: F401  (register scenarios)
    scenarios_modes,
    scenarios_resume,
)
from tests.workflow.kit import KIT, run_turns, summarize
from tests.workflow.resume_app import build
from tests.workflow.scenarios import SCENARIOS

from yadk.runner import Runner
from yadk.serve._wire import event_from_json, event_json
from yadk.sessions import (
    BaseSessionService,
    InMemorySessionService,
    PostgresSessionService,
    SqliteSessionService,
    open_session_service,
)
from yadk.types import Content, FunctionResponse, Part
from yadk.workflow import START, NodeContext, RequestInput, Workflow, node

ROOT = Path(__file__).parent.parent.parent


async def _first_turn(service: BaseSessionService) -> str:
    turns, _, session_id = await run_turns(build(), ["essay"], session_service=service)
    [draft, ask] = turns[0]
    assert draft.output == "draft of essay"
    assert ask.get_function_calls()[0].args["message"] == "Approve draft of essay?"
    assert ask.long_running_tool_ids == {"approval"}
    return session_id


async def _rest(service: BaseSessionService, session_id: str) -> None:
    # A plain message answers the waiting question, as a function response would.
    runner = Runner(app_name="app", agent=build(), session_service=service)
    events = [
        e
        async for e in runner.run_async(user_id="u", session_id=session_id, new_message="yes")
        if e.author != "user"
    ]
    assert [(summarize(e)["path"], e.output) for e in events[:1]] == [
        ("review@1/approve@1", "draft of essay -> yes")
    ]
    [question] = events[1].get_function_calls()
    assert question.args["message"] == "Your name?"
    events = [
        e
        async for e in runner.run_async(user_id="u", session_id=session_id, new_message="Ada")
        if e.author != "user"
    ]
    assert [(summarize(e)["path"], e.output) for e in events] == [
        ("review@1/publish@1", "published Ada")
    ]
    session = await service.get_session(app_name="app", user_id="u", session_id=session_id)
    assert session is not None and session.state == {"approved": "yes"}


async def test_resume_in_memory() -> None:
    service = open_session_service(":memory:")
    await _rest(service, await _first_turn(service))


@pytest.mark.subprocess
async def test_resume_in_another_process_from_sqlite(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    session_id = await _first_turn(SqliteSessionService(str(db)))
    script = (
        "import asyncio, sys\n"
        "from tests.workflow.test_resume import _rest\n"
        "from yadk.sessions import open_session_service\n"
        "asyncio.run(_rest(open_session_service(sys.argv[1]), sys.argv[2]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(db), session_id],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.postgres
async def test_resume_with_a_fresh_service_on_postgresql(postgres_url: str) -> None:
    first = PostgresSessionService(postgres_url)
    session_id = await _first_turn(first)
    await first.aclose()
    second = PostgresSessionService(postgres_url)
    try:
        await _rest(second, session_id)
    finally:
        await second.aclose()


async def test_without_a_waiting_question_a_message_starts_the_workflow_again() -> None:
    turns, _, _ = await run_turns(build(), ["essay", "yes", "Ada", "again"])
    assert [summarize(e)["path"] for e in turns[-1]] == ["review@1/draft@1", "review@1/approve@1"]
    assert turns[-1][0].output == "draft of again"


async def test_node_info_and_route_on_the_wire_and_in_the_store(tmp_path: Path) -> None:
    service = SqliteSessionService(str(tmp_path / "s.db"))
    session_id = await _first_turn(service)
    session = await service.get_session(app_name="app", user_id="u", session_id=session_id)
    assert session is not None
    draft = session.events[1]
    wire = event_json(draft)
    assert wire["nodeInfo"] == {"path": "review@1/draft@1", "outputFor": ["review@1/draft@1"]}
    assert wire["output"] == "draft of essay"
    back = event_from_json(json.loads(json.dumps(wire)))
    assert back.node_info == draft.node_info and back.output == draft.output


def _dynamic_flow() -> Any:
    """An orchestrator that runs a draft and two questions with ctx.run_node."""

    def draft(node_input: str, ctx: NodeContext) -> str:
        ctx.state["drafts"] = ctx.state.get("drafts", 0) + 1
        return "draft of " + node_input

    @node(rerun_on_resume=True)
    def ask(node_input: str, ctx: NodeContext):  # type: ignore[no-untyped-def]
        answer = ctx.resume_inputs.get(node_input)
        if answer is None:
            yield RequestInput(interrupt_id=node_input, message=node_input + "?")
            return
        yield answer

    @node(rerun_on_resume=True)
    async def orchestrate(ctx: NodeContext, node_input: str):  # type: ignore[no-untyped-def]
        text = await ctx.run_node(draft, node_input)
        first = await ctx.run_node(ask, "approve")
        second = await ctx.run_node(ask, "title")
        yield f"{text}: {first}, titled {second}"

    return Workflow(name="dyn", edges=[(START, orchestrate)])


async def test_a_node_run_with_run_node_asks_and_resumes_from_sqlite(tmp_path: Path) -> None:
    """Each answer comes to a fresh runner and store: the orchestrator runs again, the runs that
    completed before the question are not run again (one draft), the waiting one gets the
    answer."""
    db = str(tmp_path / "s.db")
    turns, _, session_id = await run_turns(
        _dynamic_flow(), ["essay"], session_service=SqliteSessionService(db)
    )
    assert turns[0][-1].get_function_calls()[0].args["message"] == "approve?"
    for answer, expected in (("yes", "title?"), ("Tides", None)):
        service = SqliteSessionService(db)
        runner = Runner(app_name="app", agent=_dynamic_flow(), session_service=service)
        events = [
            e
            async for e in runner.run_async(user_id="u", session_id=session_id, new_message=answer)
            if e.author != "user"
        ]
        if expected is not None:
            assert events[-1].get_function_calls()[0].args["message"] == expected
    assert [(summarize(e)["path"], e.output) for e in events] == [
        ("dyn@1/orchestrate@1/ask@2", "Tides"),
        ("dyn@1/orchestrate@1", "draft of essay: yes, titled Tides"),
    ]
    session = await SqliteSessionService(db).get_session(
        app_name="app", user_id="u", session_id=session_id
    )
    assert session is not None and session.state == {"drafts": 1}


async def test_a_resumed_node_may_change_its_input_read_back_from_the_store(
    tmp_path: Path,
) -> None:
    # Stored events are sealed; what the workflow reads back from them to resume (the waiting
    # node's input, the answer) is the node's own to change, as in google-adk.
    def make(node_input: str) -> dict[str, Any]:
        return {"items": [1, 2], "meta": {"a": 1}}

    @node(rerun_on_resume=True)
    def ask(node_input: dict[str, Any], ctx: NodeContext) -> Any:
        answer = ctx.resume_inputs.get("ok")
        if answer is None:
            yield RequestInput(interrupt_id="ok", message="ok?")
            return
        node_input["items"].append(answer)
        node_input["meta"]["b"] = 2
        yield node_input

    def grow(node_input: dict[str, Any]) -> dict[str, Any]:
        node_input["items"].append(3)
        return node_input

    flow = Workflow(name="flow", edges=[(START, make), (make, ask), (ask, grow)])
    service = SqliteSessionService(tmp_path / "s.db")
    _, _, session_id = await run_turns(flow, ["go"], session_service=service)
    runner = Runner(app_name="app", agent=flow, session_service=service)
    outputs = [
        e.output
        async for e in runner.run_async(user_id="u", session_id=session_id, new_message="yes")
        if e.author != "user"
    ]
    assert not [e for e in outputs if e is None]
    assert outputs[-1] == {"items": [1, 2, "yes", 3], "meta": {"a": 1, "b": 2}}
    await service.aclose()


@pytest.mark.parametrize(
    "name", ["join_after_resume", "join_branch_running_at_question", "loop_through_question"]
)
async def test_a_join_and_run_ids_resume_from_a_fresh_sqlite_store(
    name: str, tmp_path: Path
) -> None:
    """The answer comes to a fresh runner and store: what completed before the question is read
    back from the stored events alone (the join's other input, the run ids taken), and the
    events match google-adk's."""
    fixture = json.loads((Path(__file__).parent / "recorded" / f"{name}.json").read_text())
    first, second = fixture["turns"]
    db = str(tmp_path / "s.db")
    scenario = SCENARIOS[name](KIT)
    await run_turns(scenario.agent, [first["message"]], session_service=SqliteSessionService(db))
    sessions = await SqliteSessionService(db).list_sessions(app_name="app", user_id="u")
    [session_id] = [s.id for s in sessions.sessions]
    fresh = SqliteSessionService(db)
    turns, state, _ = await run_turns(
        SCENARIOS[name](KIT).agent,
        [second["message"]],
        session_service=fresh,
        session_id=session_id,
    )
    want = [{k: e[k] for k in ("path", "output", "route")} for e in second["events"]]
    assert [{k: summarize(e)[k] for k in ("path", "output", "route")} for e in turns[0]] == want
    assert state == fixture["final_state"]


@pytest.mark.parametrize("name", ["mode_single_turn_resumed", "mode_single_turn_confirmed"])
async def test_an_agent_node_waiting_on_its_call_resumes_from_a_fresh_sqlite_store(
    name: str, tmp_path: Path
) -> None:
    """An agent node's long-running call (a tool's, a confirmation request) makes the workflow
    wait; its function response, sent to a fresh runner and store, resumes the agent, which is
    sent what google-adk sends it (not its input again)."""
    fixture = json.loads((Path(__file__).parent / "recorded" / f"{name}.json").read_text())
    first, second = fixture["turns"][:2]
    db = str(tmp_path / "s.db")
    scenario = SCENARIOS[name](KIT)
    turns, _, session_id = await run_turns(
        scenario.agent, [first["message"]], session_service=SqliteSessionService(db)
    )
    [waiting] = [e for e in turns[0] if e.long_running_tool_ids]
    [call_id] = waiting.long_running_tool_ids or set()
    [call] = [c for c in waiting.get_function_calls() if c.id == call_id]
    answer = Content(
        role="user",
        parts=[
            Part(
                function_response=FunctionResponse(
                    id=call_id, name=call.name, response=second["message"]
                )
            )
        ],
    )
    runner = Runner(app_name="app", agent=scenario.agent, session_service=SqliteSessionService(db))
    events = [
        e
        async for e in runner.run_async(user_id="u", session_id=session_id, new_message=answer)
        if e.author != "user"
    ]
    want = [{k: e[k] for k in ("path", "output", "text")} for e in second["events"]]
    assert [{k: summarize(e)[k] for k in ("path", "output", "text")} for e in events] == want
    assert scenario.requests == fixture["requests"][:2]


async def test_a_plain_message_does_not_answer_an_agent_nodes_long_running_call() -> None:
    # Unlike a question's, the call's answer is its function response: a plain message starts
    # the workflow again.
    scenario = SCENARIOS["mode_single_turn_resumed"](KIT)
    service = InMemorySessionService()
    _, _, session_id = await run_turns(scenario.agent, ["5"], session_service=service)
    runner = Runner(app_name="app", agent=scenario.agent, session_service=service)
    events = [
        e
        async for e in runner.run_async(user_id="u", session_id=session_id, new_message="6")
        if e.author != "user"
    ]
    assert [summarize(e)["path"] for e in events][:2] == ["flow@1/topic@1", "flow@1/payer@1"]
    assert events[0].output == "pay 6"
    assert scenario.requests[-1]["contents"] == ["user: pay 6"]
