"""run_agent: the transcript, JSON lines, interactive input and exit status of ``yadk run``."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from yadk import LlmAgent
from yadk.cli._run import run_agent
from yadk.models import ScriptedModel, ScriptedTurn
from yadk.sessions import InMemorySessionService, SqliteSessionService
from yadk.tools import ToolContext


def lookup_order(order_id: str, tool_context: ToolContext) -> dict[str, Any]:
    """Look up an order."""
    tool_context.state["last_order_id"] = order_id
    print("noise from a tool")
    return {"status": "shipped"}


def desk(turns: list[dict[str, Any] | ScriptedTurn]) -> LlmAgent:
    refunds = LlmAgent(name="refunds", description="Refunds orders.", instruction="Refund.")
    return LlmAgent(
        name="desk",
        model=ScriptedModel(turns),
        instruction="Help {customer_name}.",
        tools=[lookup_order],
        sub_agents=[refunds],
    )


ORDER_TURNS: list[dict[str, Any] | ScriptedTurn] = [
    {"when": "where", "function_calls": [{"name": "lookup_order", "args": {"order_id": "A-1"}}]},
    {"when": "where", "text": "Order A-1 has shipped."},
    {
        "when": "refund",
        "function_calls": [{"name": "transfer_to_agent", "args": {"agent_name": "refunds"}}],
    },
    {"agent": "refunds", "text": "Refunded."},
]


async def test_replay_prints_who_speaks_and_tool_calls(capsys: pytest.CaptureFixture[str]) -> None:
    status = await run_agent(
        desk(ORDER_TURNS),
        queries=["where is A-1?", "refund it"],
        state={"customer_name": "Ada"},
    )
    out, err = capsys.readouterr()
    assert status == 0
    assert out == (
        "[user]: where is A-1?\n"
        '[desk] called lookup_order(order_id="A-1")\n'
        "noise from a tool\n"
        '[desk] lookup_order -> {"status": "shipped"}\n'
        "[desk]: Order A-1 has shipped.\n"
        "[user]: refund it\n"
        '[desk] called transfer_to_agent(agent_name="refunds")\n'
        "[desk] transferred to refunds\n"
        "[refunds]: Refunded.\n"
    )
    assert err == ""


async def test_error_event_goes_to_stderr_and_stops_the_replay(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = await run_agent(
        desk([{"text": "One answer only."}]),
        queries=["hi", "again", "never sent"],
        state={"customer_name": "Ada"},
    )
    out, err = capsys.readouterr()
    assert status == 1
    assert out == "[user]: hi\n[desk]: One answer only.\n[user]: again\n"
    assert err == (
        "[desk] error MODEL_ERROR: scripted: script exhausted: 1 of 1 turns used and none of"
        " the rest matches agent 'desk' and the user message 'again'. Add a turn to the script"
        " (or check its 'when:'/'agent:' filters).\n"
        "yadk run: replay stopped: the last query ended in an error\n"
    )


async def test_missing_state_key_is_an_error_event(capsys: pytest.CaptureFixture[str]) -> None:
    status = await run_agent(desk(ORDER_TURNS), message="where?")
    out, err = capsys.readouterr()
    assert status == 1
    assert out == "[user]: where?\n"
    assert err == (
        "[desk] error TEMPLATE_ERROR: Context variable not found: `customer_name` in agent"
        " 'desk'.\n"
    )


async def test_json_lines_are_events_and_user_prints_go_to_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = await run_agent(
        desk(ORDER_TURNS), message="where is A-1?", state={"customer_name": "Ada"}, json_lines=True
    )
    out, err = capsys.readouterr()
    events = [json.loads(line) for line in out.splitlines()]
    assert status == 0
    assert err == "noise from a tool\n"
    assert [e["author"] for e in events] == ["user", "desk", "desk", "desk"]
    assert events[0]["content"] == {"role": "user", "parts": [{"text": "where is A-1?"}]}
    assert events[2]["actions"]["state_delta"] == {"last_order_id": "A-1"}
    assert events[3]["content"]["parts"] == [{"text": "Order A-1 has shipped."}]


@pytest.mark.parametrize(
    ("stdin", "expected"),
    [
        ("where is A-1?\n\nexit\nrefund it\n", ["where is A-1?"]),
        ("where is A-1?\n   \nrefund it", ["where is A-1?", "refund it"]),
        ("", []),
    ],
)
async def test_interactive_reads_lines_until_exit_or_eof(
    capsys: pytest.CaptureFixture[str], stdin: str, expected: list[str]
) -> None:
    status = await run_agent(
        desk(ORDER_TURNS), state={"customer_name": "Ada"}, stdin=io.StringIO(stdin)
    )
    out, _ = capsys.readouterr()
    assert status == 0
    assert [line[len("[user]: ") :] for line in out.splitlines() if line.startswith("[user]")] == (
        expected
    )


async def test_resumed_session_keeps_history_and_gets_state_as_a_delta(
    capsys: pytest.CaptureFixture[str],
) -> None:
    sessions = InMemorySessionService()
    agent = desk(ORDER_TURNS)
    await run_agent(
        agent,
        message="where is A-1?",
        state={"customer_name": "Ada"},
        session_id="s1",
        session_service=sessions,
    )
    await run_agent(
        agent,
        message="refund it",
        state={"customer_name": "Ada L."},
        session_id="s1",
        session_service=sessions,
    )
    session = await sessions.get_session(app_name="desk", user_id="user", session_id="s1")
    assert session is not None
    assert session.state == {"customer_name": "Ada L.", "last_order_id": "A-1"}
    assert [e.author for e in session.events] == [
        "user",
        "desk",
        "desk",
        "desk",
        "user",
        "desk",
        "desk",
        "refunds",
    ]
    assert capsys.readouterr().out.endswith("[refunds]: Refunded.\n")


async def test_durable_session_continues_in_a_later_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = str(tmp_path / "sessions.db")
    first = SqliteSessionService(db)
    await run_agent(
        desk(ORDER_TURNS),
        message="where is A-1?",
        state={"customer_name": "Ada"},
        session_id="s1",
        session_service=first,
        stored_in=db,
    )
    first.close_now()
    assert capsys.readouterr().err == (
        f"yadk run: session s1 is saved in {db}; continue it with --session-id s1\n"
    )
    second = SqliteSessionService(db)
    status = await run_agent(
        desk(ORDER_TURNS[2:]),
        message="refund it",
        session_id="s1",
        session_service=second,
        stored_in=db,
    )
    out, err = capsys.readouterr()
    assert status == 0
    assert out == (
        "[user]: refund it\n"
        '[desk] called transfer_to_agent(agent_name="refunds")\n'
        "[desk] transferred to refunds\n"
        "[refunds]: Refunded.\n"
    )
    assert err == (
        "yadk run: continuing session s1 (4 earlier events)\n"
        f"yadk run: session s1 is saved in {db}; continue it with --session-id s1\n"
    )
    second.close_now()
