"""MCPToolset: the tools of an MCP server, offered to the model as function tools."""

from __future__ import annotations

import functools
import inspect
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from yadk._tool_confirmation import required
from yadk.errors import ToolExecutionError
from yadk.models import FunctionDeclaration
from yadk.tools._base import BaseTool, BaseToolset
from yadk.tools.mcp._auth import AuthCredential, AuthScheme, auth_headers, merge_headers, to_model
from yadk.tools.mcp._connection import McpConnection, import_mcp
from yadk.tools.mcp._fencing import TOOL_DESCRIPTION_PREAMBLE, fence_description, fence_schema
from yadk.tools.mcp._params import ConnectionParams
from yadk.tools.mcp._resources import LoadMcpResourceTool

if TYPE_CHECKING:
    from yadk._contexts import ReadonlyContext, ToolContext
    from yadk.models import LlmRequest

__all__ = ["MCPTool", "MCPToolset", "McpTool", "McpToolset", "render_call_result"]

logger = logging.getLogger("yadk.tools.mcp")

# Names the framework itself uses for tools; a server tool by one of these names is skipped, as
# google-adk does.
RESERVED_TOOL_NAMES = frozenset({"transfer_to_agent", "set_model_response"})

# Connections kept per distinct set of header-provider headers (each is a server session); the
# least recently used is closed beyond this, so a provider minting per-request headers cannot
# pile up sessions.
MAX_HEADER_CONNECTIONS = 32

