"""BasePlugin: callbacks that see every agent, model call, tool call and event of an app."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from yadk._plugin_manager import NOOP_MARK

if TYPE_CHECKING:
    from yadk.agents import BaseAgent, CallbackContext, InvocationContext, ToolContext
    from yadk.events import Event
    from yadk.models import LlmRequest, LlmResponse
    from yadk.tools import BaseTool
    from yadk.types import Content

__all__ = ["BasePlugin"]

_F = TypeVar("_F", bound=Callable[..., Any])


def _noop(fn: _F) -> _F:
    """Marks a callback that does nothing, so the runner never calls it."""
    setattr(fn, NOOP_MARK, True)
    return fn


class BasePlugin:
    """google-adk 2.13's ``BasePlugin``: override the callbacks you need.

    Plugins run in the order the app lists them, before the agents' own callbacks. A callback
    that returns something other than ``None`` wins: later plugins and the agent's callbacks of
    that kind are skipped (``before_model_callback`` returning an ``LlmResponse`` skips the
    model call; ``before_tool_callback`` returning a dict skips the tool). A callback that
    raises ends the invocation with one ``PLUGIN_ERROR`` event naming the plugin and callback.
    Callbacks are called with keyword arguments and may be sync or async.
    """

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"

    @_noop
    async def on_user_message_callback(
        self, *, invocation_context: InvocationContext, user_message: Content
    ) -> Content | None:
        """Before the user's message is stored; a returned ``Content`` replaces it."""
        return None

    @_noop
    async def before_run_callback(self, *, invocation_context: InvocationContext) -> Content | None:
        """Before the agent runs; a returned ``Content`` is the run's only answer."""
        return None

    @_noop
    async def on_event_callback(
        self, *, invocation_context: InvocationContext, event: Event
    ) -> Event | None:
        """Before an event is stored and yielded; a returned event's set fields replace it."""
        return None

    @_noop
    async def after_run_callback(self, *, invocation_context: InvocationContext) -> None:
        """After a run that did not fail (cleanup, reports)."""
        return None

    @_noop
    async def close(self) -> None:
        """When the runner closes: release what the plugin holds."""
        return None

    @_noop
    async def before_agent_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext
    ) -> Content | None:
        """Before an agent runs; a returned ``Content`` answers for it and skips it."""
        return None

    @_noop
    async def after_agent_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext
    ) -> Content | None:
        """After an agent ran; a returned ``Content`` becomes its last event."""
        return None

    @_noop
    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        """Before a model call (the request may be changed); a returned response skips it."""
        return None

    @_noop
    async def after_model_callback(
        self, *, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        """After a model call; a returned response replaces the model's."""
        return None

    @_noop
    async def on_model_error_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest, error: Exception
    ) -> LlmResponse | None:
        """A model call failed; a returned response is used instead of the error."""
        return None

    @_noop
    async def before_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        """Before a tool runs (its args may be changed); a returned dict skips the tool."""
        return None

    @_noop
    async def after_tool_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        result: dict[str, Any],
    ) -> dict[str, Any] | None:
        """After a tool ran; a returned dict replaces its result."""
        return None

    @_noop
    async def on_tool_error_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        error: Exception,
    ) -> dict[str, Any] | None:
        """A tool raised; a returned dict is its result instead of the error."""
        return None

    @_noop
    async def on_agent_error_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext, error: Exception
    ) -> None:
        """An agent failed (every plugin hears it; the failure goes on)."""
        return None

    @_noop
    async def on_run_error_callback(
        self, *, invocation_context: InvocationContext, error: Exception
    ) -> None:
        """The run failed (every plugin hears it; the failure goes on)."""
        return None
