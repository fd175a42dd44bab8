"""OpenAI-compatible backend: the Chat Completions API of OpenAI, Ollama, vLLM, LM Studio, ...

``OPENAI_BASE_URL`` (default ``https://api.openai.com/v1``) picks the server and
``OPENAI_API_KEY`` the key, which local servers do not need. The request body is built in
``_openai_wire``; this module sends it and reads the answer.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from yadk.errors import ModelError
from yadk.models._base import LlmRequest, LlmResponse
from yadk.models._http_backend import HttpBackend, final_response
from yadk.models._openai_stream import ChatStream
from yadk.models._openai_wire import chat_settings, chat_tool, to_messages
from yadk.models._rest import api_error_message
from yadk.types import FunctionCall, Part

__all__ = ["OpenAIChat"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"

_FINISH_REASONS = {
    "stop": "STOP",
    "tool_calls": "STOP",
    "function_call": "STOP",
    "length": "MAX_TOKENS",
    "content_filter": "SAFETY",
}


class OpenAIChat(HttpBackend):
    """A model behind an OpenAI-compatible ``/chat/completions`` endpoint.

    ``OpenAIChat("gpt-4o-mini")``, or ``--model openai:llama3`` with
    ``OPENAI_BASE_URL=http://localhost:11434/v1`` for Ollama. ``timeout``, ``retries``,
    ``retry_delay``, ``deadline``, ``max_response_bytes``, ``http_client`` and ``transport``
    behave as in ``Gemini``.
    """

    provider_name = "openai"
    # As google-adk's LiteLlm for its OpenAI and Azure routes: a response format beside tools.
    output_schema_with_tools = True

    DEFAULT_BASE_URL = DEFAULT_BASE_URL
    BASE_URL_ENV = "OPENAI_BASE_URL"
    KEY_ENVS = ("OPENAI_API_KEY",)
    LABEL = "OpenAI"
    OTHER_SERVER_LABEL = "OpenAI-compatible"

    def _model_name(self, model: str) -> str:
        if not model:
            raise ModelError(
                "An OpenAI-compatible model needs a name, e.g. openai:gpt-4o-mini or"
                " openai:llama3 (with OPENAI_BASE_URL=http://localhost:11434/v1)."
            )
        return model

    @property
    def url(self) -> str:
        return f"{self.base_url}/chat/completions"

    def _key_hint(self) -> str:
        return (
            "Set OPENAI_API_KEY, or set OPENAI_BASE_URL to a local server such as Ollama"
            " (http://localhost:11434/v1)."
        )

    def _headers(self, key: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {key}"} if key else {}

    def _stream_request(self, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return self.url, {**body, "stream": True, "stream_options": {"include_usage": True}}

    def _parsed(self, data: dict[str, Any], service: str) -> LlmResponse:
        return _parsed(data, service)

    def _assembler(self, service: str) -> ChatStream:
        return ChatStream(service)

    def request_body(self, llm_request: LlmRequest) -> dict[str, Any]:
        """The JSON body for ``llm_request``, exactly as it is sent."""
        messages: list[dict[str, Any]] = []
        if llm_request.system_instruction:
            messages.append({"role": "system", "content": llm_request.system_instruction})
        messages.extend(to_messages(llm_request.contents))
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        declarations = llm_request.function_declarations
        if declarations:
            body["tools"] = [chat_tool(d) for d in declarations]
        body.update(chat_settings(llm_request.config))
        return body

    def _hint(self, status: int, api_message: str) -> str:
        if status in (401, 403):
            return f"Set OPENAI_API_KEY to a valid key for {self.base_url}."
        if status == 404:
            return (
                f"Check the model name {self.model!r} (for Ollama: `ollama pull {self.model}`)"
                f" and that OPENAI_BASE_URL ({self.base_url}) ends with the API path, e.g. /v1."
            )
        if status == 429:
            return "Rate limit or quota exceeded: wait and retry, or check your quota."
        if status >= 500:
            return "The server failed; check its logs or try again later."
        return "`yadk inspect` shows the request the agent builds."


def _parsed(data: dict[str, Any], service: str) -> LlmResponse:
    try:
        return parse_response(data, service)
    except (TypeError, AttributeError, KeyError, ValidationError) as exc:
        raise ModelError(
            f"{service}: the answer does not have the chat completion shape"
            f" ({type(exc).__name__}: {exc})."
        ) from None


def parse_response(data: dict[str, Any], service: str = "OpenAI-compatible model") -> LlmResponse:
    """A chat completion as an ``LlmResponse``; finish reasons use Gemini's names."""
    choices = data.get("choices")
    if not choices:
        if data.get("error"):
            detail = api_error_message(json.dumps(data).encode("utf-8"))
            raise ModelError(f"{service}: the server reported an error: {detail}")
        raise ModelError(f"{service}: the answer has no choices: {json.dumps(data)[:200]}")
    choice = choices[0]
    message = choice.get("message") or {}
    parts: list[Part] = []
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    if isinstance(reasoning, str) and reasoning:
        parts.append(Part(text=reasoning, thought=True))
    text = _text(message.get("content"))
    if text:
        parts.append(Part(text=text))
    calls = list(message.get("tool_calls") or [])
    if message.get("function_call"):  # the pre-tools shape some servers still use
        calls.append({"function": message["function_call"]})
    for call in calls:
        function = call["function"]
        name = function["name"]
        parts.append(
            Part(
                function_call=FunctionCall(
                    id=call.get("id") or None,
                    name=name,
                    args=_arguments(function.get("arguments"), name, service),
                )
            )
        )
    raw_finish = choice.get("finish_reason")
    finish = _FINISH_REASONS.get(raw_finish, str(raw_finish).upper()) if raw_finish else None
    usage = _usage(data.get("usage"))
    response = final_response(
        parts,
        finish,
        usage,
        lambda: f"The model returned no content (finish reason {raw_finish}).",
    )
    if isinstance(data.get("model"), str):  # as google-adk's LiteLlm keeps it
        response.model_version = data["model"]
    return response


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts, as some servers answer
        return "".join(str(item.get("text", "")) for item in content if isinstance(item, dict))
    return ""


def _arguments(raw: Any, name: str, service: str) -> dict[str, Any]:
    if raw is None or raw == "":
        return {}
    value = raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except ValueError:
            value = None
    if not isinstance(value, dict):
        raise ModelError(
            f"{service}: the model called tool {name!r} with arguments that are not a JSON"
            f" object: {str(raw)[:200]!r}. Try again, or use a model that supports tool calling."
        )
    return value


def _usage(usage: Any) -> dict[str, Any] | None:
    if not isinstance(usage, dict):
        return None
    mapped: dict[str, Any] = {}
    for source, target in (
        ("prompt_tokens", "prompt_token_count"),
        ("completion_tokens", "candidates_token_count"),
        ("total_tokens", "total_token_count"),
    ):
        if usage.get(source) is not None:
            mapped[target] = usage[source]
    reasoning = (usage.get("completion_tokens_details") or {}).get("reasoning_tokens")
    if reasoning:
        mapped["thoughts_token_count"] = reasoning
    cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens")
    if cached:
        mapped["cached_content_token_count"] = cached
    return mapped or None
