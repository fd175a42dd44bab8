"""OpenAI-compatible backend: the Chat Completions API of OpenAI, Ollama, vLLM, LM Studio, ...

``OPENAI_BASE_URL`` (default ``https://api.openai.com/v1``) picks the server and
``OPENAI_API_KEY`` the key, which local servers do not need. The request body is built in
``_openai_wire``; this module sends it and reads the answer.
"""

from __future__ import annotations

import json
import os
import urllib.parse
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from yadk.errors import ModelError
from yadk.models._base import BaseLlm, LlmRequest, LlmResponse
from yadk.models._client import pick_client
from yadk.models._http import Call, post_json, stream_json
from yadk.models._openai_stream import ChatStream
from yadk.models._openai_wire import chat_settings, chat_tool, to_messages
from yadk.models._rest import HttpSettings, api_error_message, settings_for
from yadk.models._switch import check_allow_model_requests
from yadk.types import Content, FunctionCall, Part

if TYPE_CHECKING:
    import httpx

__all__ = ["OpenAIChat"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"

_FINISH_REASONS = {
    "stop": "STOP",
    "tool_calls": "STOP",
    "function_call": "STOP",
    "length": "MAX_TOKENS",
    "content_filter": "SAFETY",
}


class OpenAIChat(BaseLlm):
    """A model behind an OpenAI-compatible ``/chat/completions`` endpoint.

    ``OpenAIChat("gpt-4o-mini")``, or ``--model openai:llama3`` with
    ``OPENAI_BASE_URL=http://localhost:11434/v1`` for Ollama. ``timeout``, ``retries``,
    ``retry_delay``, ``deadline``, ``max_response_bytes``, ``http_client`` and ``transport``
    behave as in ``Gemini``.
    """

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float | None = None,
        retries: int | None = None,
        retry_delay: float | None = None,
        deadline: float | None = None,
        max_response_bytes: int | None = None,
        http_client: httpx.AsyncClient | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if not model:
            raise ModelError(
                "An OpenAI-compatible model needs a name, e.g. openai:gpt-4o-mini or"
                " openai:llama3 (with OPENAI_BASE_URL=http://localhost:11434/v1)."
            )
        self.model = model
        self._api_key = api_key
        self._base_url = base_url
        self.settings = HttpSettings.resolve(
            timeout, retries, retry_delay, deadline=deadline, max_response_bytes=max_response_bytes
        )
        self._http_client = http_client
        self._transport = transport

    @property
    def base_url(self) -> str:
        base = self._base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        return base.rstrip("/")

    @property
    def url(self) -> str:
        return f"{self.base_url}/chat/completions"

    @property
    def _service(self) -> str:
        if self.base_url == DEFAULT_BASE_URL:
            return f"OpenAI model {self.model!r}"
        parts = urllib.parse.urlsplit(self.base_url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
        # The URL without any user:password@ it may carry.
        return (
            f"OpenAI-compatible model {self.model!r} at {parts.scheme}://{host}{port}{parts.path}"
        )

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        """One chat completion; with ``stream`` (``stream: true``) the text as partial responses
        while it arrives, then the whole answer with tool calls assembled from their pieces."""
        service = self._service
        check_allow_model_requests(f"the request to {service}")
        headers = {}
        key = self._api_key or os.environ.get("OPENAI_API_KEY", "")
        if key:
            headers["Authorization"] = f"Bearer {key}"
        elif self.base_url == DEFAULT_BASE_URL:
            raise ModelError(
                f"{service}: no API key. Set OPENAI_API_KEY, or set OPENAI_BASE_URL to a local"
                " server such as Ollama (http://localhost:11434/v1)."
            )
        body = self.request_body(llm_request)
        if stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        call = Call(
            client=await pick_client(self._http_client, self._transport),
            url=self.url,
            body=body,
            headers=headers,
            settings=settings_for(self.settings, llm_request.config),
            service=service,
            hint=self._hint,
        )
        if not stream:
            yield _parsed(await post_json(call), service)
            return
        chunks = ChatStream(service)
        async for data in stream_json(call):
            partial = chunks.add(data)
            if partial is not None:
                yield partial
        yield _parsed(chunks.answer(), service)

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
    if any(not p.thought for p in parts) or finish in (None, "STOP"):
        return LlmResponse(
            content=Content(role="model", parts=parts),
            finish_reason=finish,
            usage_metadata=usage,
            turn_complete=True,
        )
    return LlmResponse(
        error_code=finish,
        error_message=f"The model returned no content (finish reason {raw_finish}).",
        finish_reason=finish,
        usage_metadata=usage,
        turn_complete=True,
    )


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
