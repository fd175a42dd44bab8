"""An LlmRequest as headed sections a person can read (``yadk inspect`` without ``--json``)."""

from __future__ import annotations

import json
from typing import Any

from yadk.models import FunctionDeclaration, LlmRequest
from yadk.types import Content, Part

__all__ = ["request_text"]


def _json(value: Any, *, indent: int | None = None) -> str:
    return json.dumps(value, ensure_ascii=False, indent=indent, default=str)


def _heading(title: str) -> str:
    return f"== {title} =="


def _part_text(part: Part) -> str:
    if part.function_call is not None:
        call = part.function_call
        args = ", ".join(f"{k}={_json(v)}" for k, v in call.args.items())
        return f"function call: {call.name}({args})"
    if part.function_response is not None:
        response = part.function_response
        return f"function response: {response.name} -> {_json(response.response)}"
    if part.inline_data is not None:
        blob = part.inline_data
        size = len(blob.data or b"")
        return f"<inline data: {blob.mime_type or 'unknown type'}, {size} bytes>"
    if part.file_data is not None:
        return f"<file: {part.file_data.file_uri or ''}>"
    text = part.text or ""
    return f"(thought) {text}" if part.thought else text


def _content_text(content: Content) -> str:
    body = "\n".join(_part_text(p) for p in content.parts)
    return f"[{content.role or 'unknown'}]\n{body}"


def _type_name(schema: dict[str, Any]) -> str:
    if "enum" in schema:
        return "|".join(_json(v) for v in schema["enum"])
    if "anyOf" in schema:
        return "|".join(_type_name(s) for s in schema["anyOf"])
    kind = schema.get("type")
    if kind == "array" and isinstance(schema.get("items"), dict):
        return f"array[{_type_name(schema['items'])}]"
    return str(kind) if kind else "any"


def _signature(declaration: FunctionDeclaration) -> str:
    params = declaration.parameters or {}
    required = set(params.get("required", []))
    args = [
        f"{name}{'' if name in required else '?'}: {_type_name(schema)}"
        for name, schema in (params.get("properties") or {}).items()
    ]
    return f"{declaration.name}({', '.join(args)})"


def request_text(request: LlmRequest) -> str:
    """Every section of the request; parameter schemas are summarised (``--json`` has them in
    full)."""
    declarations = request.function_declarations
    sections = [
        f"agent: {request.agent_name}\nmodel: {request.model or '(none)'}",
        f"{_heading('system instruction')}\n{request.system_instruction or '(empty)'}",
        f"{_heading(f'contents ({len(request.contents)})')}\n"
        + ("\n\n".join(_content_text(c) for c in request.contents) or "(none)"),
        "\n".join(
            [_heading(f"tools ({len(declarations)})")]
            + (
                [
                    f"{_signature(d)}\n    {d.description.splitlines()[0] if d.description else ''}".rstrip()
                    for d in declarations
                ]
                or ["(none)"]
            )
        ),
        f"{_heading('config')}\n{_json(request.config, indent=2)}",
    ]
    return "\n\n".join(sections) + "\n"
