"""A real MCP server for the tests, written with the official SDK.

``python mcp_server.py`` serves on stdio; ``python mcp_server.py http PORT`` serves streamable
HTTP on 127.0.0.1:PORT (``sse PORT`` the legacy SSE transport). Every process writes its pid to
``$MCP_PID_DIR`` (if set) so tests can check that no server outlives its toolset. Over
streamable HTTP, ``$MCP_REQUIRE_AUTHORIZATION`` (if set) is the only ``Authorization`` header
value the server accepts; any other request gets 401.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

server = MCPServer("yadk-test-server")


class Sum(BaseModel):
    total: int


@server.tool(description="Add two integers.")
def add(a: int, b: int) -> Sum:
    return Sum(total=a + b)


@server.tool(description="Echo the text back.")
def echo(text: str) -> str:
    return text


@server.tool(description="Always fails.")
def fail() -> str:
    raise ValueError("the tool failed on purpose")


@server.tool(description="Sleep, then answer.")
async def hang(seconds: float) -> str:
    await asyncio.sleep(seconds)
    return "woke up"


@server.tool(description="The server process dies.")
def crash() -> str:
    os._exit(3)


@server.tool(description="The server's process id.")
def pid() -> int:
    return os.getpid()


@server.tool(description="Register a new tool named `extra` and announce it.")
async def grow(ctx: Context) -> str:
    def extra() -> str:
        """A tool added at run time."""
        return "extra!"

    server.add_tool(extra, name="extra")
    await ctx.session.send_tool_list_changed()
    return "grown"


@server.tool(description="The request's headers that the tests send (HTTP transports).")
def headers(ctx: Context) -> dict[str, str]:
    seen = {k.lower(): v for k, v in (ctx.headers or {}).items()}
    names = ("authorization", "x-api-key", "x-user", "x-static", "x-trace")
    return {name: seen[name] for name in names if name in seen}


def guarded(app: Any, expected: str) -> Any:
    """``app`` answering 401 to HTTP requests without ``Authorization: <expected>``."""

    async def guard(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope["headers"]).get(b"authorization", b"").decode()
            if given != expected:
                start = {"type": "http.response.start", "status": 401, "headers": []}
                await send(start)
                await send({"type": "http.response.body", "body": b"wrong Authorization"})
                return
        await app(scope, receive, send)

    return guard


@server.resource("file:///notes.txt", name="notes", mime_type="text/plain")
def notes() -> str:
    return "Remember the milk."


def main() -> None:
    pid_dir = os.environ.get("MCP_PID_DIR")
    if pid_dir:
        Path(pid_dir, str(os.getpid())).write_text("")
    if len(sys.argv) >= 3 and sys.argv[1] in ("http", "sse"):
        port = int(sys.argv[2])
        required = os.environ.get("MCP_REQUIRE_AUTHORIZATION")
        if sys.argv[1] == "http" and required:
            import uvicorn

            app = guarded(server.streamable_http_app(), required)
            uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
        elif sys.argv[1] == "http":
            server.run("streamable-http", host="127.0.0.1", port=port)
        else:
            server.run("sse", host="127.0.0.1", port=port)
    else:
        server.run()


if __name__ == "__main__":
    main()
