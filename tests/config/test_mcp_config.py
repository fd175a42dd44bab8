"""``- name: MCPToolset`` in YAML: google-adk's keys, the stdio trust rule, checks that start
nothing, and a config that runs against a real stdio server."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.tools._mcp_helpers import SERVER, pids, wait_dead

from yadk import Runner
from yadk.config import ConfigError, load_agent, validate_paths
from yadk.models import ScriptedModel
from yadk.tools import McpToolset
from yadk.tools.mcp import StdioConnectionParams, StreamableHTTPConnectionParams

WriteTree = Callable[[dict[str, str]], Path]

HEAD = (
    "name: a\nmodel: gemini-2.5-flash\ninstruction: hi\ntools:\n  - name: MCPToolset\n    args:\n"
)


def problems(root: Path, *, import_code: bool) -> list[str]:
    folder = root / "my_agent"
    if not import_code:
        return [d.format() for d in validate_paths([folder])]
    try:
        load_agent(folder)
    except ConfigError as exc:
        return [d.format() for d in exc.diagnostics]
    return []


AUTH_HINT = (
    "Use an API key or HTTP bearer/basic credential, e.g. `auth_scheme: {type: http, scheme:"
    " bearer}` with `auth_credential: {auth_type: http, http: {scheme: bearer, credentials:"
    " {token: '${env:TOKEN}'}}}`, or pass headers under the connection params' `headers:`."
)

CASES: list[tuple[str, str, list[str]]] = [
    (
        "stdio without trust",
        "      stdio_server_params: {command: python3}\n",
        [
            "{cfg}:7:7: error untrusted-stdio-mcp: Stdio MCP servers are not allowed in agent "
            "configs: the config-supplied `command` is launched as a local process, so an "
            "untrusted config could run arbitrary code.\n  hint: If this project trusts its "
            'configs to run code, add `allow_code_execution = ["stdio_mcp"]` (or `true`) '
            "under [tool.yadk] in the project root's pyproject.toml, or pass `yadk "
            "--allow-code-execution stdio_mcp ...`; ADK_ALLOW_CONFIG_STDIO_MCP_SERVERS=1 in the "
            "real environment (not a .env file) works too; or use "
            "streamable_http_connection_params / sse_connection_params, or build the toolset in "
            "Python."
        ],
    ),
    (
        "malformed url",
        "      streamable_http_connection_params: {url: 'localhost:8000/mcp'}\n",
        [
            "{cfg}:7:48: error invalid-value: `url`: 'localhost:8000/mcp' is not an http:// or "
            "https:// URL with a host."
        ],
    ),
    (
        "two connections",
        "      sse_connection_params: {url: 'http://127.0.0.1:1/sse'}\n"
        "      streamable_http_connection_params: {url: 'http://127.0.0.1:1/mcp'}\n",
        [
            "{cfg}:8:7: error mcp-connection: MCPToolset needs exactly one of "
            "`stdio_server_params`, `stdio_connection_params`, `sse_connection_params`, "
            "`streamable_http_connection_params`; got 2.\n  hint: e.g. "
            "`streamable_http_connection_params: {url: http://127.0.0.1:8000/mcp}`."
        ],
    ),
    (
        "no connection",
        "      tool_filter: [a]\n",
        [
            "{cfg}:7:7: error mcp-connection: MCPToolset needs exactly one of "
            "`stdio_server_params`, `stdio_connection_params`, `sse_connection_params`, "
            "`streamable_http_connection_params`.\n  hint: e.g. "
            "`streamable_http_connection_params: {url: http://127.0.0.1:8000/mcp}`."
        ],
    ),
    (
        "unknown key in params",
        "      streamable_http_connection_params:\n        url: 'http://127.0.0.1:1/mcp'\n"
        "        timout: 3\n",
        ["{cfg}:9:9: error unknown-key: Unknown key `timout`."],
    ),
    (
        "unknown toolset key",
        "      sse_connection_params: {url: 'http://127.0.0.1:1/sse'}\n      tool_filtr: [a]\n",
        [
            "{cfg}:8:7: error unknown-key: Unknown key `tool_filtr` in `MCPToolset` args.\n"
            "  hint: Did you mean `tool_filter`?"
        ],
    ),
    (
        "oauth2 needs a flow",
        "      sse_connection_params: {url: 'http://127.0.0.1:1/sse'}\n"
        "      auth_scheme: {type: oauth2, flows: {clientCredentials: {tokenUrl: 'https://x/t'}}}\n"
        "      auth_credential: {auth_type: oauth2, oauth2: {client_id: a, client_secret: b}}\n",
        [
            "{cfg}:8:7: error unsupported-auth: OAuth2 auth schemes need an authorization flow (a"
            " browser or a token endpoint), which yadk does not run.\n  hint: " + AUTH_HINT
        ],
    ),
    (
        "api key in the query",
        "      sse_connection_params: {url: 'http://127.0.0.1:1/sse'}\n"
        "      auth_scheme: {type: apiKey, in: query, name: key}\n"
        "      auth_credential: {auth_type: apiKey, api_key: k}\n",
        [
            "{cfg}:8:7: error unsupported-auth: API keys are sent in a header only (as"
            " google-adk), not `in: query`.\n  hint: " + AUTH_HINT
        ],
    ),
    (
        "misspelled credential key",
        "      sse_connection_params: {url: 'http://127.0.0.1:1/sse'}\n"
        "      auth_scheme: {type: http, scheme: bearer}\n"
        "      auth_credential: {auth_type: http, htp: {scheme: bearer}}\n",
        ["{cfg}:9:42: error unknown-key: Unknown key `htp`."],
    ),
    (
        "credential service key",
        "      sse_connection_params: {url: 'http://127.0.0.1:1/sse'}\n      credential_key: k\n",
        [
            "{cfg}:8:7: error unsupported-key: `credential_key` (a key into google-adk's"
            " credential service) is not supported by yadk, which has no credential service.\n"
            "  hint: Give the credential itself under `auth_credential:` (e.g. with"
            " `${env:TOKEN}`), or as HTTP headers under the connection params."
        ],
    ),
    (
        "header provider from the standard library",
        "      sse_connection_params: {url: 'http://127.0.0.1:1/sse'}\n"
        "      header_provider: os.getcwd\n",
        [
            "{cfg}:8:24: error blocked-module: `os.getcwd` is blocked: configs cannot reference"
            " the `os` module.\n  hint: The standard library and YAML loaders are blocked because"
            " they can run arbitrary code; wrap what you need in a function in your own agent"
            " package."
        ],
    ),
]


@pytest.mark.parametrize("import_code", [False, True], ids=["validate", "load"])
@pytest.mark.parametrize(("label", "body", "expected"), CASES, ids=[c[0] for c in CASES])
def test_mcp_config_errors(
    write_tree: WriteTree,
    monkeypatch: pytest.MonkeyPatch,
    label: str,
    body: str,
    expected: list[str],
    import_code: bool,
) -> None:
    monkeypatch.delenv("ADK_ALLOW_CONFIG_STDIO_MCP_SERVERS", raising=False)
    root = write_tree({"my_agent/root_agent.yaml": HEAD + body})
    cfg = root / "my_agent" / "root_agent.yaml"
    assert problems(root, import_code=import_code) == [
        e.replace("{cfg}", str(cfg)) for e in expected
    ]


def stdio_config(command: str) -> str:
    return HEAD + (
        "      stdio_connection_params:\n"
        "        server_params:\n"
        f"          command: {command}\n"
        f"          args: ['{SERVER}']\n"
        "        timeout: 20\n"
        "      tool_filter: [add, pid]\n"
        "      tool_name_prefix: calc\n"
    )


@pytest.mark.parametrize("trust", ["env", "pyproject"])
def test_a_trusted_project_may_declare_a_stdio_server(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch, trust: str
) -> None:
    monkeypatch.delenv("ADK_ALLOW_CONFIG_STDIO_MCP_SERVERS", raising=False)
    files = {"my_agent/root_agent.yaml": stdio_config(sys.executable)}
    if trust == "env":
        monkeypatch.setenv("ADK_ALLOW_CONFIG_STDIO_MCP_SERVERS", "1")
    else:
        # Trust comes from the project root: the pyproject.toml of the working directory.
        files["pyproject.toml"] = "[tool.yadk]\nallow_stdio_mcp_servers = true\n"
    root = write_tree(files)
    monkeypatch.chdir(root)
    assert validate_paths([root / "my_agent"]) == []
    agent = load_agent(root / "my_agent")
    (toolset,) = agent.tools  # type: ignore[attr-defined]
    assert isinstance(toolset, McpToolset)
    assert isinstance(toolset.connection_params, StdioConnectionParams)
    assert toolset.connection_params.server_params.command == sys.executable
    assert toolset.connection_params.timeout == 20
    assert toolset.tool_filter == ["add", "pid"]
    assert toolset.tool_name_prefix == "calc"
    assert not toolset.connection.is_open, "loading starts nothing"


def test_a_missing_command_is_reported_without_starting_anything(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADK_ALLOW_CONFIG_STDIO_MCP_SERVERS", "1")
    root = write_tree({"my_agent/root_agent.yaml": stdio_config("no-such-mcp-command")})
    cfg = root / "my_agent" / "root_agent.yaml"
    assert [d.format() for d in validate_paths([root / "my_agent"])] == [
        f"{cfg}:9:20: error command-not-found: MCP server command `no-such-mcp-command` was not"
        " found on PATH.\n  hint: Install it, or give its full path."
    ]


def test_a_remote_server_needs_no_trust_and_is_not_contacted(write_tree: WriteTree) -> None:
    root = write_tree(
        {
            "my_agent/root_agent.yaml": HEAD + "      streamable_http_connection_params:\n"
            "        url: http://127.0.0.1:9/mcp\n"
            "        headers: {Authorization: Bearer x}\n"
            "        sse_read_timeout: 30\n"
            "      use_mcp_resources: true\n"
            "      tool_list_cache_ttl_seconds: 60\n"
        }
    )
    agent = load_agent(root / "my_agent")
    (toolset,) = agent.tools  # type: ignore[attr-defined]
    params = toolset.connection_params
    assert isinstance(params, StreamableHTTPConnectionParams)
    assert (params.url, params.headers, params.sse_read_timeout) == (
        "http://127.0.0.1:9/mcp",
        {"Authorization": "Bearer x"},
        30,
    )
    assert toolset.use_mcp_resources and toolset.tool_list_cache_ttl_seconds == 60


@pytest.mark.subprocess
async def test_a_config_runs_against_a_real_server(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ADK_ALLOW_CONFIG_STDIO_MCP_SERVERS", "1")
    pid_dir = tmp_path / "pids"
    pid_dir.mkdir()
    config = stdio_config(sys.executable).replace(
        "        timeout: 20\n",
        f"          env: {{MCP_PID_DIR: '{pid_dir}'}}\n        timeout: 20\n",
    )
    root = write_tree({"my_agent/root_agent.yaml": config})
    agent = load_agent(root / "my_agent")
    model = ScriptedModel(
        turns=[{"function_calls": [{"name": "calc_add", "args": {"a": 1, "b": 2}}]}, {"text": "3"}]
    )
    agent.model = model  # type: ignore[attr-defined]
    async with Runner(app_name="app", agent=agent) as runner:
        session = await runner.session_service.create_session(app_name="app", user_id="u")
        events = [
            e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="1+2")
        ]
    assert sorted(model.requests[0].tools_dict) == ["calc_add", "calc_pid"]
    (response,) = [r for e in events for r in e.get_function_responses()]
    assert response.name == "calc_add"
    assert response.response["structuredContent"] == {"total": 3}
    (pid,) = pids(pid_dir)
    assert wait_dead(pid)


def test_auth_on_a_stdio_server_is_ignored_with_a_warning(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADK_ALLOW_CONFIG_STDIO_MCP_SERVERS", "1")
    root = write_tree(
        {
            "my_agent/root_agent.yaml": HEAD
            + f"      stdio_server_params: {{command: '{sys.executable}'}}\n"
            "      auth_scheme: {type: http, scheme: bearer}\n"
            "      auth_credential: {auth_type: http, http: {scheme: bearer, credentials: {token: t}}}\n"
        }
    )
    cfg = root / "my_agent" / "root_agent.yaml"
    assert [d.format() for d in validate_paths([root / "my_agent"])] == [
        f"{cfg}:8:20: warning mcp-auth-ignored: `auth_scheme` is sent as HTTP headers, and a stdio"
        " server has none: it is ignored.\n"
        "  hint: Give the server its credentials through `env:` instead."
    ]


def test_auth_and_header_provider_reach_the_toolset(write_tree: WriteTree) -> None:
    root = write_tree(
        {
            "my_agent/__init__.py": "",
            "my_agent/auth.py": "def headers(context):\n    return {'X-User': 'ada'}\n",
            "my_agent/root_agent.yaml": HEAD
            + "      streamable_http_connection_params: {url: 'http://127.0.0.1:1/mcp'}\n"
            "      auth_scheme: {type: apiKey, in: header, name: X-API-Key}\n"
            "      auth_credential: {auth_type: apiKey, api_key: k}\n"
            "      header_provider: my_agent.auth.headers\n",
        }
    )
    assert validate_paths([root / "my_agent"]) == []
    (toolset,) = load_agent(root / "my_agent").tools  # type: ignore[attr-defined]
    assert toolset.connection.headers == {"X-API-Key": "k"}
    assert toolset.header_provider.__name__ == "headers"
