"""OpenAI Chat Completions request bodies: messages, tools and settings from an LlmRequest."""

from __future__ import annotations

import base64
import json
import logging
import re
from typing import Any

from yadk._case import snake_case
from yadk.errors import ModelError
from yadk.models._base import FunctionDeclaration
from yadk.models._rest import (
    CONTINUE_TEXT,
    EMPTY_CONTENTS_TEXT,
    code_parts_as_text,
    is_openapi_schema,
)
from yadk.types import Content, FunctionResponse, Part

__all__ = ["chat_settings", "chat_tool", "to_messages"]

logger = logging.getLogger("yadk.models")

_RENAMED = {"max_output_tokens": "max_tokens", "stop_sequences": "stop"}
# Gemini settings with no Chat Completions counterpart: dropped (with a warning) so one agent
# config runs on either backend.
_GEMINI_ONLY = frozenset(
    {
        "audio_timestamp",
        "cached_content",
        "candidate_count",
        "enable_enhanced_civic_answers",
        "image_config",
        "labels",
        "logprobs",
        "media_resolution",
        "model_selection_config",
        "response_logprobs",
        "response_modalities",
        "routing_config",
        "safety_settings",
        "speech_config",
        "thinking_config",
        "tool_config",
        "top_k",
    }
)
_SCHEMA_KEYS = ("response_mime_type", "response_schema", "response_json_schema", "http_options")
_warned: set[str] = set()


def to_messages(contents: list[Content]) -> list[dict[str, Any]]:
    """Chat messages for ``contents``: ``model`` -> assistant, function responses -> tool."""
    builder = _Messages()
    for content in contents:
        content = code_parts_as_text(content)
        if content.role == "model":
            builder.assistant(content)
        else:
            builder.user(content)
    return builder.finish()


class _Messages:
    """Builds the message list, pairing each function response with its call.

    Contents reach a model without yadk's own call ids, so calls without an id get ``call_N``
    (stable within the request) and responses take the id of the oldest unanswered call of the
    same name. A call left unanswered gets an error result, because the API rejects a
    ``tool_calls`` message that is not followed by a result for every call.
    """

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.pending: list[tuple[str, str]] = []
        self.count = 0

    def assistant(self, content: Content) -> None:
        self._close_pending()
        texts = [p.text for p in content.parts if p.text and not p.thought]
        calls = []
        for part in content.parts:
            if part.function_call is None:
                continue
            call_id = part.function_call.id or f"call_{self.count}"
            self.count += 1
            self.pending.append((call_id, part.function_call.name))
            arguments = json.dumps(part.function_call.args, ensure_ascii=False)
            calls.append(
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": part.function_call.name, "arguments": arguments},
                }
            )
        if not texts and not calls:
            return
        # A message of tool calls only has no `content` key, as LiteLLM (google-adk) sends it.
        message: dict[str, Any] = {"role": "assistant"}
        if texts:
            message["content"] = "".join(texts)
        if calls:
            message["tool_calls"] = calls
        self.messages.append(message)

    def user(self, content: Content) -> None:
        others: list[Part] = []
        for part in content.parts:
            if part.function_response is None:
                others.append(part)
                continue
            call_id = self._pair(part.function_response)
            result = json.dumps(part.function_response.response, ensure_ascii=False)
            if call_id is None:  # no call to answer: tell the model as plain text
                others.append(Part(text=f"Tool `{part.function_response.name}` returned: {result}"))
            else:
                self.messages.append({"role": "tool", "tool_call_id": call_id, "content": result})
        user_content = _user_content(others)
        if user_content is not None:
            self._close_pending()
            self.messages.append({"role": "user", "content": user_content})

    def finish(self) -> list[dict[str, Any]]:
        self._close_pending()
        if not self.messages:
            self.messages.append({"role": "user", "content": EMPTY_CONTENTS_TEXT})
        elif self.messages[-1]["role"] == "assistant":
            self.messages.append({"role": "user", "content": CONTINUE_TEXT})
        return self.messages

    def _pair(self, response: FunctionResponse) -> str | None:
        index = next((i for i, (c, _) in enumerate(self.pending) if response.id == c), None)
        if index is None:
            index = next((i for i, (_, n) in enumerate(self.pending) if response.name == n), None)
        if index is None:
            return None
        return self.pending.pop(index)[0]

    def _close_pending(self) -> None:
        for call_id, name in self.pending:
            result = {"error": f"No result was recorded for this call of `{name}`."}
            self.messages.append(
                {"role": "tool", "tool_call_id": call_id, "content": json.dumps(result)}
            )
        self.pending.clear()


