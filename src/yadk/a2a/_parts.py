"""yadk ``Part``\\ s <-> A2A parts, in the JSON shapes of both protocol versions.

A2A 1.0 parts are flat (``{"text": ...}``, ``{"raw": b64, "mediaType": ...}``,
``{"url": ..., "mediaType": ...}``, ``{"data": VALUE}``); 0.3 parts carry a ``kind``
(``text``, ``file`` with ``{"bytes"|"uri", "mimeType", "name"}``, ``data``). Reading accepts
either shape, so a server answers a client of either version with the parts it sent.

What A2A has no part for travels as google-adk sends it, so both frameworks read each other:
function calls and responses (and code parts) are data parts whose metadata says
``adk_type``; a thought is a text part with ``adk_thought``; a generic data part becomes a
``text/plain`` blob holding its JSON between ``<a2a_datapart_json>`` tags (what a model can
read), and such a blob goes out as the data part again.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import ValidationError

from yadk.types import (
    Blob,
    CodeExecutionResult,
    ExecutableCode,
    FileData,
    FunctionCall,
    FunctionResponse,
    Part,
)

__all__ = [
    "PROTOCOL_0_3",
    "PROTOCOL_1_0",
    "PartError",
    "Protocol",
    "part_from_a2a",
    "part_to_a2a",
    "parts_from_a2a",
    "parts_to_a2a",
]

Protocol = Literal["1.0", "0.3"]
PROTOCOL_1_0: Protocol = "1.0"
PROTOCOL_0_3: Protocol = "0.3"

TYPE_KEY = "adk_type"
THOUGHT_KEY = "adk_thought"
SIGNATURE_KEY = "adk_thought_signature"
DATA_MIME_TYPE = "text/plain"
DATA_START = b"<a2a_datapart_json>"
DATA_END = b"</a2a_datapart_json>"

_STRUCTURED: dict[str, type[Any]] = {
    "function_call": FunctionCall,
    "function_response": FunctionResponse,
    "executable_code": ExecutableCode,
    "code_execution_result": CodeExecutionResult,
}


class PartError(ValueError):
    """An A2A part this side cannot read (the message says which field, and what was expected)."""


# --- yadk -> A2A -------------------------------------------------------------------------------


def part_to_a2a(part: Part, *, version: Protocol = PROTOCOL_1_0) -> dict[str, Any] | None:
    """The A2A part for ``part`` in ``version``'s shape; ``None`` for a part A2A cannot carry
    (an empty one)."""
    meta: dict[str, Any] = {}
    if part.text is not None:
        if part.thought is not None:
            meta[THOUGHT_KEY] = part.thought
        return _with_meta(_text(part.text, version), meta)
    if part.file_data is not None:
        file = part.file_data
        return _file(
            version, uri=file.file_uri or "", mime_type=file.mime_type, name=file.display_name
        )
    if part.inline_data is not None:
        blob = part.inline_data
        if blob.data is None:
            return None
        if (
            blob.mime_type == DATA_MIME_TYPE
            and blob.data.startswith(DATA_START)
            and blob.data.endswith(DATA_END)
        ):
            try:
                value = json.loads(blob.data[len(DATA_START) : -len(DATA_END)])
            except ValueError:
                pass
            else:
                return _data(value, version)
        return _file(version, raw=blob.data, mime_type=blob.mime_type, name=blob.display_name)
    for attribute, _model in _STRUCTURED.items():
        value = getattr(part, attribute)
        if value is not None:
            meta[TYPE_KEY] = attribute
            if part.thought_signature is not None:
                meta[SIGNATURE_KEY] = base64.b64encode(part.thought_signature).decode("ascii")
            data = value.model_dump(mode="json", by_alias=True, exclude_none=True)
            return _with_meta(_data(data, version), meta)
    return None


def parts_to_a2a(
    parts: Iterable[Part], *, version: Protocol = PROTOCOL_1_0
) -> list[dict[str, Any]]:
    """Every part A2A can carry, in order."""
    out = []
    for part in parts:
        converted = part_to_a2a(part, version=version)
        if converted is not None:
            out.append(converted)
    return out


def _text(text: str, version: Protocol) -> dict[str, Any]:
    return {"text": text} if version == PROTOCOL_1_0 else {"kind": "text", "text": text}


def _data(value: Any, version: Protocol) -> dict[str, Any]:
    if version == PROTOCOL_1_0:
        return {"data": value}
    # 0.3 data parts hold an object: anything else is wrapped, as the 0.3 SDK does.
    return {"kind": "data", "data": value if isinstance(value, dict) else {"value": value}}


def _file(
    version: Protocol,
    *,
    uri: str | None = None,
    raw: bytes | None = None,
    mime_type: str | None,
    name: str | None,
) -> dict[str, Any]:
    encoded = base64.b64encode(raw).decode("ascii") if raw is not None else None
    if version == PROTOCOL_1_0:
        part: dict[str, Any] = {"url": uri} if encoded is None else {"raw": encoded}
        if mime_type:
            part["mediaType"] = mime_type
        if name:
            part["filename"] = name
        return part
    file: dict[str, Any] = {"uri": uri} if encoded is None else {"bytes": encoded}
    if mime_type:
        file["mimeType"] = mime_type
    if name:
        file["name"] = name
    return {"kind": "file", "file": file}


def _with_meta(part: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    if meta:
        part["metadata"] = meta
    return part


# --- A2A -> yadk -------------------------------------------------------------------------------


def part_from_a2a(data: Any, *, where: str = "part") -> Part:
    """The yadk part for an A2A part of either version. Raises ``PartError`` naming ``where``
    (e.g. ``message.parts[2]``) when the part has no content this side can read."""
    if not isinstance(data, Mapping):
        raise PartError(f"{where}: expected an object, got {_kind_of(data)}")
    meta = data.get("metadata")
    if meta is None:
        meta = {}
    if not isinstance(meta, Mapping):
        raise PartError(f"{where}.metadata: expected an object, got {_kind_of(meta)}")
    kind = data.get("kind")
    if kind == "file" or (kind is None and ("raw" in data or "url" in data)):
        return _file_from_a2a(data, where)
    if "text" in data and kind in (None, "text"):
        text = data["text"]
        if not isinstance(text, str):
            raise PartError(f"{where}.text: expected a string, got {_kind_of(text)}")
        thought = meta.get(THOUGHT_KEY)
        return Part(text=text, thought=thought if isinstance(thought, bool) else None)
    if "data" in data and kind in (None, "data"):
        return _data_from_a2a(data["data"], meta, where)
    raise PartError(
        f"{where}: expected one of text, raw, url, data (A2A 1.0) or a kind of text, file, data"
        " (A2A 0.3)"
    )


def parts_from_a2a(items: Any, *, where: str = "message.parts") -> list[Part]:
    """The yadk parts of an A2A message's ``parts`` list."""
    if not isinstance(items, list):
        raise PartError(f"{where}: expected a list of parts, got {_kind_of(items)}")
    return [part_from_a2a(item, where=f"{where}[{i}]") for i, item in enumerate(items)]


