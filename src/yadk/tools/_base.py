"""The tool interfaces: BaseTool (one callable capability) and BaseToolset (a family of tools)."""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Any

from yadk.models import FunctionDeclaration, LlmRequest

if TYPE_CHECKING:
    from yadk._contexts import ReadonlyContext, ToolContext

__all__ = ["BaseTool", "BaseToolset"]


class BaseTool(abc.ABC):
    """A capability the model can call, or a hook that rewrites the request (or both).

    ``declaration()`` returns what the model sees, or ``None`` for a tool the model never calls
    (such as ``ExampleTool``). ``process_llm_request`` runs before every model call; the default
    registers the tool so its declaration is sent.
    """

    name: str = ""
    description: str = ""

    def __init__(self, *, name: str = "", description: str = "") -> None:
        if name:
            self.name = name
        if description:
            self.description = description

    def declaration(self) -> FunctionDeclaration | None:
        return None

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        raise NotImplementedError(f"Tool {self.name!r} cannot be called")

    async def check_require_confirmation(
        self, args: dict[str, Any], tool_context: ToolContext
    ) -> bool:
        """Whether a call with ``args`` waits for the user's confirmation before it runs
        (google-adk's); the default: never."""
        return False

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        if self.declaration() is not None:
            llm_request.tools_dict[self.name] = self

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


class BaseToolset(abc.ABC):
    """A family of tools chosen per request (e.g. every skill's tools), which may also add
    instructions to the request via ``process_llm_request``."""

    @abc.abstractmethod
    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        """The tools to offer for this request."""

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Add toolset-level instructions to the request; the default adds nothing."""

    async def close(self) -> None:
        """Release resources held by the toolset."""
