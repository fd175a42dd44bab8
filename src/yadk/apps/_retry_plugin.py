"""ReflectAndRetryToolPlugin: a failing tool's error goes back to the model with guidance to
reflect and retry, up to a limit."""

from __future__ import annotations

import asyncio
import enum
import json
from typing import TYPE_CHECKING, Any

from yadk.apps._plugin import BasePlugin

if TYPE_CHECKING:
    from yadk.agents import ToolContext
    from yadk.tools import BaseTool

__all__ = ["REFLECT_AND_RETRY_RESPONSE_TYPE", "ReflectAndRetryToolPlugin", "TrackingScope"]

# google-adk's marker on the answers this plugin gives (other plugins recognise them by it).
REFLECT_AND_RETRY_RESPONSE_TYPE = "ERROR_HANDLED_BY_REFLECT_AND_RETRY_PLUGIN"
_GLOBAL_SCOPE = "__global_reflect_and_retry_scope__"


class TrackingScope(enum.Enum):
    """How long failures are counted: per invocation (the default) or for the plugin's life."""

    INVOCATION = "invocation"
    GLOBAL = "global"


class ReflectAndRetryToolPlugin(BasePlugin):
    """When a tool raises (or ``extract_error_from_result`` finds an error in its result), the
    model gets a structured answer (``response_type``, ``error_type``, ``error_details``,
    ``retry_count``, ``reflection_guidance``) asking it to reconsider and retry. Consecutive
    failures are counted per tool (a success resets that tool's count) within ``tracking_scope``;
    past ``max_retries`` the error is raised (``throw_exception_if_retry_exceeded``, ending the
    invocation with a ``PLUGIN_ERROR`` event) or the model is told to stop using the tool."""

    def __init__(
        self,
        name: str = "reflect_retry_tool_plugin",
        max_retries: int = 3,
        throw_exception_if_retry_exceeded: bool = True,
        tracking_scope: TrackingScope | str = TrackingScope.INVOCATION,
    ) -> None:
        super().__init__(name)
        if max_retries < 0:
            raise ValueError("max_retries must be a non-negative integer.")
        self.max_retries = max_retries
        self.throw_exception_if_retry_exceeded = throw_exception_if_retry_exceeded
        self.scope = TrackingScope(tracking_scope)
        self._failures: dict[str, dict[str, int]] = {}
        self._lock = asyncio.Lock()

    async def after_tool_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        result: Any,
    ) -> dict[str, Any] | None:
        if isinstance(result, dict) and result.get("response_type") == (
            REFLECT_AND_RETRY_RESPONSE_TYPE
        ):
            return None
        error = await self.extract_error_from_result(
            tool=tool, tool_args=tool_args, tool_context=tool_context, result=result
        )
        if error:
            return await self._failed(tool, tool_args, tool_context, error)
        async with self._lock:
            scope = self._failures.get(self._scope_key(tool_context))
            if scope is not None:
                scope.pop(tool.name, None)
        return None

    async def extract_error_from_result(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext, result: Any
    ) -> Any:
        """Override to treat a result that reports an error (``{"status": "error"}``) as a
        failure; the default treats every result that did not raise as a success."""
        return None

    async def on_tool_error_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        error: Exception,
    ) -> dict[str, Any] | None:
        return await self._failed(tool, tool_args, tool_context, error)

    def _scope_key(self, tool_context: ToolContext) -> str:
        """Override for another scope (per user, per session)."""
        if self.scope is TrackingScope.GLOBAL:
            return _GLOBAL_SCOPE
        return tool_context.invocation_id

    async def _failed(
        self, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext, error: Any
    ) -> dict[str, Any]:
        if self.max_retries > 0:
            async with self._lock:
                counts = self._failures.setdefault(self._scope_key(tool_context), {})
                counts[tool.name] = attempt = counts.get(tool.name, 0) + 1
            if attempt <= self.max_retries:
                return self._answer(tool, tool_args, error, attempt, _retry_text)
        if self.throw_exception_if_retry_exceeded:
            raise error if isinstance(error, Exception) else Exception(str(error))
        return self._answer(tool, tool_args, error, self.max_retries, _give_up_text)

    def _answer(
        self, tool: BaseTool, tool_args: dict[str, Any], error: Any, count: int, text: Any
    ) -> dict[str, Any]:
        details = f"{type(error).__name__}: {error}" if isinstance(error, Exception) else str(error)
        arguments = json.dumps(tool_args, indent=2, default=str)
        return {
            "response_type": REFLECT_AND_RETRY_RESPONSE_TYPE,
            "error_type": type(error).__name__ if isinstance(error, Exception) else "ToolError",
            "error_details": str(error),
            "retry_count": count,
            "reflection_guidance": text(tool.name, details, arguments, count, self.max_retries),
        }


def _retry_text(tool: str, details: str, arguments: str, count: int, limit: int) -> str:
    return (
        f"Calling tool `{tool}` failed.\n\nError:\n```\n{details}\n```\n\n"
        f"Arguments used:\n```json\n{arguments}\n```\n\n"
        f"This was attempt {count} of {limit}. Do not repeat the same call unchanged. Check"
        " whether the arguments are wrong, missing or badly formatted (compare them with the"
        " tool's schema); whether an earlier step should have prepared something this tool"
        " needs; whether another tool, or smaller steps, would do better; and whether the tool"
        " name is one you were given. Then make a corrected call or take another approach."
    )


def _give_up_text(tool: str, details: str, arguments: str, count: int, limit: int) -> str:
    return (
        f"Tool `{tool}` failed {limit} times in a row; its retry limit is reached.\n\n"
        f"Last error:\n```\n{details}\n```\n\nLast arguments:\n```json\n{arguments}\n```\n\n"
        f"Do not call `{tool}` again for this task. Take another approach with the other"
        " tools, or tell the user that the task cannot be completed and why."
    )
