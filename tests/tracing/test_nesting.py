"""Spans yadk nests beyond the recorded scenarios: an AgentTool's invocation inside the tool's
span, spans of agents loaded from YAML naming their file and line."""

from __future__ import annotations

from pathlib import Path

from tests.tracing.kit import KIT, traced_provider

from yadk import LlmAgent, Runner
from yadk.config import load_agent
from yadk.models import ScriptedModel
from yadk.runner import RunConfig
from yadk.tools import AgentTool


async def _run(agent: LlmAgent, message: str = "hi") -> list[object]:
    provider, exporter = traced_provider()
    runner = Runner(agent=agent, app_name="app")
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    config = RunConfig(tracer_provider=provider)
    async for _ in runner.run_async(
        user_id="u", session_id=session.id, new_message=message, run_config=config
    ):
        pass
    return list(exporter.get_finished_spans())


async def test_an_agent_tools_invocation_hangs_under_the_tool_span() -> None:
    helper = KIT.LlmAgent(
        name="helper", description="Helps.", model=KIT.model("helper", ["helped"])
    )
    root = KIT.LlmAgent(
        name="root",
        model=KIT.model("root", [("call", "helper", {"request": "x"}, "c1"), "done"]),
        tools=[AgentTool(agent=helper)],
    )
    spans = await _run(root)
    by_name = {span.name: span for span in spans}  # type: ignore[attr-defined]
    tool = by_name["execute_tool helper"]
    nested = by_name["invoke_workflow helper"]
    assert nested.parent.span_id == tool.context.span_id
    assert by_name["invoke_agent helper"].parent.span_id == nested.context.span_id
    assert len({span.context.trace_id for span in spans}) == 1  # type: ignore[attr-defined]


async def test_spans_of_a_yaml_agent_name_its_file_and_line(tmp_path: Path) -> None:
    folder = tmp_path / "desk"
    folder.mkdir()
    (folder / "tools.py").write_text("def look(q: str) -> str:\n    return q\n")
    (folder / "root_agent.yaml").write_text(
        "# a desk\nname: desk\ninstruction: Help.\ntools:\n  - name: .tools.look\n"
        "sub_agents:\n  - config_path: clerk.yaml\n"
    )
    (folder / "clerk.yaml").write_text("name: clerk\ninstruction: File things.\n")
    agent = load_agent(folder)
    assert isinstance(agent, LlmAgent)
    agent.model = ScriptedModel(
        [
            {"function_calls": [{"name": "look", "args": {"q": "a"}}]},
            {"function_calls": [{"name": "transfer_to_agent", "args": {"agent_name": "clerk"}}]},
            {"text": "filed"},
        ]
    )
    agent.sub_agents[0].model = agent.model  # type: ignore[attr-defined]
    spans = await _run(agent)
    located = {
        span.name: span.attributes.get("yadk.config.location")  # type: ignore[attr-defined]
        for span in spans
    }
    assert located["invoke_agent desk"] == f"{folder / 'root_agent.yaml'}:2"
    assert located["execute_tool look"] == f"{folder / 'root_agent.yaml'}:5"
    assert located["invoke_agent clerk"] == f"{folder / 'clerk.yaml'}:1"
    assert located["execute_tool transfer_to_agent"] is None  # built in, declared nowhere


async def test_a_tool_execution_errors_reason_is_its_error_type() -> None:
    from yadk.tools import ToolErrorType, ToolExecutionError

    def fetch(url: str) -> dict[str, str]:
        """Fetches a page."""
        raise ToolExecutionError("the page timed out", error_type=ToolErrorType.TIMEOUT)

    agent = KIT.LlmAgent(
        name="reader",
        model=KIT.model("reader", [("call", "fetch", {"url": "u"}, "c1"), "it failed"]),
        tools=[fetch],
    )
    spans = await _run(agent)
    (tool,) = [s for s in spans if s.name == "execute_tool fetch"]  # type: ignore[attr-defined]
    assert tool.attributes["error.type"] == "TIMEOUT"  # type: ignore[attr-defined]
    assert tool.status.description == "TIMEOUT"  # type: ignore[attr-defined]
    # The event names the exception's class, as the SDK's record_exception (and google-adk's)
    assert [e.attributes["exception.type"] for e in tool.events] == [  # type: ignore[attr-defined]
        "yadk.errors.ToolExecutionError"
    ]


def test_an_unknown_capture_mode_in_run_config_is_refused() -> None:
    import enum

    import pytest

    with pytest.raises(ValueError, match=r"capture_message_content='SPANS'\): expected one of"):
        RunConfig(capture_message_content="SPANS")

    class Mode(enum.Enum):  # google-adk's ContentCapturingMode members work too
        SPAN_ONLY = "SPAN_ONLY"

    assert RunConfig(capture_message_content=Mode.SPAN_ONLY).capture_message_content is not None
    assert RunConfig(capture_message_content="span_only").capture_message_content == "span_only"