HeaderProvider = Callable[["ReadonlyContext"], "dict[str, str] | Awaitable[dict[str, str]]"]


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
        """The server's schema, its descriptions fenced as untrusted (see ``_fencing``)."""
        schema = self.spec.input_schema
        output = getattr(self.spec, "output_schema", None)
        return FunctionDeclaration(
            name=self.name,
            description=fence_description(self.description),
            parameters=fence_schema(schema) if schema is not None else None,
            response=fence_schema(output) if output is not None else None,
        )

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)
        if TOOL_DESCRIPTION_PREAMBLE not in (llm_request.system_instruction or ""):
            llm_request.append_instructions([TOOL_DESCRIPTION_PREAMBLE])

    async def check_require_confirmation(
        self, args: dict[str, Any], tool_context: ToolContext
    ) -> bool:
        return await required(self.toolset.require_confirmation, args, tool_context)

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        mcp = import_mcp()
        connection = await self.toolset.connection_for(tool_context)
        try:
            result = await connection.request(
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

    HTTP transports carry ``auth_scheme``/``auth_credential`` as headers (API key, HTTP bearer,
    basic; see ``yadk.tools.mcp._auth``; ``ValueError`` for flows yadk does not run), and
    ``header_provider(readonly_context)`` (sync or async) adds headers per request: each
    distinct set of provided headers gets its own server session and tool list, as in
    google-adk. Auth headers win over provided ones, and both over the params' ``headers``.
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
        auth_scheme: Any = None,
        auth_credential: Any = None,
        header_provider: HeaderProvider | None = None,
        require_confirmation: bool | Callable[..., Any] = False,
    ) -> None:
        self.connection_params = connection_params
        # google-adk's: every tool's calls wait for the user's confirmation (True), or those a
        # predicate on the call's arguments (and tool_context) answers True for.
        self.require_confirmation = require_confirmation
        self.tool_filter = list(tool_filter) if tool_filter is not None else None
        self.tool_name_prefix = tool_name_prefix
        self.tool_list_cache_ttl_seconds = tool_list_cache_ttl_seconds
        self.use_mcp_resources = use_mcp_resources
        self.auth_scheme: AuthScheme | None = to_model(auth_scheme, AuthScheme)
        self.auth_credential: AuthCredential | None = to_model(auth_credential, AuthCredential)
        self.header_provider = header_provider
        self._auth_headers = auth_headers(self.auth_scheme, self.auth_credential)
        self._errlog = errlog
        self.connection = self._connect(self._auth_headers)
        self._by_headers: OrderedDict[tuple[tuple[str, str], ...], McpConnection] = OrderedDict()
        self._lists: dict[int, tuple[list[Any], float, int]] = {}

    def _connect(self, headers: dict[str, str]) -> McpConnection:
        connection = McpConnection(self.connection_params, errlog=self._errlog, headers=headers)
        connection_id = id(connection)
        connection._on_notification = functools.partial(self._notified, connection_id)
        return connection

    def _notified(self, connection_id: int, message: Any) -> None:
        if getattr(message, "method", None) == "notifications/tools/list_changed":
            self._lists.pop(connection_id, None)

    async def connection_for(self, context: ReadonlyContext | None) -> McpConnection:
        """The connection that carries ``header_provider(context)``'s headers (the default
        connection without a provider or a context)."""
        if self.header_provider is None or context is None:
            return self.connection
        provided = self.header_provider(context)
        if inspect.isawaitable(provided):
            provided = await provided
        headers = merge_headers(dict(provided or {}), self._auth_headers)
        key = tuple(sorted(headers.items()))
        connection = self._by_headers.get(key)
        if connection is not None:
            self._by_headers.move_to_end(key)
            return connection
        connection = self._by_headers[key] = self._connect(headers)
        if len(self._by_headers) > MAX_HEADER_CONNECTIONS:
            _, oldest = self._by_headers.popitem(last=False)
            self._lists.pop(id(oldest), None)
            await oldest.close()
        return connection

    async def list_server_tools(self, connection: McpConnection | None = None) -> list[Any]:
        """The server's tool specs, from the cache when it is still valid."""
        connection = connection or self.connection
        ttl = self.tool_list_cache_ttl_seconds
        cached = self._lists.get(id(connection))
        if (
            cached is not None
            and cached[2] == connection.starts
            and connection.is_open
            and (ttl is None or time.monotonic() - cached[1] < ttl)
        ):
            return cached[0]
        tools: list[Any] = []
        cursor: str | None = None
        mcp = import_mcp()
        while True:
            params = mcp.types.PaginatedRequestParams(cursor=cursor) if cursor else None
            page: Any = await connection.request(
                functools.partial(_list_tools, params=params), what="tools/list"
            )
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        self._lists[id(connection)] = (tools, time.monotonic(), connection.starts)
        return tools

    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        try:
            specs = await self.list_server_tools(await self.connection_for(readonly_context))
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

    async def list_resources(self, context: ReadonlyContext | None = None) -> list[Any]:
        """The server's resources (``resources/list``)."""
        connection = await self.connection_for(context)
        page = await connection.request(
            lambda session: session.list_resources(), what="resources/list"
        )
        return list(page.resources)

    async def read_resource(self, name: str, context: ReadonlyContext | None = None) -> list[Any]:
        """The contents of the resource called ``name`` (google-adk looks resources up by name)."""
        connection = await self.connection_for(context)
        for resource in await self.list_resources(context):
            if resource.name == name:
                result: Any = await connection.request(
                    functools.partial(_read_resource, uri=str(resource.uri)),
                    what="resources/read",
                )
                return list(result.contents)
        raise ValueError(f"Resource with name '{name}' not found.")

    async def close(self) -> None:
        connections = [self.connection, *self._by_headers.values()]
        self._by_headers.clear()
        self._lists.clear()
        for connection in connections:
            await connection.close()

    def __repr__(self) -> str:
        return f"McpToolset({self.connection.describe()})"


class MCPToolset(McpToolset):
    """google-adk's older name for ``McpToolset`` (kept without google-adk's warning)."""


MCPTool = McpTool


async def _list_tools(session: Any, *, params: Any) -> Any:
    return await session.list_tools(params=params)


async def _read_resource(session: Any, *, uri: str) -> Any:
    return await session.read_resource(uri)
