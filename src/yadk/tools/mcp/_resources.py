"""``load_mcp_resource``: google-adk's tool that lets the model read an MCP server's resources."""

from __future__ import annotations

import base64
import binascii
import json
import logging
from typing import TYPE_CHECKING, Any

from yadk.models import FunctionDeclaration, LlmRequest
from yadk.tools._base import BaseTool
from yadk.types import Blob, Content, Part

if TYPE_CHECKING:
    from yadk._contexts import ToolContext
    from yadk.tools.mcp._toolset import McpToolset

__all__ = ["LoadMcpResourceTool"]

logger = logging.getLogger("yadk.tools.mcp")

_DESCRIPTION = """Loads resources from the MCP server.

NOTE: Call when you need access to resources."""

_RESOURCE_LIST = """You have a list of MCP resources:
{names}

When the user asks questions about any of the resources, you should call the
`load_mcp_resource` function to load the resource. Always call load_mcp_resource
before answering questions related to the resources.
"""


class LoadMcpResourceTool(BaseTool):
    """Lists the server's resources in the instruction; after the model calls the tool, the
    named resources' contents follow the function response in that request only."""

    def __init__(self, toolset: McpToolset) -> None:
        super().__init__(name="load_mcp_resource", description=_DESCRIPTION)
        self.toolset = toolset

    def declaration(self) -> FunctionDeclaration:
        return FunctionDeclaration(
            name=self.name,
            description=self.description,
            parameters={
                "type": "object",
                "properties": {"resource_names": {"type": "array", "items": {"type": "string"}}},
            },
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        return {
            "resource_names": list(args.get("resource_names", [])),
            "status": (
                "resource contents temporarily inserted and removed. to access"
                " these resources, call load_mcp_resource tool again."
            ),
        }

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)
        try:
            names = [r.name for r in await self.toolset.list_resources(tool_context)]
        except Exception as exc:
            logger.warning("Failed to list MCP resources: %s", exc)
            names = []
        if names:
            llm_request.append_instructions([_RESOURCE_LIST.format(names=json.dumps(names))])
        if not llm_request.contents or not llm_request.contents[-1].parts:
            return
        for part in list(llm_request.contents[-1].parts):
            response = part.function_response
            if response is None or response.name != self.name:
                continue
            for name in (response.response or {}).get("resource_names", []):
                try:
                    contents = await self.toolset.read_resource(name, tool_context)
                except Exception as exc:
                    logger.warning("Failed to read MCP resource %r: %s", name, exc)
                    continue
                for content in contents:
                    llm_request.contents.append(
                        Content(
                            role="user",
                            parts=[Part(text=f"Resource {name} is:"), _as_part(content, name)],
                        )
                    )


def _as_part(content: Any, name: str) -> Part:
    text = getattr(content, "text", None)
    if text is not None:
        return Part(text=text)
    blob = getattr(content, "blob", None)
    if blob is not None:
        try:
            data = base64.b64decode(blob, validate=True)
        except (binascii.Error, ValueError):
            return Part(text=f"[Binary content for {name} could not be decoded]")
        mime = getattr(content, "mime_type", None) or "application/octet-stream"
        return Part(inline_data=Blob(mime_type=mime, data=data))
    return Part(text=f"[Unknown content type for {name}]")
