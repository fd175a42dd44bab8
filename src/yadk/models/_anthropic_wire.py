"""Anthropic Messages API bodies: messages, tools and settings from an LlmRequest, and answers
(whole or assembled from a stream) back into LlmResponses."""

from __future__ import annotations

import base64
import json
import logging
from typing import Any

from yadk._case import snake_case
from yadk.errors import ModelError
from yadk.models._base import FunctionDeclaration, LlmResponse
from yadk.models._http_backend import final_response
from yadk.models._rest import CONTINUE_TEXT, EMPTY_CONTENTS_TEXT, code_parts_as_text
from yadk.types import Content, FunctionCall, FunctionResponse, Part

__all__ = ["DEFAULT_MAX_TOKENS", "message_settings", "parse_message", "to_messages", "tool"]

logger = logging.getLogger("yadk.models")

# The Messages API requires max_tokens; google-adk's AnthropicLlm sends the same default.
DEFAULT_MAX_TOKENS = 8192
_PASSED = {"temperature", "top_p", "top_k", "stop_sequences", "metadata", "service_tier"}
_RENAMED = {"max_output_tokens": "max_tokens"}
_STOP_REASONS = {
    "end_turn": "STOP",
    "stop_sequence": "STOP",
    "tool_use": "STOP",
    "pause_turn": "STOP",
    "max_tokens": "MAX_TOKENS",
    "refusal": "SAFETY",
}
_warned: set[str] = set()


def to_messages(contents: list[Content]) -> list[dict[str, Any]]:
    """Alternating user/assistant messages for ``contents``, each tool result in the user
    message right after the call it answers."""
    builder = _Messages()
    for content in contents:
        content = code_parts_as_text(content)
        if content.role == "model":
            builder.assistant(content)
        else:
            builder.user(content)
    return builder.finish()