def _file_from_a2a(data: Mapping[str, Any], where: str) -> Part:
    if data.get("kind") == "file":
        file = data.get("file")
        if not isinstance(file, Mapping):
            raise PartError(f"{where}.file: expected an object with bytes or uri")
        raw, uri = file.get("bytes"), file.get("uri")
        mime_type, name = file.get("mimeType"), file.get("name")
        field = f"{where}.file"
    else:
        raw, uri = data.get("raw"), data.get("url")
        mime_type, name = data.get("mediaType"), data.get("filename")
        field = where
    mime_type = mime_type if isinstance(mime_type, str) and mime_type else None
    name = name if isinstance(name, str) and name else None
    if isinstance(uri, str):
        return Part(file_data=FileData(file_uri=uri, mime_type=mime_type, display_name=name))
    if not isinstance(raw, str):
        raise PartError(f"{field}: expected base64 bytes or a URI")
    try:
        content = base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError):
        raise PartError(f"{field}: the bytes are not valid base64") from None
    return Part(inline_data=Blob(data=content, mime_type=mime_type, display_name=name))


def _data_from_a2a(value: Any, meta: Mapping[str, Any], where: str) -> Part:
    kind = meta.get(TYPE_KEY)
    model = _STRUCTURED.get(kind) if isinstance(kind, str) else None
    if model is None:
        payload = json.dumps(value, ensure_ascii=False).encode()
        return Part(
            inline_data=Blob(mime_type=DATA_MIME_TYPE, data=DATA_START + payload + DATA_END)
        )
    if isinstance(value, Mapping):
        # A newer peer's extra fields (google-genai's ``will_continue``...) are left out.
        known = {
            key for name, field in model.model_fields.items() for key in (name, field.alias) if key
        }
        value = {key: item for key, item in value.items() if key in known}
    try:
        structured = model.model_validate(value)
    except ValidationError as exc:
        problem = exc.errors()[0]
        at = ".".join(str(p) for p in problem["loc"])
        raise PartError(
            f"{where}.data: not a valid {kind}: {problem['msg']}" + (f" ({at})" if at else "")
        ) from None
    signature = meta.get(SIGNATURE_KEY)
    decoded = None
    if isinstance(signature, str):
        try:
            decoded = base64.b64decode(signature)
        except (binascii.Error, ValueError):
            decoded = None
    return Part(**{kind: structured}, thought_signature=decoded)  # type: ignore[arg-type]


def _kind_of(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )
