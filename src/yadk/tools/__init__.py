"""Tools: what a model can call, and hooks that shape each request.

``ExampleTool`` lives with the examples (``yadk.examples``) and is named here too, as in
google-adk; it loads from there on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from yadk._lazy import lazy_facade
from yadk.errors import ToolErrorType, ToolExecutionError

if TYPE_CHECKING:
    from yadk._contexts import ToolContext
    from yadk._tool_confirmation import ToolConfirmation
    from yadk.examples import ExampleTool
    from yadk.tools._agent_tool import AgentTool
    from yadk.tools._artifacts_tool import load_artifacts
    from yadk.tools._base import BaseTool, BaseToolset
    from yadk.tools._builtin import exit_loop, transfer_to_agent
    from yadk.tools._closing import close_toolsets
    from yadk.tools._function import FunctionTool
    from yadk.tools._gemini_builtins import GoogleSearchTool, google_search, url_context
    from yadk.tools._long_running import LongRunningFunctionTool
    from yadk.tools._memory_tools import load_memory, preload_memory
    from yadk.tools._user_choice import get_user_choice
    from yadk.tools.mcp import MCPToolset, McpToolset

__all__ = [
    "AgentTool",
    "BaseTool",
    "BaseToolset",
    "ExampleTool",
    "FunctionTool",
    "GoogleSearchTool",
    "LongRunningFunctionTool",
    "MCPToolset",
    "McpToolset",
    "ToolConfirmation",
    "ToolContext",
    "ToolErrorType",
    "ToolExecutionError",
    "close_toolsets",
    "exit_loop",
    "get_user_choice",
    "google_search",
    "load_artifacts",
    "load_memory",
    "preload_memory",
    "transfer_to_agent",
    "url_context",
]

# For yadk's own packages; not part of the public contract (``__all__``). Loaded on first
# use (table below), as the names above are.
if TYPE_CHECKING:
    from yadk.tools._agent_tool import GROUNDING_STATE_KEY as GROUNDING_STATE_KEY
    from yadk.tools._long_running import pending_calls as pending_calls

# Loaded on first use: an agent's tools import only their own modules (MCP only with MCP).
__getattr__, __dir__ = lazy_facade(
    globals(),
    {
        "ToolContext": "yadk._contexts",
        "ToolConfirmation": "yadk._tool_confirmation",
        "AgentTool": "yadk.tools._agent_tool",
        "load_artifacts": "yadk.tools._artifacts_tool",
        "BaseTool": "yadk.tools._base",
        "BaseToolset": "yadk.tools._base",
        "exit_loop": "yadk.tools._builtin",
        "transfer_to_agent": "yadk.tools._builtin",
        "close_toolsets": "yadk.tools._closing",
        "ExampleTool": "yadk.examples",
        "FunctionTool": "yadk.tools._function",
        "GoogleSearchTool": "yadk.tools._gemini_builtins",
        "google_search": "yadk.tools._gemini_builtins",
        "url_context": "yadk.tools._gemini_builtins",
        "LongRunningFunctionTool": "yadk.tools._long_running",
        "load_memory": "yadk.tools._memory_tools",
        "preload_memory": "yadk.tools._memory_tools",
        "get_user_choice": "yadk.tools._user_choice",
        "MCPToolset": "yadk.tools.mcp",
        "McpToolset": "yadk.tools.mcp",
        # for yadk's own packages; not part of the public contract
        "GROUNDING_STATE_KEY": "yadk.tools._agent_tool",
        "pending_calls": "yadk.tools._long_running",
    },
)
