"""How to reach an MCP server: google-adk 2.13's connection parameter models, without the SDK.

These are yadk's own pydantic models with google-adk's field names and defaults, so configs and
code written for google-adk construct them unchanged and ``yadk validate`` can check them without
the ``mcp`` package installed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "ConnectionParams",
    "SseConnectionParams",
    "StdioConnectionParams",
    "StdioServerParameters",
    "StreamableHTTPConnectionParams",
    "check_url",
]


class StdioServerParameters(BaseModel):
    """A local server started as a subprocess that speaks MCP on its stdin/stdout."""

    model_config = ConfigDict(extra="forbid")

    command: str
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] | None = None
    cwd: str | Path | None = None


class StdioConnectionParams(BaseModel):
    """A stdio server plus ``timeout``: seconds to start it and, as google-adk, for each read."""

    model_config = ConfigDict(extra="forbid")

    server_params: StdioServerParameters
    timeout: float = 5.0


def check_url(value: str) -> str:
    """``value`` if it is an absolute http(s) URL with a host; ``ValueError`` otherwise."""
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{value!r} is not an http:// or https:// URL with a host")
    try:
        parts.port  # noqa: B018 - parsing the port is the check
    except ValueError as exc:
        raise ValueError(f"{value!r} has an invalid port") from exc
    return value


class _HttpParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str
    headers: dict[str, Any] | None = None
    timeout: float = 5.0
    sse_read_timeout: float = 60 * 5.0

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        return check_url(value)


class SseConnectionParams(_HttpParams):
    """A remote server on the (legacy) HTTP+SSE transport. ``timeout`` bounds connecting,
    ``sse_read_timeout`` each call."""


class StreamableHTTPConnectionParams(_HttpParams):
    """A remote server on the streamable HTTP transport; ``terminate_on_close`` ends the server
    session (HTTP DELETE) when the toolset closes."""

    terminate_on_close: bool = True


ConnectionParams = (
    StdioServerParameters
    | StdioConnectionParams
    | SseConnectionParams
    | StreamableHTTPConnectionParams
)
