"""Model requests and answers as the OpenTelemetry GenAI conventions write them: the JSON of
``gen_ai.input.messages``, ``gen_ai.output.messages``, ``gen_ai.system_instructions`` and
``gen_ai.tool.definitions`` (google-adk 2.13's shapes; compact JSON, as it writes them)."""

from __future__ import annotations

import json
from typing import Any

__all__ = [
    "finish_reason",
    "input_messages",
    "output_messages",
    "system_instructions",
    "to_json",
    "tool_definitions",
]


def to_json(value: Any, *, compact: bool = True) -> str:
    """JSON for an attribute: compact for messages and tool definitions, with json's default
    spacing for tool arguments and results (google-adk writes them so)."""
    try:
        return json.dumps(
            value,
            separators=(",", ":") if compact else None,
            ensure_ascii=False,
            default=lambda _: "<not serializable>",
        )
    except (TypeError, ValueError, RecursionError):
        return "<not serializable>"


def _role(role: str | None) -> str:
    return {"user": "user", "model": "assistant"}.get(role or "", "")


def _part(part: Any, index: int) -> dict[str, Any] | None:
    if part.text is not None:
        return {"content": part.text, "type": "text"}
    if part.inline_data is not None:  # the bytes stay out of traces: their type and size only
        data = part.inline_data.data or b""
        return {"mime_type": part.inline_data.mime_type or "", "size": len(data), "type": "blob"}
    if part.file_data is not None:
        return {
            "mime_type": part.file_data.mime_type or "",
            "uri": part.file_data.file_uri or "",
            "type": "file_data",
        }
    if part.function_call is not None:
        call = part.function_call
        return {
            "id": call.id or f"{call.name}_{index}",
            "name": call.name,
            "arguments": call.args,
            "type": "tool_call",
        }
    if part.function_response is not None:
        response = part.function_response
        return {
            "id": response.id or f"{response.name}_{index}",
            "response": response.response,
            "type": "tool_call_response",
        }
    return None


def _message(content: Any) -> dict[str, Any]:
    parts = [_part(part, i) for i, part in enumerate(content.parts)]
    return {"role": _role(content.role), "parts": [p for p in parts if p is not None]}


def input_messages(contents: list[Any]) -> list[dict[str, Any]]:
    return [_message(content) for content in contents]


def output_messages(response: Any) -> list[dict[str, Any]]:
    if response is None or response.content is None:
        return []
    message = _message(response.content)
    message["finish_reason"] = finish_reason(response.finish_reason) or ""
    return [message]


def system_instructions(text: str) -> list[dict[str, Any]]:
    return [{"content": text, "type": "text"}] if text else []


def finish_reason(reason: str | None) -> str | None:
    """The semantic conventions' name of a Gemini-style finish reason; None when unreported."""
    if not reason or reason.upper() == "FINISH_REASON_UNSPECIFIED":
        return None
    upper = reason.upper()
    return {"STOP": "stop", "MAX_TOKENS": "length", "OTHER": "error"}.get(upper, reason.lower())


def tool_definitions(declarations: list[Any], *, with_parameters: bool) -> list[dict[str, Any]]:
    """Each function tool: its name and description always; its parameter schema only when
    content is captured (google-adk leaves them out otherwise)."""
    return [
        {
            "name": d.name,
            "description": d.description,
            "parameters": d.parameters if with_parameters else None,
            "type": "function",
        }
        for d in declarations
    ]
