"""MCPToolset: the tools of an MCP server, offered to the model as function tools."""

from __future__ import annotations

import copy
import functools
import logging
import time
from typing import TYPE_CHECKING, Any

from yadk.errors import ToolExecutionError
from yadk.models import FunctionDeclaration
from yadk.tools._base import BaseTool, BaseToolset
from yadk.tools.mcp._connection import McpConnection, import_mcp
from yadk.tools.mcp._params import ConnectionParams
from yadk.tools.mcp._resources import LoadMcpResourceTool

if TYPE_CHECKING:
    from yadk._contexts import ReadonlyContext, ToolContext

__all__ = ["MCPTool", "MCPToolset", "McpTool", "McpToolset", "render_call_result"]

logger = logging.getLogger("yadk.tools.mcp")

# Names the framework itself uses for tools; a server tool by one of these names is skipped, as
# google-adk does.
RESERVED_TOOL_NAMES = frozenset({"transfer_to_agent", "set_model_response"})


def render_call_result(result: Any) -> dict[str, Any]:
    """A ``CallToolResult`` as google-adk hands it to the model: the camelCase JSON dump
    (``content``, ``structuredContent``, ``isError``, ``meta``), without ``resultType``."""
    dumped: dict[str, Any] = result.model_dump(exclude_none=True, mode="json", by_alias=True)
    if "_meta" in dumped:
        dumped["meta"] = dumped.pop("_meta")
    dumped.pop("resultType", None)
    return dumped


class McpTool(BaseTool):
    """One tool of an MCP server; its declaration is the server's schema."""

    def __init__(self, spec: Any, toolset: McpToolset, *, name: str | None = None) -> None:
        super().__init__(name=name or spec.name, description=spec.description or "")
        self.spec = spec
        self.toolset = toolset

    def declaration(self) -> FunctionDeclaration:
        return FunctionDeclaration(
            name=self.name,
            description=self.description,
            parameters=copy.deepcopy(self.spec.input_schema),
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        mcp = import_mcp()
        try:
            result = await self.toolset.connection.request(
                lambda session: session.call_tool(self.spec.name, arguments=args),
                what=f"tools/call {self.spec.name}",
            )
        except mcp.MCPError as exc:
            logger.warning("MCP tool %s failed: %s", self.spec.name, exc)
            return {"error": f"MCP tool execution failed: {exc}"}
        except ToolExecutionError as exc:
            logger.warning("MCP tool %s failed: %s", self.spec.name, exc.message)
            return {"error": f"Unexpected error during MCP tool execution: {exc.message}"}
        return render_call_result(result)


class McpToolset(BaseToolset):
    """The tools of one MCP server (google-adk's ``McpToolset``, on the official ``mcp`` SDK).

    The server is started (or connected to) at first use and reused across turns and
    invocations. ``tools/list`` is asked once and kept until the server says
    ``notifications/tools/list_changed``, or for ``tool_list_cache_ttl_seconds`` if given.
    ``tool_filter`` keeps only the named tools; ``tool_name_prefix`` renames each ``x`` to
    ``prefix_x``; ``use_mcp_resources`` adds google-adk's ``load_mcp_resource`` tool. ``close()``
    stops the server; ``Runner.close()`` closes every toolset of its agent tree.
    """

    def __init__(
        self,
        *,
        connection_params: ConnectionParams,
        tool_filter: list[str] | None = None,
        tool_name_prefix: str | None = None,
        tool_list_cache_ttl_seconds: float | None = None,
        use_mcp_resources: bool = False,
        errlog: Any = None,
    ) -> None:
        self.connection_params = connection_params
        self.tool_filter = list(tool_filter) if tool_filter is not None else None
        self.tool_name_prefix = tool_name_prefix
        self.tool_list_cache_ttl_seconds = tool_list_cache_ttl_seconds
        self.use_mcp_resources = use_mcp_resources
        self.connection = McpConnection(
            connection_params, on_notification=self._notified, errlog=errlog
        )
        self._listed: list[Any] | None = None
        self._listed_at = 0.0
        self._listed_start = 0

    def _notified(self, message: Any) -> None:
        if getattr(message, "method", None) == "notifications/tools/list_changed":
            self._listed = None

    async def list_server_tools(self) -> list[Any]:
        """The server's tool specs, from the cache when it is still valid."""
        ttl = self.tool_list_cache_ttl_seconds
        fresh = (
            self._listed is not None
            and self._listed_start == self.connection.starts
            and self.connection.is_open
            and (ttl is None or time.monotonic() - self._listed_at < ttl)
        )
        if fresh:
            assert self._listed is not None
            return self._listed
        tools: list[Any] = []
        cursor: str | None = None
        mcp = import_mcp()
        while True:
            params = mcp.types.PaginatedRequestParams(cursor=cursor) if cursor else None
            page: Any = await self.connection.request(
                functools.partial(_list_tools, params=params), what="tools/list"
            )
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        self._listed, self._listed_at = tools, time.monotonic()
        self._listed_start = self.connection.starts
        return tools

    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        try:
            specs = await self.list_server_tools()
        except ToolExecutionError as exc:
            # The model still gets a request; the failure is logged and retried next turn.
            logger.warning("MCP toolset: %s", exc.message)
            return []
        tools: list[BaseTool] = []
        for spec in specs:
            if spec.name in RESERVED_TOOL_NAMES:
                logger.warning("Skipping MCP tool %r: the name is reserved by yadk.", spec.name)
                continue
            if self.tool_filter is not None and spec.name not in self.tool_filter:
                continue
            prefixed = f"{self.tool_name_prefix}_{spec.name}" if self.tool_name_prefix else None
            tools.append(McpTool(spec, self, name=prefixed))
        tools.sort(key=lambda tool: tool.name)
        if self.use_mcp_resources:
            tools.append(LoadMcpResourceTool(self))
        return tools

    async def list_resources(self) -> list[Any]:
        """The server's resources (``resources/list``)."""
        page = await self.connection.request(
            lambda session: session.list_resources(), what="resources/list"
        )
        return list(page.resources)

    async def read_resource(self, name: str) -> list[Any]:
        """The contents of the resource called ``name`` (google-adk looks resources up by name)."""
        for resource in await self.list_resources():
            if resource.name == name:
                result: Any = await self.connection.request(
                    functools.partial(_read_resource, uri=str(resource.uri)),
                    what="resources/read",
                )
                return list(result.contents)
        raise ValueError(f"Resource with name '{name}' not found.")

    async def close(self) -> None:
        await self.connection.close()
        self._listed = None

    def __repr__(self) -> str:
        return f"McpToolset({self.connection.describe()})"


class MCPToolset(McpToolset):
    """google-adk's older name for ``McpToolset`` (kept without google-adk's warning)."""


MCPTool = McpTool


async def _list_tools(session: Any, *, params: Any) -> Any:
    return await session.list_tools(params=params)


async def _read_resource(session: Any, *, uri: str) -> Any:
    return await session.read_resource(uri)
