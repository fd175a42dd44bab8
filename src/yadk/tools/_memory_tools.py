"""``load_memory`` and ``preload_memory``: google-adk's memory tools, same declarations and text."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from yadk.memory import MemoryEntry
from yadk.models import FunctionDeclaration, insert_before_current_turn
from yadk.tools._base import BaseTool
from yadk.tools._function import FunctionTool
from yadk.types import Content, Part

if TYPE_CHECKING:
    from yadk._contexts import ToolContext
    from yadk.models import LlmRequest

__all__ = [
    "LoadMemoryResponse",
    "LoadMemoryTool",
    "PreloadMemoryTool",
    "load_memory",
    "preload_memory",
]

logger = logging.getLogger("yadk.tools")

_MEMORY_INSTRUCTION = """
You have memory. You can use it to answer questions. If any questions need
you to look up the memory, you should call load_memory function with a query.
"""

_PAST = """The following content is from your previous conversations with the user.
They may be useful for answering the user's current query.
<PAST_CONVERSATIONS>
{text}
</PAST_CONVERSATIONS>
"""


class LoadMemoryResponse(BaseModel):
    memories: list[MemoryEntry] = Field(default_factory=list)


async def _load_memory(query: str, tool_context: ToolContext) -> LoadMemoryResponse:
    """Loads the memory for the current user.

    Args:
      query: The query to load the memory for.

    Returns:
      A list of memory results.
    """
    found = await tool_context.search_memory(query)
    return LoadMemoryResponse(memories=found.memories)


_load_memory.__name__ = "load_memory"


class LoadMemoryTool(FunctionTool):
    """The model searches the user's memory with a query (needs ``Runner(memory_service=...)``)."""

    def __init__(self) -> None:
        super().__init__(_load_memory, name="load_memory")

    def declaration(self) -> FunctionDeclaration:
        return FunctionDeclaration(
            name=self.name,
            description=self.description,
            parameters={
                "type": "object",
                "properties": {"query": {"type": "string"}},
                "required": ["query"],
            },
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        result = await super().run_async(args=args, tool_context=tool_context)
        if isinstance(result, LoadMemoryResponse):
            # As google-adk hands it to the model: the response model, wrapped in "result".
            return {"result": result.model_dump(mode="json", exclude_none=True)}
        return result

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)
        llm_request.append_instructions([_MEMORY_INSTRUCTION])


class PreloadMemoryTool(BaseTool):
    """Before every model call, the memories matching the user's message are put in front of it;
    the model never calls this tool."""

    def __init__(self) -> None:
        super().__init__(name="preload_memory", description="preload_memory")

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        user = tool_context.user_content
        query = " ".join(p.text for p in (user.parts if user else []) if p.text)
        if not query:
            return
        try:
            found = await tool_context.search_memory(query)
        except Exception:
            logger.warning("Failed to preload memory (query length: %d)", len(query), exc_info=True)
            return
        lines: list[str] = []
        for memory in found.memories:
            if memory.timestamp:
                lines.append(f"Time: {memory.timestamp}")
            text = " ".join(p.text for p in memory.content.parts if p.text)
            if text:
                lines.append(f"{memory.author}: {text}" if memory.author else text)
        if not lines:
            return
        block = Content(role="user", parts=[Part(text=_PAST.format(text="\n".join(lines)))])
        insert_before_current_turn(llm_request.contents, block)


load_memory = LoadMemoryTool()
preload_memory = PreloadMemoryTool()
