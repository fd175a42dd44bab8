"""``- name: MCPToolset`` entries: google-adk 2.13's ``McpToolsetConfig``, checked without
starting anything.

A stdio server's ``command`` is launched as a local process, so, as in google-adk, a config may
declare one only when the project trusts its configs to: ``ADK_ALLOW_CONFIG_STDIO_MCP_SERVERS=1``
in the real environment (a ``.env`` file cannot set it), or the project's one opt-in for code
execution, ``allow_code_execution = ["stdio_mcp"]`` under ``[tool.yadk]`` in the project root's
pyproject.toml (``yadk --allow-code-execution stdio_mcp``). Validation checks that the command exists (on ``PATH``, or as a path) and that
URLs are well formed; it never starts a server or opens a connection. The auth keys are read
by ``yadk.config._mcp_auth``.

Engine imports are inside the functions that build objects, off ``import yadk.config``
and ``yadk validate`` (see the package docstring).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pydantic

from yadk.config._context import FileScope
from yadk.config._mcp_auth import AUTH_OPTION_KEYS, read_auth, report_invalid
from yadk.config._refs import LoaderBase
from yadk.config._yaml import KeyPath

__all__ = ["STDIO_ENV_VAR", "mcp_toolset", "stdio_allowed_by_env"]

STDIO_ENV_VAR = "ADK_ALLOW_CONFIG_STDIO_MCP_SERVERS"

_CONNECTION_KEYS = (
    "stdio_server_params",
    "stdio_connection_params",
    "sse_connection_params",
    "streamable_http_connection_params",
)
_OPTION_KEYS = (
    "tool_filter",
    "tool_name_prefix",
    "tool_list_cache_ttl_seconds",
    "use_mcp_resources",
)
# google-adk's key for a credential service, which yadk does not have.
_CREDENTIAL_SERVICE_KEYS = ("credential_key",)
MCP_ARGS = (*_CONNECTION_KEYS, *_OPTION_KEYS, *AUTH_OPTION_KEYS, *_CREDENTIAL_SERVICE_KEYS)


def stdio_allowed_by_env() -> bool:
    """google-adk's switch: the variable set to 1/true/yes (any case)."""
    return os.environ.get(STDIO_ENV_VAR, "").strip().lower() in ("1", "true", "yes")


def mcp_toolset(reader: LoaderBase, scope: FileScope, at: KeyPath, args: dict[str, Any]) -> Any:
    before = reader.errors
    for key in _CREDENTIAL_SERVICE_KEYS:
        if key in args:
            reader.error(
                scope,
                (*at, key),
                "unsupported-key",
                f"`{key}` (a key into google-adk's credential service) is not supported by"
                " yadk, which has no credential service.",
                "Give the credential itself under `auth_credential:` (e.g. with"
                " `${env:TOKEN}`), or as HTTP headers under the connection params.",
                key=True,
            )
    given = [key for key in _CONNECTION_KEYS if key in args]
    if len(given) != 1:
        reader.error(
            scope,
            at if not given else (*at, given[1]),
            "mcp-connection",
            "MCPToolset needs exactly one of "
            + ", ".join(f"`{k}`" for k in _CONNECTION_KEYS)
            + (f"; got {len(given)}." if given else "."),
            "e.g. `streamable_http_connection_params: {url: http://127.0.0.1:8000/mcp}`.",
            key=bool(given),
        )
        return None
    key = given[0]
    params = _connection(reader, scope, (*at, key), key, args[key])
    options = _options(reader, scope, at, args)
    auth = read_auth(
        reader,
        scope,
        at,
        args,
        http=key.endswith("http_connection_params") or key.startswith("sse"),
    )
    if params is None or options is None or auth is None or reader.errors != before:
        return None
    if not reader.import_code:
        return None
    from yadk.tools import McpToolset

    return McpToolset(connection_params=params, **options, **auth)