class _Messages:
    """Builds the message list. Calls without an id get ``toolu_N`` (stable within the request);
    a result takes the id of its call (by id, else the oldest unanswered call of its name); a
    call left unanswered gets an error result, which the API requires."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.pending: list[tuple[str, str]] = []
        self.count = 0

    def _add(self, role: str, blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return
        if self.messages and self.messages[-1]["role"] == role:
            self.messages[-1]["content"].extend(blocks)  # same-role turns merge
        else:
            self.messages.append({"role": role, "content": blocks})

    def assistant(self, content: Content) -> None:
        self._add("user", self._unanswered())
        blocks: list[dict[str, Any]] = []
        for part in content.parts:
            if part.thought:
                continue  # thinking blocks cannot be sent back without their signatures
            if part.function_call is not None:
                call_id = part.function_call.id or f"toolu_{self.count}"
                self.count += 1
                self.pending.append((call_id, part.function_call.name))
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": call_id,
                        "name": part.function_call.name,
                        "input": part.function_call.args,
                    }
                )
            elif part.text:
                blocks.append({"type": "text", "text": part.text})
        self._add("assistant", blocks)

    def user(self, content: Content) -> None:
        results: list[dict[str, Any]] = []
        others: list[dict[str, Any]] = []
        for part in content.parts:
            if part.function_response is not None:
                result = json.dumps(part.function_response.response, ensure_ascii=False)
                call_id = self._pair(part.function_response)
                if call_id is None:
                    name = part.function_response.name
                    others.append({"type": "text", "text": f"Tool `{name}` returned: {result}"})
                else:
                    results.append(
                        {"type": "tool_result", "tool_use_id": call_id, "content": result}
                    )
            elif not part.thought:
                block = _block(part)
                if block is not None:
                    others.append(block)
        if others:
            results += self._unanswered()
        self._add("user", results + others)

    def finish(self) -> list[dict[str, Any]]:
        self._add("user", self._unanswered())
        if not self.messages:
            self._add("user", [{"type": "text", "text": EMPTY_CONTENTS_TEXT}])
        elif self.messages[-1]["role"] == "assistant":
            self._add("user", [{"type": "text", "text": CONTINUE_TEXT}])
        return self.messages

    def _pair(self, response: FunctionResponse) -> str | None:
        index = next((i for i, (c, _) in enumerate(self.pending) if response.id == c), None)
        if index is None:
            index = next((i for i, (_, n) in enumerate(self.pending) if response.name == n), None)
        if index is None:
            return None
        return self.pending.pop(index)[0]

    def _unanswered(self) -> list[dict[str, Any]]:
        blocks = [
            {
                "type": "tool_result",
                "tool_use_id": call_id,
                "content": f"No result was recorded for this call of `{name}`.",
                "is_error": True,
            }
            for call_id, name in self.pending
        ]
        self.pending.clear()
        return blocks


def _block(part: Part) -> dict[str, Any] | None:
    if part.text is not None:
        return {"type": "text", "text": part.text} if part.text else None
    if part.inline_data is not None:
        mime = part.inline_data.mime_type or ""
        data = part.inline_data.data or b""
        if mime.startswith("image/") or mime == "application/pdf":
            kind = "image" if mime.startswith("image/") else "document"
            source = {"type": "base64", "media_type": mime, "data": base64.b64encode(data).decode()}
            return {"type": kind, "source": source}
        if mime.startswith("text/") or mime in ("application/json", "application/yaml"):
            return {"type": "text", "text": data.decode("utf-8", errors="replace")}
        raise ModelError(
            f"Anthropic models accept images, PDF and text inline, not {mime or 'untyped'} data;"
            " convert it to text first."
        )
    if part.file_data is not None and part.file_data.file_uri:
        mime = part.file_data.mime_type or ""
        kind = "document" if mime == "application/pdf" else "image"
        return {"type": kind, "source": {"type": "url", "url": part.file_data.file_uri}}
    return None


def tool(declaration: FunctionDeclaration) -> dict[str, Any]:
    """A tool declaration in the Messages API shape."""
    wire: dict[str, Any] = {"name": declaration.name}
    if declaration.description:
        wire["description"] = declaration.description
    wire["input_schema"] = declaration.parameters or {"type": "object", "properties": {}}
    return wire


def message_settings(config: dict[str, Any]) -> dict[str, Any]:
    """``generate_content_config`` as request fields; ``max_tokens`` is always set."""
    wire: dict[str, Any] = {"max_tokens": DEFAULT_MAX_TOKENS}
    for raw_key, value in config.items():
        key = snake_case(raw_key)
        if value is None or key == "http_options":
            continue
        if key in _RENAMED:
            wire[_RENAMED[key]] = value
        elif key in _PASSED:
            wire[key] = value
        elif key not in _warned:
            _warned.add(key)
            logger.warning(
                "generate_content_config key %r has no Anthropic Messages equivalent; it is not"
                " sent to Anthropic models",
                key,
            )
    return wire


def parse_message(data: dict[str, Any]) -> LlmResponse:
    """A Messages API answer as an ``LlmResponse``; stop reasons use Gemini's names."""
    parts: list[Part] = []
    for block in data.get("content") or []:
        kind = block.get("type")
        if kind == "text" and block.get("text"):
            parts.append(Part(text=block["text"]))
        elif kind == "thinking" and block.get("thinking"):
            parts.append(Part(text=block["thinking"], thought=True))
        elif kind == "tool_use":
            args = block.get("input")
            parts.append(
                Part(
                    function_call=FunctionCall(
                        id=block.get("id") or None,
                        name=block["name"],
                        args=args if isinstance(args, dict) else {},
                    )
                )
            )
    raw = data.get("stop_reason")
    finish = _STOP_REASONS.get(raw, str(raw).upper()) if raw else None
    usage = _usage(data.get("usage"))
    response = final_response(
        parts, finish, usage, lambda: f"The model returned no content (stop reason {raw})."
    )
    if isinstance(data.get("model"), str):  # as google-adk's LiteLlm keeps it
        response.model_version = data["model"]
    return response


def _usage(usage: Any) -> dict[str, Any] | None:
    if not isinstance(usage, dict):
        return None
    prompt = sum(
        int(usage.get(k) or 0)
        for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    )
    output = int(usage.get("output_tokens") or 0)
    mapped: dict[str, Any] = {
        "prompt_token_count": prompt,
        "candidates_token_count": output,
        "total_token_count": prompt + output,
    }
    if usage.get("cache_read_input_tokens"):
        mapped["cached_content_token_count"] = usage["cache_read_input_tokens"]
    return mapped
