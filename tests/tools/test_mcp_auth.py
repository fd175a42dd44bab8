"""MCP auth and header providers, against a real MCP server on 127.0.0.1 that checks headers."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path
from typing import Any

import pytest
from tests.tools._mcp_helpers import http_server

from yadk import Runner, load_agent
from yadk.agents import ReadonlyContext
from yadk.testing import readonly_context, tool_context
from yadk.tools import McpToolset
from yadk.tools.mcp import StreamableHTTPConnectionParams
from yadk.tools.mcp._auth import (
    AuthCredential,
    AuthScheme,
    UnsupportedAuth,
    auth_headers,
    to_model,
)
from yadk.types import Content, Part

pytestmark = pytest.mark.subprocess

pytest.importorskip("mcp")

BEARER_SCHEME = {"type": "http", "scheme": "bearer"}


def bearer(token: str) -> dict[str, Any]:
    return {"auth_type": "http", "http": {"scheme": "bearer", "credentials": {"token": token}}}


async def seen_headers(toolset: McpToolset, context: Any = None) -> Any:
    tools = {t.name: t for t in await toolset.get_tools(context)}
    result = await tools["headers"].run_async(args={}, tool_context=context)
    return result.get("structuredContent", result)


HEADERS = [
    ({"type": "apiKey", "in": "header", "name": "X-API-Key"}, {"auth_type": "apiKey", "api_key": "k1"}, {"X-API-Key": "k1"}),
    ({"type": "apiKey", "name": "X-API-Key"}, {"auth_type": "apiKey", "api_key": "k1"}, {"X-API-Key": "k1"}),
    (BEARER_SCHEME, bearer("t1"), {"Authorization": "Bearer t1"}),
    (
        {"type": "http", "scheme": "basic"},
        {"auth_type": "http", "http": {"scheme": "basic", "credentials": {"username": "ada", "password": "pw"}}},
        {"Authorization": "Basic " + base64.b64encode(b"ada:pw").decode()},
    ),
    (
        {"type": "http", "scheme": "Token"},
        {"auth_type": "http", "http": {"scheme": "Token", "credentials": {"token": "t2"}, "additional_headers": {"X-Trace": "1"}}},
        {"Authorization": "Token t2", "X-Trace": "1"},
    ),
]  # fmt: skip


@pytest.mark.parametrize(("scheme", "credential", "expected"), HEADERS)
def test_credentials_become_google_adks_headers(
    scheme: dict[str, Any], credential: dict[str, Any], expected: dict[str, str]
) -> None:
    assert auth_headers(to_model(scheme, AuthScheme), to_model(credential, AuthCredential)) == (
        expected
    )


UNSUPPORTED = [
    ({"type": "oauth2", "flows": {}}, None, "auth_scheme", "OAuth2 auth schemes need an authorization flow (a browser or a token endpoint), which yadk does not run."),
    (BEARER_SCHEME, {"auth_type": "oauth2", "oauth2": {"client_id": "c"}}, "auth_credential", "OAuth2 credentials need an authorization flow, which yadk does not run."),
    (BEARER_SCHEME, {"auth_type": "serviceAccount", "service_account": {}}, "auth_credential", "service account credentials need an authorization flow, which yadk does not run."),
    (None, bearer("t"), "auth_credential", "`auth_credential` needs `auth_scheme` (which header carries it)."),
    (BEARER_SCHEME, None, "auth_scheme", "`auth_scheme` needs `auth_credential` (yadk does not ask the user for one)."),
    ({"type": "apiKey", "in": "query", "name": "key"}, {"auth_type": "apiKey", "api_key": "k"}, "auth_scheme", "API keys are sent in a header only (as google-adk), not `in: query`."),
    (BEARER_SCHEME, {"auth_type": "apiKey", "api_key": "k"}, "auth_credential", "an http scheme needs `auth_credential: {auth_type: http, http: {scheme: bearer, credentials: {token: ...}}}`."),
]  # fmt: skip


@pytest.mark.parametrize(("scheme", "credential", "key", "message"), UNSUPPORTED)
def test_what_cannot_be_sent_as_headers_is_refused(
    scheme: Any, credential: Any, key: str, message: str
) -> None:
    with pytest.raises(UnsupportedAuth) as caught:
        McpToolset(
            connection_params=StreamableHTTPConnectionParams(url="http://127.0.0.1:1/mcp"),
            auth_scheme=scheme,
            auth_credential=credential,
        )
    assert (caught.value.key, str(caught.value)) == (key, message)


async def test_a_server_that_requires_a_token_gets_it() -> None:
    with http_server(require_authorization="Bearer s3cret") as url:
        params = StreamableHTTPConnectionParams(url=url, timeout=20)
        refused = McpToolset(connection_params=params)
        allowed = McpToolset(
            connection_params=params, auth_scheme=BEARER_SCHEME, auth_credential=bearer("s3cret")
        )
        try:
            assert await refused.get_tools() == []  # 401: the model gets no tools this turn
            assert await seen_headers(allowed) == {"authorization": "Bearer s3cret"}
        finally:
            await refused.close()
            await allowed.close()


async def user_headers(context: ReadonlyContext) -> dict[str, str]:
    return {"X-User": str(context.state["user"]), "Authorization": "Bearer from-provider"}


async def test_header_provider_headers_per_context_auth_wins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("yadk.tools.mcp._toolset.MAX_HEADER_CONNECTIONS", 2)
    with http_server() as url:
        params = StreamableHTTPConnectionParams(
            url=url, timeout=20, headers={"X-Static": "s", "X-User": "static"}
        )
        toolset = McpToolset(
            connection_params=params,
            auth_scheme=BEARER_SCHEME,
            auth_credential=bearer("t"),
            header_provider=user_headers,
        )
        try:
            ada = tool_context({"user": "ada"})
            bob = tool_context({"user": "bob"})
            assert await seen_headers(toolset, ada) == {
                "authorization": "Bearer t",
                "x-static": "s",
                "x-user": "ada",
            }
            assert (await seen_headers(toolset, bob))["x-user"] == "bob"
            bob_connection = await toolset.connection_for(bob)
            assert (await seen_headers(toolset, ada))["x-user"] == "ada"
            # Each identity has its own server session; without a context, the static headers.
            assert len(toolset._by_headers) == 2
            assert (await seen_headers(toolset))["x-user"] == "static"
            assert (await seen_headers(toolset, readonly_context({"user": "cy"})))["x-user"] == "cy"
            # Beyond the limit the least recently used session (bob's) is closed.
            users = [dict(key)["X-User"] for key in toolset._by_headers]
            assert users == ["ada", "cy"]
            assert not bob_connection.is_open
        finally:
            await toolset.close()
        assert not toolset._by_headers and not toolset.connection.is_open


HEADERS_PY = """\
from yadk.agents import ReadonlyContext


