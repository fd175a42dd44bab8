"""The CLI and MCP servers: inspect lists their tools (or not, --no-mcp), run and dev stop every
server they started, also the one a reload replaced."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.cli.test_dev import Typist, edit
from tests.tools._mcp_helpers import SERVER, pids, wait_dead

from yadk.cli._dev import dev_loop
from yadk.models import ScriptedModel
from yadk.reload import AgentReloader, ScriptedChanges

pytestmark = pytest.mark.subprocess

Cli = Callable[..., tuple[int, str, str]]


def config(pid_dir: Path, instruction: str = "Use the tools.") -> str:
    return (
        f"name: calc\nmodel: gemini-2.5-flash\ninstruction: {instruction}\ntools:\n"
        "  - name: McpToolset\n    args:\n      stdio_connection_params:\n"
        f"        server_params:\n          command: {sys.executable}\n"
        f"          args: ['{SERVER}']\n          env: {{MCP_PID_DIR: '{pid_dir}'}}\n"
        "        timeout: 20\n      tool_filter: [add, echo]\n"
    )


@pytest.fixture
def agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.setenv("ADK_ALLOW_CONFIG_STDIO_MCP_SERVERS", "1")
    pid_dir = tmp_path / "pids"
    pid_dir.mkdir()
    folder = tmp_path / "calc"
    folder.mkdir()
    (folder / "root_agent.yaml").write_text(config(pid_dir))
    return folder, pid_dir


def test_inspect_lists_the_mcp_tools_and_stops_the_server(
    cli: Cli, agent: tuple[Path, Path]
) -> None:
    folder, pid_dir = agent
    code, out, err = cli("inspect", str(folder), "--json")
    assert code == 0, err
    tools = json.loads(out)["tools"]
    assert [t["name"] for t in tools] == ["add", "echo"]
    assert tools[0]["parameters"]["required"] == ["a", "b"]
    (pid,) = pids(pid_dir)
    assert wait_dead(pid)


def test_inspect_no_mcp_starts_nothing(cli: Cli, agent: tuple[Path, Path]) -> None:
    folder, pid_dir = agent
    code, out, err = cli("inspect", str(folder), "--json", "--no-mcp")
    assert code == 0, err
    assert json.loads(out)["tools"] == []
    assert "are not listed (--no-mcp)" in err
    assert pids(pid_dir) == []


def test_run_calls_the_server_and_leaves_no_process(
    cli: Cli, agent: tuple[Path, Path], tmp_path: Path
) -> None:
    folder, pid_dir = agent
    script = tmp_path / "script.yaml"
    script.write_text(
        "turns:\n  - function_calls: [{name: echo, args: {text: pong}}]\n  - text: got it\n"
    )
    code, out, err = cli("run", str(folder), "ping", "--model", f"scripted:{script}", "--json")
    assert code == 0, err
    events = [json.loads(line) for line in out.splitlines()]
    responses = [
        p["function_response"]["response"]
        for e in events
        for p in (e.get("content") or {}).get("parts", [])
        if p.get("function_response")
    ]
    assert responses[0]["content"] == [{"type": "text", "text": "pong"}]
    (pid,) = pids(pid_dir)
    assert wait_dead(pid)


async def test_a_dev_reload_stops_the_replaced_agents_server(
    agent: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, pid_dir = agent
    model = ScriptedModel(
        [
            {"function_calls": [{"name": "echo", "args": {"text": "1"}}]},
            {"text": "one"},
            {"function_calls": [{"name": "echo", "args": {"text": "2"}}]},
            {"text": "two"},
        ]
    )
    changes = ScriptedChanges()
    reloader = AgentReloader(folder, model=model)
    first_pids: list[int] = []
    steps = [
        "hi",
        lambda: first_pids.extend(pids(pid_dir)),
        edit(changes, folder / "root_agent.yaml", config(pid_dir, "Use them well.")),
        "again",
    ]
    assert await dev_loop(reloader, changes, stdin=Typist(steps)) == 0
    (first,) = first_pids
    assert wait_dead(first), "the reload stopped the old agent's server"
    assert len(pids(pid_dir)) == 2
    assert all(wait_dead(pid) for pid in pids(pid_dir)), "exiting stopped the current one"
    out = capsys.readouterr().out
    assert "[calc]: one" in out and "[calc]: two" in out
