"""MCP toolsets: tools served by Model Context Protocol servers (needs ``yadk[mcp]``)."""

from yadk.tools.mcp._params import (
    SseConnectionParams,
    StdioConnectionParams,
    StdioServerParameters,
    StreamableHTTPConnectionParams,
)
from yadk.tools.mcp._toolset import MCPTool, McpTool, MCPToolset, McpToolset

__all__ = [
    "MCPTool",
    "MCPToolset",
    "McpTool",
    "McpToolset",
    "SseConnectionParams",
    "StdioConnectionParams",
    "StdioServerParameters",
    "StreamableHTTPConnectionParams",
]

# For yadk's own packages; not part of the public contract (``__all__``). Their module
# loads with the names above anyway.
from yadk.tools.mcp._auth import AuthCredential as AuthCredential
from yadk.tools.mcp._auth import AuthScheme as AuthScheme
from yadk.tools.mcp._auth import UnsupportedAuth as UnsupportedAuth
from yadk.tools.mcp._auth import auth_headers as auth_headers
from yadk.tools.mcp._auth import to_model as to_model