def _user_content(parts: list[Part]) -> str | list[dict[str, Any]] | None:
    pieces: list[dict[str, Any]] = []
    for part in parts:
        if part.thought:
            continue
        if part.text is not None:
            pieces.append({"type": "text", "text": part.text})
        elif part.inline_data is not None:
            pieces.append(_inline(part.inline_data.mime_type or "", part.inline_data.data or b""))
        elif part.file_data is not None and part.file_data.file_uri:
            mime = part.file_data.mime_type or ""
            if mime and not mime.startswith("image/"):
                raise ModelError(
                    f"OpenAI-compatible models take images by URL, not {mime} files"
                    f" ({part.file_data.file_uri})."
                )
            pieces.append({"type": "image_url", "image_url": {"url": part.file_data.file_uri}})
    if not pieces:
        return None
    if all(p["type"] == "text" for p in pieces):
        return "\n".join(p["text"] for p in pieces)
    return pieces


def _inline(mime: str, data: bytes) -> dict[str, Any]:
    if mime.startswith("image/"):
        url = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
        return {"type": "image_url", "image_url": {"url": url}}
    if mime.startswith("text/") or mime in ("application/json", "application/yaml"):
        return {"type": "text", "text": data.decode("utf-8", errors="replace")}
    raise ModelError(
        f"OpenAI-compatible models accept images and text inline, not {mime or 'untyped'} data;"
        " convert it to text first or use a Gemini model."
    )


def chat_tool(declaration: FunctionDeclaration) -> dict[str, Any]:
    """A tool declaration in the ``tools`` shape."""
    function: dict[str, Any] = {"name": declaration.name}
    if declaration.description:
        function["description"] = declaration.description
    function["parameters"] = declaration.parameters or {"type": "object", "properties": {}}
    return {"type": "function", "function": function}


def chat_settings(config: dict[str, Any]) -> dict[str, Any]:
    """``generate_content_config`` as request fields (``max_tokens``, ``response_format``, ...)."""
    normalized = {snake_case(k): v for k, v in config.items() if v is not None}
    wire: dict[str, Any] = {}
    for key, value in normalized.items():
        if key in _SCHEMA_KEYS:
            continue
        if key in _GEMINI_ONLY:
            if key not in _warned:
                _warned.add(key)
                logger.warning(
                    "generate_content_config key %r has no Chat Completions equivalent; it is"
                    " not sent to OpenAI-compatible models",
                    key,
                )
            continue
        wire[_RENAMED.get(key, key)] = value
    schema = normalized.get("response_json_schema") or normalized.get("response_schema")
    if isinstance(schema, dict):
        if is_openapi_schema(schema):
            schema = _lower_types(schema)
        name = re.sub(r"[^A-Za-z0-9_-]", "_", str(schema.get("title") or "response"))[:64]
        wire["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": schema},
        }
    elif normalized.get("response_mime_type") == "application/json":
        wire["response_format"] = {"type": "json_object"}
    return wire


def _lower_types(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {
            k: v.lower() if k == "type" and isinstance(v, str) else _lower_types(v)
            for k, v in schema.items()
        }
    if isinstance(schema, list):
        return [_lower_types(v) for v in schema]
    return schema
