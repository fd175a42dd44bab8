"""Chat Completions streaming: ``chat.completion.chunk`` deltas as partial responses, assembled
into one chat completion (tool calls arrive in pieces, keyed by ``index``)."""

from __future__ import annotations

import json
from typing import Any

from yadk.errors import ModelError
from yadk.models._base import LlmResponse
from yadk.models._rest import api_error_message
from yadk.types import Content, Part

__all__ = ["ChatStream"]


class ChatStream:
    """The chunks of one streamed chat completion."""

    def __init__(self, service: str) -> None:
        self.service = service
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.finish_reason: str | None = None
        self.usage: dict[str, Any] | None = None
        self.model: str | None = None

    def add(self, data: dict[str, Any]) -> LlmResponse | None:
        """Take one chunk; the partial response for its text, if it has any."""
        if data.get("error"):
            detail = api_error_message(json.dumps(data).encode("utf-8"))
            raise ModelError(f"{self.service}: the server reported an error: {detail}")
        if isinstance(data.get("usage"), dict):
            self.usage = data["usage"]
        if isinstance(data.get("model"), str):
            self.model = data["model"]
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            return None
        choice = choices[0]
        if choice.get("finish_reason"):
            self.finish_reason = choice["finish_reason"]
        delta = choice.get("delta") or {}
        if not isinstance(delta, dict):
            return None
        parts: list[Part] = []
        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
        if isinstance(reasoning, str) and reasoning:
            self.reasoning.append(reasoning)
            parts.append(Part(text=reasoning, thought=True))
        text = _text(delta.get("content"))
        if text:
            self.text.append(text)
            parts.append(Part(text=text))
        for piece in delta.get("tool_calls") or []:
            if isinstance(piece, dict):
                self._add_call(piece)
        if not parts:
            return None
        return LlmResponse(content=Content(role="model", parts=parts), partial=True)

    def _add_call(self, piece: dict[str, Any]) -> None:
        index = piece.get("index")
        if not isinstance(index, int):
            index = len(self.calls)
        call = self.calls.setdefault(index, {"id": None, "name": "", "arguments": ""})
        if piece.get("id"):
            call["id"] = piece["id"]
        function = piece.get("function") or {}
        name = function.get("name")
        # The name comes once (OpenAI, vLLM) or again in every piece (some servers): never twice.
        if isinstance(name, str) and name and name != call["name"]:
            call["name"] += name
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            call["arguments"] += arguments
        elif isinstance(arguments, dict):  # whole arguments as an object (Ollama)
            call["arguments"] = json.dumps(arguments)

    def answer(self) -> dict[str, Any]:
        """The whole answer, in the shape of one (non-streamed) chat completion."""
        message: dict[str, Any] = {"role": "assistant", "content": "".join(self.text) or None}
        if self.reasoning:
            message["reasoning_content"] = "".join(self.reasoning)
        if self.calls:
            message["tool_calls"] = [
                {
                    "id": call["id"],
                    "type": "function",
                    "function": {"name": call["name"], "arguments": call["arguments"]},
                }
                for _, call in sorted(self.calls.items())
            ]
        if not self.text and not self.calls and self.finish_reason is None and not self.reasoning:
            raise ModelError(
                f"{self.service}: the stream ended without an answer. Check that the server"
                " supports streaming (`stream: true`), or run with streaming off."
            )
        answer: dict[str, Any] = {
            "choices": [{"message": message, "finish_reason": self.finish_reason}]
        }
        if self.usage is not None:
            answer["usage"] = self.usage
        if self.model is not None:
            answer["model"] = self.model
        return answer


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(item.get("text", "")) for item in content if isinstance(item, dict))
    return ""
