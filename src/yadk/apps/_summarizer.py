"""Summarisers: what turns a range of events into one compaction event (google-adk's
``BaseEventsSummarizer`` and ``LlmEventSummarizer``, with the same prompt and formatting, so a
summary model sees what google-adk would send it)."""

from __future__ import annotations

import abc

from yadk._contexts import new_invocation_id
from yadk.events import Event, EventActions, EventCompaction
from yadk.models import BaseLlm, LlmRequest, resolve_model
from yadk.types import Content, Part

__all__ = ["BaseEventsSummarizer", "LlmEventSummarizer"]

# google-adk's synthetic function call for a credential request: its payload is the end user's
# credential, not conversation, so summaries leave it out as requests do.
_CREDENTIAL_REQUEST = "adk_request_credential"


class BaseEventsSummarizer(abc.ABC):
    """Summarises events into one compaction event (``None``: no summary this time)."""

    @abc.abstractmethod
    async def maybe_summarize_events(self, *, events: list[Event]) -> Event | None:
        """One event whose ``actions.compaction`` covers ``events``, or ``None``."""


class LlmEventSummarizer(BaseEventsSummarizer):
    """Asks a model to summarise the events; ``llm`` is a backend or a model name
    (``gemini-2.5-flash``, ``scripted:summaries.yaml``)."""

    DEFAULT_PROMPT_TEMPLATE = (
        "The following is a conversation history between a user and an AI agent."
        " It may or may not start from a compacted history. Please identify and"
        " reiterate the user request, summarize the context so far, focusing on"
        " key decisions made and information obtained, as well as any unresolved"
        " questions or tasks. "
        "CRITICAL INSTRUCTIONS: "
        "1. Explicitly identify and state the primary language used by the user "
        'at the top of your summary (e.g., "Conversation Language: English"). '
        "2. If the agent called any tools, accurately list the exact tool names "
        "used to maintain tool grounding. "
        "The rest of the summary should be concise and capture the"
        " essence of the interaction.\n\n{conversation_history}"
    )
    # Tool arguments and results can be large (search results): each is cut to this many
    # characters, so a summary does not inflate the context it exists to shrink.
    MAX_TOOL_CONTENT_CHARS = 2000

    def __init__(self, llm: BaseLlm | str, prompt_template: str | None = None) -> None:
        self.llm = resolve_model(llm)
        self.prompt_template = prompt_template or self.DEFAULT_PROMPT_TEMPLATE

    def format_events(self, events: list[Event]) -> str:
        """The conversation as the prompt shows it: texts, thoughts, tool calls and results,
        one line each."""
        lines: list[str] = []
        for event in events:
            if event.content is None or not event.content.parts:
                continue
            if any(c.name == _CREDENTIAL_REQUEST for c in event.get_function_calls()):
                continue
            summary = event.actions.compaction is not None
            for part in event.content.parts:
                if part.thought and part.text:
                    if not summary:
                        lines.append(f"{event.author} (thought): {part.text}")
                elif part.text:
                    lines.append(f"{event.author}: {part.text}")
                if part.function_call is not None:
                    args = self._cut(str(part.function_call.args))
                    lines.append(f"{event.author} called tool: {part.function_call.name}({args})")
                if part.function_response is not None:
                    response = self._cut(str(part.function_response.response))
                    lines.append(f"Tool response from {part.function_response.name}: {response}")
        return "\n".join(lines)

    def _cut(self, text: str) -> str:
        limit = self.MAX_TOOL_CONTENT_CHARS
        if len(text) <= limit:
            return text
        return f"{text[:limit]}... [truncated {len(text) - limit} chars]"

    async def maybe_summarize_events(self, *, events: list[Event]) -> Event | None:
        if not events:
            return None
        prompt = self.prompt_template.format(conversation_history=self.format_events(events))
        request = LlmRequest(
            model=self.llm.model, contents=[Content(role="user", parts=[Part(text=prompt)])]
        )
        summary: Content | None = None
        usage = None
        async for response in self.llm.generate_content_async(request, stream=False):
            if response.content is not None:
                summary, usage = response.content, response.usage_metadata
                break
        if summary is None:
            return None
        compaction = EventCompaction(
            start_timestamp=events[0].timestamp,
            end_timestamp=events[-1].timestamp,
            compacted_content=summary.model_copy(update={"role": "model"}),
        )
        return Event(
            author="user",
            invocation_id=new_invocation_id(),
            actions=EventActions(compaction=compaction),
            usage_metadata=usage,
        )
