"""`agent_class: RemoteA2aAgent` in YAML: loaded as a root, a sub-agent, an AgentTool and a
workflow node (calling the a2a-sdk echo server), and checked by `yadk validate` (offline, and
with --network)."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.a2a.sdk_server import SdkServer, sdk_server

from yadk import Runner
from yadk.a2a import RemoteA2aAgent
from yadk.config import load_agent, validate_paths
from yadk.sessions import InMemorySessionService


@pytest.fixture(scope="module")
def server() -> Iterator[SdkServer]:
    with sdk_server() as live:
        yield live


def write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return folder


async def answers(folder: Path, *messages: str) -> list[tuple[str, str]]:
    """(author, text or error) of every event after each message, in one session."""
    agent = load_agent(folder)
    service = InMemorySessionService()
    seen = []
    async with Runner(app_name="app", agent=agent, session_service=service) as runner:
        session = await service.create_session(app_name="app", user_id="u")
        for message in messages:
            async for event in runner.run_async(
                user_id="u", session_id=session.id, new_message=message
            ):
                if event.author != "user":
                    seen.append((event.author, event.error_message or event.text))
    return seen


def remote_yaml(url: str, extra: str = "") -> str:
    return f"agent_class: RemoteA2aAgent\nname: echo\nagent_card: {url}\n{extra}\n"


async def test_a_remote_agent_as_the_root(server: SdkServer, tmp_path: Path) -> None:
    folder = write(
        tmp_path / "app",
        {"root_agent.yaml": remote_yaml(server.url, "headers: {X-Team: search}\ntimeout: 30")},
    )
    agent = load_agent(folder)
    assert isinstance(agent, RemoteA2aAgent)
    assert (agent.headers, agent.timeout) == ({"X-Team": "search"}, 30.0)
    assert await answers(folder, "hi") == [("echo", "echo #1: hi")]
    assert server.recorded.headers[-1]["x-team"] == "search"


async def test_headers_take_environment_values(
    server: SdkServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ECHO_TOKEN", "t0ken")
    folder = write(
        tmp_path / "app",
        {
            "root_agent.yaml": remote_yaml(
                server.url, "headers: {Authorization: 'Bearer ${env:ECHO_TOKEN}'}"
            )
        },
    )
    assert validate_paths([folder]) == []
    assert await answers(folder, "hi") == [("echo", "echo #1: hi")]
    assert server.recorded.headers[-1]["authorization"] == "Bearer t0ken"


async def test_a_card_file_beside_the_config(server: SdkServer, tmp_path: Path) -> None:
    card = httpx.get(f"{server.url}/.well-known/agent-card.json").json()
    folder = write(
        tmp_path / "app",
        {"root_agent.yaml": remote_yaml("cards/echo.json"), "cards/.keep": ""},
    )
    (folder / "cards" / "echo.json").write_text(json.dumps(card), encoding="utf-8")
    assert validate_paths([folder]) == []
    assert await answers(folder, "from a file") == [("echo", "echo #1: from a file")]


async def test_a_remote_sub_agent_in_a_sequence(server: SdkServer, tmp_path: Path) -> None:
    folder = write(
        tmp_path / "app",
        {
            "root_agent.yaml": """\
                agent_class: SequentialAgent
                name: pipeline
                sub_agents:
                  - config_path: echo.yaml
                  - config_path: echo_again.yaml
                """,
            "echo.yaml": remote_yaml(server.url),
            "echo_again.yaml": remote_yaml(server.url).replace("name: echo", "name: echo_again"),
        },
    )
    # The second remote agent is told the first one's answer as context.
    got = await answers(folder, "hello")
    assert got[0] == ("echo", "echo #1: hello")
    assert got[1][0] == "echo_again"
    assert got[1][1].startswith("echo #1: hello | For context:")
    assert "[echo] said:" in got[1][1]


async def test_a_remote_agent_inside_an_agent_tool(server: SdkServer, tmp_path: Path) -> None:
    folder = write(
        tmp_path / "app",
        {
            "root_agent.yaml": """\
                name: desk
                model: scripted:turns.yaml
                instruction: Use the echo tool.
                tools:
                  - name: AgentTool
                    args:
                      agent:
                        config_path: echo.yaml
                """,
            "turns.yaml": """\
                turns:
                  - function_calls: [{name: echo, args: {request: ping}}]
                  - text: done
                """,
            "echo.yaml": remote_yaml(server.url),
        },
    )
    got = await answers(folder, "go")
    assert got[-1] == ("desk", "done")
    assert server.recorded.messages[-1]["parts"] == [{"text": "ping"}]


async def test_a_remote_agent_as_a_workflow_node(server: SdkServer, tmp_path: Path) -> None:
    folder = write(
        tmp_path / "app",
        {
            "root_agent.yaml": """\
                agent_class: Workflow
                name: flow
                edges:
                  - [START, echo.yaml]
                """,
            "echo.yaml": remote_yaml(server.url),
        },
    )
    got = await answers(folder, "node input")
    assert ("echo", "echo #1: node input") in got


@pytest.mark.parametrize(
    ("yaml", "expected"),
    [
        (
            "agent_class: RemoteA2aAgent\nname: echo\n",
            "1:1: error missing-field: A RemoteA2aAgent needs `agent_card`",
        ),
        (
            "agent_class: RemoteA2aAgent\nname: echo\nagent_card: http://example.com/card.json\n",
            "3:13: error insecure-url: `agent_card` `http://example.com/card.json` uses plain"
            " http:// to `example.com`",
        ),
        (
            "agent_class: RemoteA2aAgent\nname: echo\nagent_card: ftp://example.com/card.json\n",
            "3:13: error invalid-url: `agent_card` `ftp://example.com/card.json` is not an http://"
            " or https:// URL.",
        ),
        (
            "agent_class: RemoteA2aAgent\nname: echo\nagent_card: ../card.json\n",
            "3:13: error path-outside-folder: Agent card file `../card.json` is outside the agent"
            " folder",
        ),
        (
            "agent_class: RemoteA2aAgent\nname: echo\nagent_card: crad.json\n",
            "3:13: error file-not-found: Agent card file `crad.json` not found",
        ),
        (
            "agent_class: RemoteA2aAgent\nname: echo\nagent_card: bad.json\n",
            "3:13: error invalid-agent-card: The agent card in bad.json offers no JSON-RPC"
            " interface (found: GRPC)",
        ),
        (
            "agent_class: RemoteA2aAgent\nname: echo\nagent_card: https://h/\ntimeout: 0\n",
            "4:10: error invalid-value: `timeout` must be a positive number of seconds, got 0.",
        ),
        (
            "agent_class: RemoteA2aAgent\nname: echo\nagent_card: https://h/\nheaders: {X-N: 1}\n",
            "4:16: error wrong-type: `headers.X-N` must be a string, got an integer.",
        ),
        (
            "agent_class: RemoteA2aAgent\nname: echo\nagent_card: https://h/\nheaders: {'a b': x}\n",
            "4:11: error invalid-header: `a b` is not an HTTP header name.",
        ),
        (
            "agent_class: RemoteA2aAgent\nname: echo\nagent_card: https://h/\ninstruction: hi\n",
            "4:1: error unknown-key: Unknown key `instruction` in a RemoteA2aAgent config.",
        ),
        (
            "agent_class: RemoteA2aAgent\nname: echo\nagent_crad: https://h/\n",
            "3:1: error unknown-key: Unknown key `agent_crad` in a RemoteA2aAgent config.",
        ),
        (
            "agent_class: RemoteA2aAgent\nname: echo\nagent_card: https://h.example/\n"
            "headers: {Authorization: '${env:HOME}'}\n",
            "4:26: error env-to-untrusted-host: `${env:HOME}` would be sent to `h.example`",
        ),
    ],
    ids=[
        "no_card",
        "plain_http",
        "not_http",
        "outside",
        "misspelt_file",
        "not_callable",
        "zero_timeout",
        "header_number",
        "header_name",
        "llm_key",
        "misspelt_key",
        "env_to_untrusted_host",
    ],
)
def test_validate_reports(tmp_path: Path, yaml: str, expected: str) -> None:
    folder = write(tmp_path / "app", {"root_agent.yaml": yaml})
    (folder / "bad.json").write_text(
        '{"name": "x", "supportedInterfaces": [{"url": "grpc://h", "protocolBinding": "GRPC"}]}',
        encoding="utf-8",
    )
    shown = [d.format().split("root_agent.yaml:", 1)[1] for d in validate_paths([folder])]
    assert len(shown) == 1, shown
    assert shown[0].startswith(expected), shown


def test_validate_does_not_fetch_unless_asked(tmp_path: Path, unused_port: int) -> None:
    folder = write(
        tmp_path / "app", {"root_agent.yaml": remote_yaml(f"http://127.0.0.1:{unused_port}")}
    )
    assert validate_paths([folder]) == []
    [problem] = validate_paths([folder], network=True)
    assert (problem.rule, problem.line, problem.column) == ("agent-card-unavailable", 3, 13)
    assert problem.message.startswith(
        f"http://127.0.0.1:{unused_port}/.well-known/agent-card.json could not be reached:"
    )


def test_validate_network_checks_the_fetched_card(server: SdkServer, tmp_path: Path) -> None:
    good = write(tmp_path / "good", {"root_agent.yaml": remote_yaml(server.url)})
    assert validate_paths([good], network=True) == []
    elsewhere = write(tmp_path / "bad", {"root_agent.yaml": remote_yaml(f"{server.url}/elsewhere")})
    [problem] = validate_paths([elsewhere], network=True)
    assert problem.rule == "agent-card-unavailable"
    assert "another origin than the one it was fetched from" in problem.message


@pytest.fixture
def unused_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