def _connection(reader: LoaderBase, scope: FileScope, at: KeyPath, key: str, value: Any) -> Any:
    import pydantic  # only configs with MCP toolsets pay for it (validate stays fast)

    from yadk.tools.mcp import (
        SseConnectionParams,
        StdioConnectionParams,
        StdioServerParameters,
        StreamableHTTPConnectionParams,
    )

    models: dict[str, type[pydantic.BaseModel]] = {
        "stdio_server_params": StdioServerParameters,
        "stdio_connection_params": StdioConnectionParams,
        "sse_connection_params": SseConnectionParams,
        "streamable_http_connection_params": StreamableHTTPConnectionParams,
    }
    if not reader.expect(scope, at, value, dict, "a mapping"):
        return None
    try:
        params: Any = models[key].model_validate(value)
    except pydantic.ValidationError as exc:
        report_invalid(reader, scope, at, exc)
        return None
    if isinstance(params, StdioConnectionParams):
        server = _stdio(reader, scope, at, (*at, "server_params"), params.server_params)
        return None if server is None else params.model_copy(update={"server_params": server})
    if isinstance(params, StdioServerParameters):
        return _stdio(reader, scope, at, at, params)
    return params


def _stdio(
    reader: LoaderBase, scope: FileScope, at: KeyPath, server_at: KeyPath, server: Any
) -> Any:
    if not _stdio_trusted(reader, scope, at):
        return None
    server = _resolve_cwd(reader, scope, server)
    return server if _command_exists(reader, scope, server_at, server) else None


def _stdio_trusted(reader: LoaderBase, scope: FileScope, at: KeyPath) -> bool:
    if stdio_allowed_by_env():
        return True
    return reader.code_execution_allowed(
        scope,
        at,
        "stdio_mcp",
        rule="untrusted-stdio-mcp",
        message="Stdio MCP servers are not allowed in agent configs: the config-supplied"
        " `command` is launched as a local process, so an untrusted config could run"
        " arbitrary code.",
        alternative=f"{STDIO_ENV_VAR}=1 in the real environment (not a .env file) works too;"
        " or use streamable_http_connection_params / sse_connection_params, or build the"
        " toolset in Python.",
    )


def _resolve_cwd(reader: LoaderBase, scope: FileScope, server: Any) -> Any:
    """A relative ``cwd`` is relative to the config file's folder."""
    if server.cwd is None or Path(server.cwd).is_absolute():
        return server
    return server.model_copy(update={"cwd": str(scope.folder / server.cwd)})


def _command_exists(reader: LoaderBase, scope: FileScope, at: KeyPath, server: Any) -> bool:
    command: str = server.command
    base = Path(server.cwd) if server.cwd is not None else Path.cwd()
    if os.sep in command or (os.altsep and os.altsep in command):
        candidate = base / command
        found = candidate.is_file() and os.access(candidate, os.X_OK)
    else:
        search = (server.env or {}).get("PATH") or os.environ.get("PATH")
        found = shutil.which(command, path=search) is not None
    if not found:
        reader.error(
            scope,
            (*at, "command"),
            "command-not-found",
            f"MCP server command `{command}` was not found"
            + (" on PATH." if os.sep not in command else f" (looked for {base / command})."),
            "Install it, or give its full path.",
        )
    return found


def _options(
    reader: LoaderBase, scope: FileScope, at: KeyPath, args: dict[str, Any]
) -> dict[str, Any] | None:
    before = reader.errors
    options: dict[str, Any] = {}
    if "tool_filter" in args:
        value = args["tool_filter"]
        if reader.expect(scope, (*at, "tool_filter"), value, list, "a list of tool names"):
            for index, item in enumerate(value):
                reader.expect(scope, (*at, "tool_filter", index), item, str, "a tool name")
        options["tool_filter"] = value
    if "tool_name_prefix" in args:
        reader.expect(scope, (*at, "tool_name_prefix"), args["tool_name_prefix"], str, "a string")
        options["tool_name_prefix"] = args["tool_name_prefix"]
    if "tool_list_cache_ttl_seconds" in args:
        ttl = args["tool_list_cache_ttl_seconds"]
        if ttl is not None:
            reader.expect(
                scope, (*at, "tool_list_cache_ttl_seconds"), ttl, (int, float), "a number"
            )
        options["tool_list_cache_ttl_seconds"] = ttl
    if "use_mcp_resources" in args:
        reader.expect(
            scope, (*at, "use_mcp_resources"), args["use_mcp_resources"], bool, "true or false"
        )
        options["use_mcp_resources"] = args["use_mcp_resources"]
    return options if reader.errors == before else None