def provide(context: ReadonlyContext) -> dict[str, str]:
    return {"X-User": context.state.get("user", "nobody")}
"""


def test_yaml_auth_and_header_provider_reach_the_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_TEST_TOKEN", "from-env")
    with http_server(require_authorization="Bearer from-env") as url:
        folder = tmp_path / "my_agent"
        folder.mkdir()
        (folder / "__init__.py").write_text("")
        (folder / "headers.py").write_text(HEADERS_PY)
        (folder / "root_agent.yaml").write_text(
            "name: a\nmodel: scripted:turns.yaml\ninstruction: hi\ntools:\n"
            "  - name: MCPToolset\n    args:\n"
            f"      streamable_http_connection_params: {{url: '{url}', timeout: 20}}\n"
            "      auth_scheme: {type: http, scheme: bearer}\n"
            "      auth_credential:\n        auth_type: http\n"
            "        http: {scheme: bearer, credentials: {token: '${env:MCP_TEST_TOKEN}'}}\n"
            "      header_provider: my_agent.headers.provide\n"
        )
        (folder / "turns.yaml").write_text(
            "turns:\n  - function_calls: [{name: headers, args: {}}]\n  - text: done\n"
        )
        monkeypatch.chdir(tmp_path)
        response = _run(folder)
    assert response == {"authorization": "Bearer from-env", "x-user": "ada"}


def _run(folder: Path) -> Any:
    async def go() -> Any:
        agent = load_agent(folder)
        async with Runner(app_name="a", agent=agent) as runner:
            session = await runner.session_service.create_session(
                app_name="a", user_id="u", state={"user": "ada"}
            )
            message = Content(role="user", parts=[Part(text="who am I?")])
            async for event in runner.run_async(
                user_id="u", session_id=session.id, new_message=message
            ):
                for part in event.content.parts if event.content else []:
                    if part.function_response is not None:
                        return part.function_response.response["structuredContent"]
        return None

    return asyncio.run(go())
