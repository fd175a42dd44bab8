"""An ``LlmRequest``'s model settings: a mapping, readable and writable as attributes too.

Backends read the settings as a plain mapping. Callbacks written for google-adk use
``llm_request.config`` as google-genai's ``GenerateContentConfig``: ``config.temperature``
(None when unset), ``config.temperature = 0.1``, and the docs' pattern of reading
``config.system_instruction`` and assigning a changed one back, which here reads and replaces
the request's system instruction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from yadk.models._base import LlmRequest

__all__ = ["RequestConfig"]


class RequestConfig(dict[str, Any]):
    """The settings of one request (``LlmRequest.config``)."""

    __slots__ = ("_request",)

    def __init__(self, request: LlmRequest | None, settings: Any = ()) -> None:
        super().__init__(settings)
        object.__setattr__(self, "_request", request)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if name == "system_instruction":
            request = self._request
            return request.system_instruction if request is not None else self.get(name)
        return self.get(name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "_request":  # copy and pickle restore the slot this way
            object.__setattr__(self, name, value)
            return
        if name.startswith("_"):
            raise AttributeError(f"cannot set {name!r} on a request's settings")
        request = self._request
        if name == "system_instruction" and request is not None:
            request.system_instruction = instruction_text(value)
            return
        if hasattr(value, "model_dump"):
            value = value.model_dump(exclude_none=True)
        self[name] = value

    def __delattr__(self, name: str) -> None:
        self.pop(name, None)


def instruction_text(value: Any) -> str:
    """A system instruction given as google-adk code gives it (text, a ``Content``, a list of
    parts or texts) as the text yadk sends."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    parts = getattr(value, "parts", value)
    if isinstance(parts, list):
        texts = [p if isinstance(p, str) else getattr(p, "text", None) or "" for p in parts]
        return "\n\n".join(t for t in texts if t)
    return str(value)
