"""Anthropic backend: Claude models over the Messages API (``/v1/messages``), no SDK needed.

``ANTHROPIC_API_KEY`` is sent in the ``x-api-key`` header; ``ANTHROPIC_BASE_URL`` replaces
``https://api.anthropic.com`` (a proxy, or a test double on loopback). The request body is built
in ``_anthropic_wire``; this module sends it and reads the answer, whole or streamed.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from yadk.errors import ModelError
from yadk.models._anthropic_wire import message_settings, parse_message, to_messages, tool
from yadk.models._base import LlmRequest, LlmResponse
from yadk.models._http_backend import HttpBackend
from yadk.models._rest import api_error_message
from yadk.types import Content, Part

__all__ = ["AnthropicLlm"]

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"
_KEY_HINT = "Set ANTHROPIC_API_KEY to a key from https://console.anthropic.com/settings/keys."


class AnthropicLlm(HttpBackend):
    """A Claude model: ``AnthropicLlm("claude-sonnet-4-5")``, ``model: claude-sonnet-4-5`` or
    ``--model anthropic:claude-sonnet-4-5``.

    ``timeout``, ``retries``, ``retry_delay``, ``deadline``, ``max_response_bytes``,
    ``http_client`` and ``transport`` behave as in ``Gemini``.
    """

    provider_name = "anthropic"

    DEFAULT_BASE_URL = DEFAULT_BASE_URL
    BASE_URL_ENV = "ANTHROPIC_BASE_URL"
    KEY_ENVS = ("ANTHROPIC_API_KEY",)
    LABEL = "Anthropic"
    OTHER_SERVER_LABEL = "Anthropic"

    def _model_name(self, model: str) -> str:
        if not model:
            raise ModelError("An Anthropic model needs a name, e.g. anthropic:claude-sonnet-4-5.")
        return model

    @property
    def url(self) -> str:
        return f"{self.base_url}/v1/messages"

    def _key_hint(self) -> str:
        return _KEY_HINT

    def _headers(self, key: str) -> dict[str, str]:
        headers = {"anthropic-version": API_VERSION}
        if key:
            headers["x-api-key"] = key
        return headers

    def _parsed(self, data: dict[str, Any], service: str) -> LlmResponse:
        return _parsed(data, service)

    def _assembler(self, service: str) -> _MessageStream:
        return _MessageStream(service)

    def request_body(self, llm_request: LlmRequest) -> dict[str, Any]:
        """The JSON body for ``llm_request``, exactly as it is sent."""
        body: dict[str, Any] = {"model": self.model}
        body.update(message_settings(llm_request.config))
        if llm_request.system_instruction:
            body["system"] = llm_request.system_instruction
        body["messages"] = to_messages(llm_request.contents)
        declarations = llm_request.function_declarations
        if declarations:
            body["tools"] = [tool(d) for d in declarations]
        return body

    def _hint(self, status: int, api_message: str) -> str:
        if status in (401, 403):
            return f"{_KEY_HINT} Check that the key is valid and has access to {self.model!r}."
        if status == 404:
            return (
                f"Check the model name {self.model!r} (see"
                " https://docs.anthropic.com/en/docs/about-claude/models) and ANTHROPIC_BASE_URL."
            )
        if status == 429:
            return "Rate limit or quota exceeded: wait and retry, or check your limits."
        if status >= 500:
            return "The Anthropic service failed or is overloaded; try again later."
        return "`yadk inspect` shows the request the agent builds."


def _parsed(data: dict[str, Any], service: str) -> LlmResponse:
    if data.get("type") == "error" or (data.get("error") and not data.get("content")):
        detail = api_error_message(json.dumps(data).encode("utf-8"))
        raise ModelError(f"{service}: the server reported an error: {detail}")
    try:
        return parse_message(data)
    except (TypeError, AttributeError, KeyError, ValueError, ValidationError) as exc:
        raise ModelError(
            f"{service}: the answer does not have the Messages API shape"
            f" ({type(exc).__name__}: {exc})."
        ) from None


class _MessageStream:
    """Messages API stream events assembled into one message.

    ``content_block_start`` opens a block by index, ``content_block_delta`` adds text, thinking
    or a fragment of a tool call's JSON input, ``message_delta`` brings the stop reason and the
    output token count; ``message_start`` carries the input token count.
    """

    def __init__(self, service: str) -> None:
        self.service = service
        self.message: dict[str, Any] = {}
        self.blocks: dict[int, dict[str, Any]] = {}
        self.inputs: dict[int, list[str]] = {}

    def add(self, event: dict[str, Any]) -> LlmResponse | None:
        kind = event.get("type")
        if kind == "error":
            detail = api_error_message(json.dumps(event).encode("utf-8"))
            raise ModelError(f"{self.service}: the server reported an error: {detail}")
        if kind == "message_start":
            self.message = dict(event.get("message") or {})
        elif kind == "content_block_start":
            self.blocks[int(event["index"])] = dict(event.get("content_block") or {})
        elif kind == "content_block_delta":
            return self._delta(int(event["index"]), event.get("delta") or {})
        elif kind == "message_delta":
            self.message.update(event.get("delta") or {})
            usage = dict(self.message.get("usage") or {})
            usage.update(event.get("usage") or {})
            self.message["usage"] = usage
        return None

    def _delta(self, index: int, delta: dict[str, Any]) -> LlmResponse | None:
        block = self.blocks.setdefault(index, {"type": "text", "text": ""})
        kind = delta.get("type")
        if kind == "text_delta":
            block["text"] = block.get("text", "") + delta["text"]
            part = Part(text=delta["text"])
        elif kind == "thinking_delta":
            block["thinking"] = block.get("thinking", "") + delta["thinking"]
            part = Part(text=delta["thinking"], thought=True)
        elif kind == "input_json_delta":
            self.inputs.setdefault(index, []).append(delta.get("partial_json", ""))
            return None
        else:
            return None
        return LlmResponse(content=Content(role="model", parts=[part]), partial=True)

    def answer(self) -> dict[str, Any]:
        """The whole message, in the shape of a non-streamed answer."""
        if not self.message and not self.blocks:
            raise ModelError(f"{self.service}: the stream ended without an answer.")
        content = []
        for index, block in sorted(self.blocks.items()):
            if block.get("type") == "tool_use" and index in self.inputs:
                raw = "".join(self.inputs[index])
                try:
                    block["input"] = json.loads(raw) if raw.strip() else {}
                except ValueError:
                    raise ModelError(
                        f"{self.service}: the model called tool {block.get('name')!r} with"
                        f" arguments that are not JSON: {raw[:200]!r}."
                    ) from None
            content.append(block)
        return {**self.message, "content": content}
