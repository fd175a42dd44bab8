"""Gemini streaming: ``streamGenerateContent`` chunks as partial responses and one whole answer."""

from __future__ import annotations

import copy
from typing import Any

from yadk.errors import ModelError
from yadk.models._base import LlmResponse
from yadk.types import Content, Part

__all__ = ["MergedStream", "parsed_chunk"]


def parsed_chunk(merged: MergedStream, data: dict[str, Any], service: str) -> LlmResponse | None:
    try:
        return merged.add(data)
    except (TypeError, AttributeError, KeyError, ValueError) as exc:
        raise ModelError(
            f"{service}: a streamed chunk does not have the generateContent shape"
            f" ({type(exc).__name__}: {exc})."
        ) from None


class MergedStream:
    """streamGenerateContent chunks merged into one generateContent answer.

    Consecutive text pieces of the same kind (answer or thought) join into one part; function
    calls and other parts arrive whole and keep their place. Usage, finish reason and prompt
    feedback come from the last chunk that carries them.
    """

    def __init__(self) -> None:
        self.parts: list[dict[str, Any]] = []
        self.last: dict[str, Any] = {}
        self.candidate: dict[str, Any] = {}

    def add(self, data: dict[str, Any]) -> LlmResponse | None:
        """Take one chunk; the partial response for its text, if it has any."""
        for key in ("usageMetadata", "promptFeedback", "modelVersion"):
            if data.get(key):
                self.last[key] = data[key]
        candidates = data.get("candidates") or []
        if not candidates:
            return None
        candidate = candidates[0]
        for key in ("finishReason", "finishMessage", "avgLogprobs", "citationMetadata"):
            if candidate.get(key):
                self.candidate[key] = candidate[key]
        texts: list[Part] = []
        for wire in (candidate.get("content") or {}).get("parts") or []:
            if "text" not in wire or "functionCall" in wire:
                self.parts.append(wire)
                continue
            thought = bool(wire.get("thought"))
            texts.append(Part(text=wire["text"], thought=True if thought else None))
            previous = self.parts[-1] if self.parts else None
            if (
                previous is not None
                and "text" in previous
                and previous.get("thought", False) == (wire.get("thought", False))
            ):
                previous["text"] += wire["text"]
                if wire.get("thoughtSignature"):
                    previous["thoughtSignature"] = wire["thoughtSignature"]
            else:
                self.parts.append(copy.copy(wire))
        if not texts:
            return None
        return LlmResponse(content=Content(role="model", parts=texts), partial=True)

    def answer(self) -> dict[str, Any]:
        """The whole answer, in the shape of one generateContent response."""
        answer = dict(self.last)
        if self.parts or self.candidate:
            answer["candidates"] = [
                {"content": {"role": "model", "parts": self.parts}, **self.candidate}
            ]
        return answer
