"""Message content: the google-genai shapes, without depending on google-genai.

Every model accepts the dicts google-genai produces and consumes, in snake_case or camelCase
(``{"role": "user", "parts": [{"text": "hi"}]}``, ``function_call``/``functionCall``,
``inline_data``/``inlineData``), and google-genai objects themselves (anything with
``model_dump``). Keys google-genai sets to ``None`` are dropped; any other unknown key is an error,
so a typo in a YAML example does not vanish silently.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel

from yadk._sealed import Sealable

__all__ = [
    "Blob",
    "CodeExecutionResult",
    "Content",
    "ExecutableCode",
    "FileData",
    "FunctionCall",
    "FunctionResponse",
    "ModelContent",
    "Part",
    "UserContent",
]


def _from_base64(value: Any) -> Any:
    # JSON and YAML carry bytes as base64 text, as google-genai does.
    if isinstance(value, str):
        try:
            return base64.b64decode(value, validate=True)
        except ValueError as exc:
            raise ValueError("expected base64 text or bytes") from exc
    return value


Base64Bytes = Annotated[
    bytes,
    BeforeValidator(_from_base64),
    PlainSerializer(
        lambda v: base64.b64encode(v).decode("ascii"), return_type=str, when_used="json"
    ),
]


class _Model(Sealable):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", validate_assignment=False
    )

    @model_validator(mode="before")
    @classmethod
    def _accept_foreign_shapes(cls, data: Any) -> Any:
        # Runs for every model of every event read back from a store: plain loops, no generators.
        if isinstance(data, dict):
            for value in data.values():
                if value is None:
                    return {k: v for k, v in data.items() if v is not None}
            return data
        if isinstance(data, BaseModel) and not isinstance(data, _Model):
            return data.model_dump(exclude_none=True)
        return data

    def to_dict(self) -> dict[str, Any]:
        """The google-genai JSON shape: snake_case keys, ``None`` fields left out."""
        return self.model_dump(mode="json", exclude_none=True)


class Blob(_Model):
    """Inline bytes with their MIME type (``inline_data``)."""

    mime_type: str | None = None
    data: Base64Bytes | None = None
    display_name: str | None = None


class FileData(_Model):
    """A reference to a file by URI (``file_data``)."""

    file_uri: str | None = None
    mime_type: str | None = None
    display_name: str | None = None


class FunctionCall(_Model):
    """A model's request to call a tool."""

    id: str | None = None
    name: str
    args: dict[str, Any] = Field(default_factory=dict)


class FunctionResponse(_Model):
    """A tool's result, sent back to the model."""

    id: str | None = None
    name: str
    response: dict[str, Any] = Field(default_factory=dict)


class ExecutableCode(_Model):
    """Code the model wrote and ran with Gemini's built-in code execution (``executable_code``)."""

    id: str | None = None
    code: str | None = None
    language: str | None = None


class CodeExecutionResult(_Model):
    """The outcome and output of that run (``code_execution_result``); ``outcome`` is one of
    ``OUTCOME_OK``, ``OUTCOME_FAILED``, ``OUTCOME_DEADLINE_EXCEEDED``."""

    id: str | None = None
    outcome: str | None = None
    output: str | None = None


class Part(_Model):
    """One piece of a message: text, bytes, a file, a function call or response, or code the
    model ran (``executable_code``) and its result (``code_execution_result``)."""

    text: str | None = None
    thought: bool | None = None
    thought_signature: Base64Bytes | None = None
    inline_data: Blob | None = None
    file_data: FileData | None = None
    function_call: FunctionCall | None = None
    function_response: FunctionResponse | None = None
    executable_code: ExecutableCode | None = None
    code_execution_result: CodeExecutionResult | None = None

    @classmethod
    def from_text(cls, *, text: str) -> Part:
        return cls(text=text)

    @classmethod
    def from_bytes(cls, *, data: bytes, mime_type: str) -> Part:
        return cls(inline_data=Blob(data=data, mime_type=mime_type))

    @classmethod
    def from_function_call(cls, *, name: str, args: dict[str, Any]) -> Part:
        return cls(function_call=FunctionCall(name=name, args=args))

    @classmethod
    def from_function_response(cls, *, name: str, response: dict[str, Any]) -> Part:
        return cls(function_response=FunctionResponse(name=name, response=response))


class Content(_Model):
    """A message: a role (``user`` or ``model``) and its parts."""

    role: str | None = None
    parts: list[Part] = Field(default_factory=list)

    @field_validator("parts", mode="before")
    @classmethod
    def _coerce_parts(cls, value: Any) -> Any:
        return _as_part_list(value)


def _as_part_list(value: Any) -> Any:
    if type(value) is list:
        for item in value:
            if isinstance(item, str):
                break
        else:
            return value  # the common case (stored events): nothing to convert
    if value is None:
        return []
    if isinstance(value, (str, Part, dict)) or (
        isinstance(value, BaseModel) and not isinstance(value, Content)
    ):
        value = [value]
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes, dict)):
        return [Part(text=v) if isinstance(v, str) else v for v in value]
    return value


def _role_content(role: Literal["user", "model"], parts: Any) -> Content:
    return Content(role=role, parts=_as_part_list(parts))


def UserContent(parts: Any = None) -> Content:
    """A ``Content`` with role ``user``; ``parts`` may be text, a Part, a dict, or a list of them."""
    return _role_content("user", parts)


def ModelContent(parts: Any = None) -> Content:
    """A ``Content`` with role ``model``; ``parts`` may be text, a Part, a dict, or a list of them."""
    return _role_content("model", parts)


def content_text(content: Content | None, *, sep: str = "") -> str:
    """The text parts of ``content`` joined by ``sep`` (thoughts left out)."""
    if content is None:
        return ""
    return sep.join(p.text for p in content.parts if p.text is not None and not p.thought)
