"""Plugins that shape every model request: a global instruction, a filtered history."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from yadk.apps._plugin import BasePlugin
from yadk.templating import inject_session_state
from yadk.types import Content

if TYPE_CHECKING:
    from yadk.agents import CallbackContext, ReadonlyContext
    from yadk.models import LlmRequest, LlmResponse

__all__ = ["ContextFilterPlugin", "GlobalInstructionPlugin"]

logger = logging.getLogger("yadk.plugins")


class GlobalInstructionPlugin(BasePlugin):
    """An instruction put before every agent's own (google-adk's replacement for
    ``LlmAgent.global_instruction``): a template with ``{state}`` placeholders, or an
    instruction provider ``(ReadonlyContext) -> str`` (sync or async)."""

    def __init__(
        self,
        global_instruction: str | Callable[[ReadonlyContext], Any] = "",
        name: str = "global_instruction",
    ) -> None:
        super().__init__(name)
        self.global_instruction = global_instruction

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        if not self.global_instruction:
            return None
        text = await self._resolve(callback_context)
        if not text:
            return None
        existing = llm_request.system_instruction
        llm_request.system_instruction = f"{text}\n\n{existing}" if existing else text
        return None

    async def _resolve(self, context: ReadonlyContext) -> str:
        if isinstance(self.global_instruction, str):
            return await inject_session_state(self.global_instruction, context)
        value = self.global_instruction(context)
        if inspect.isawaitable(value):
            value = await value
        return str(value or "")


class ContextFilterPlugin(BasePlugin):
    """Keeps model requests short: only the last ``num_invocations_to_keep`` invocations
    (an invocation starts at a user's message; tool results do not start one), dropped
    ``remove_amount`` at a time, never splitting a function call from its response; then
    ``custom_filter(contents) -> contents`` if given. The stored history is untouched."""

    def __init__(
        self,
        num_invocations_to_keep: int | None = None,
        custom_filter: Callable[[list[Content]], list[Content]] | None = None,
        name: str = "context_filter_plugin",
        remove_amount: int = 1,
    ) -> None:
        if remove_amount < 1:
            raise ValueError("remove_amount must be at least 1")
        super().__init__(name)
        self.num_invocations_to_keep = num_invocations_to_keep
        self.custom_filter = custom_filter
        self.remove_amount = remove_amount

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        try:
            contents = list(llm_request.contents)
            keep = self.num_invocations_to_keep
            if keep is not None and keep > 0:
                starts = invocation_starts(contents)
                if len(starts) >= keep + self.remove_amount:
                    contents = contents[keep_pairs(contents, starts[-keep]) :]
            if self.custom_filter is not None:
                contents = self.custom_filter(contents)
            llm_request.contents = contents
        except Exception:
            # A broken filter must not end the conversation: the request goes out unfiltered.
            logger.exception("ContextFilterPlugin %r could not filter the request", self.name)
        return None


def _is_tool_output(content: Content) -> bool:
    return any(part.function_response is not None for part in content.parts)


def invocation_starts(contents: Sequence[Content]) -> list[int]:
    """Where each invocation begins: the first of consecutive user messages that are not
    tool results."""
    starts: list[int] = []
    previous_user = False
    for index, content in enumerate(contents):
        user = content.role == "user" and not _is_tool_output(content)
        if user and not previous_user:
            starts.append(index)
        previous_user = user
    return starts


def keep_pairs(contents: Sequence[Content], split: int) -> int:
    """``split`` moved back until no kept function response lacks its call."""
    unanswered: set[str] = set()
    for index in range(len(contents) - 1, -1, -1):
        for part in reversed(contents[index].parts):
            if part.function_response is not None and part.function_response.id:
                unanswered.add(part.function_response.id)
            if part.function_call is not None and part.function_call.id:
                unanswered.discard(part.function_call.id)
        if index <= split and not unanswered:
            return index
    return 0
