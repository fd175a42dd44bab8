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
