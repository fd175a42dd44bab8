"""Gemini backend: Google's Gemini REST API (``models/{model}:generateContent``), no SDK needed.

The API key comes from ``GOOGLE_API_KEY`` (or ``GEMINI_API_KEY``) and is sent in the
``x-goog-api-key`` header, never in the URL. ``YADK_GEMINI_BASE_URL`` replaces
``https://generativelanguage.googleapis.com/v1beta`` (a proxy, or a test double on loopback);
google-genai's ``GOOGLE_GEMINI_BASE_URL`` (a host, without the version) is honoured too. With
``GOOGLE_GENAI_USE_VERTEXAI`` the same requests go to Vertex AI (see ``_vertex``).

Context caching (``_gemini_cache``) is imported only for a request with a cache config.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import re
import threading
import urllib.parse
from collections import OrderedDict
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from yadk._case import camel_case, camel_keys, snake_case, snake_keys
from yadk.errors import ModelError
from yadk.models._base import FunctionDeclaration, LlmRequest, LlmResponse
from yadk.models._gemini_stream import MergedStream, parsed_chunk
from yadk.models._http_backend import HttpBackend
from yadk.models._rest import CONTINUE_TEXT, EMPTY_CONTENTS_TEXT, is_openapi_schema
from yadk.models._vertex import GoogleAuth, VertexTarget, vertex_target
from yadk.types import (
    Blob,
    CodeExecutionResult,
    Content,
    ExecutableCode,
    FileData,
    FunctionCall,
    FunctionResponse,
    Part,
)

if TYPE_CHECKING:
    import httpx
    from google.auth.credentials import Credentials

__all__ = ["Gemini"]

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"
_KEY_VARS = ("GOOGLE_API_KEY", "GEMINI_API_KEY")
_KEY_HINT = (
    "Set GOOGLE_API_KEY (or GEMINI_API_KEY) to a Gemini API key from"
    " https://aistudio.google.com/apikey."
)
_VERTEX_HINT = (
    "For Vertex AI set GOOGLE_CLOUD_PROJECT (and GOOGLE_CLOUD_LOCATION, default us-central1)"
    " with Application Default Credentials, or GOOGLE_API_KEY for express mode."
)

# generate_content_config keys that sit beside generationConfig in the REST body.
_TOP_LEVEL = {
    "safety_settings": "safetySettings",
    "tool_config": "toolConfig",
    "cached_content": "cachedContent",
    "labels": "labels",
}
# Sent by Gemini 3 models that must see their own thought signature again; google documents
# this value for history whose signature was lost (e.g. replayed from storage).
_SKIP_SIGNATURE = "skip_thought_signature_validator"
_OLD_GENERATION = re.compile(r"gemini-[12](\.|-|$)")


class Gemini(HttpBackend):
    """A Gemini model over REST: ``Gemini("gemini-2.5-flash")`` or ``--model gemini-2.5-flash``.

    ``timeout`` (seconds, default ``YADK_MODEL_TIMEOUT`` or 60) bounds the connection and each
    read; ``retries`` (default ``YADK_MODEL_RETRIES`` or 2) repeats a request that failed with
    408, 429 or 5xx or could not connect, waiting ``retry_delay`` seconds doubled each time, with
    jitter (or the server's ``Retry-After``); ``deadline`` (default ``YADK_MODEL_DEADLINE`` or
    600) bounds the whole call and ``max_response_bytes`` (default
    ``YADK_MODEL_MAX_RESPONSE_BYTES`` or 32 MiB) the answer. ``http_client`` (used as is, never
    closed) or ``transport`` replace the shared pooled ``httpx.AsyncClient``. On Vertex AI with
    a project, ``credentials`` (google-auth ``Credentials``) replace Application Default
    Credentials.
    """

    DEFAULT_BASE_URL = DEFAULT_BASE_URL
    BASE_URL_ENV = "YADK_GEMINI_BASE_URL"
    KEY_ENVS = _KEY_VARS
    LABEL = "Gemini"

    def __init__(
        self,
        model: str = "gemini-2.5-flash",
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
        credentials: Credentials | None = None,
        vertex: VertexTarget | None = None,
    ) -> None:
        self._credentials = credentials
        self._vertex = vertex
        self._google_auth: GoogleAuth | None = None
        super().__init__(
            model,
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            retries=retries,
            retry_delay=retry_delay,
            deadline=deadline,
            max_response_bytes=max_response_bytes,
            http_client=http_client,
            transport=transport,
        )

    def _model_name(self, model: str) -> str:
        name = model.removeprefix("models/")
        if not name:
            raise ModelError("A Gemini model needs a name, e.g. gemini-2.5-flash.")
        return name

    @property
    def base_url(self) -> str:
        google = os.environ.get("GOOGLE_GEMINI_BASE_URL")
        if not (self._base_url or os.environ.get(self.BASE_URL_ENV)) and google:
            return google.rstrip("/") + "/v1beta"
        return super().base_url

    @property
    def provider_name(self) -> str:  # type: ignore[override]
        return "gcp.vertex_ai" if self.vertex is not None else "gcp.gemini"

    @property
    def output_schema_with_tools(self) -> bool:  # type: ignore[override]
        """Gemini takes a response schema beside tools on Vertex AI only (as in google-adk)."""
        name = self.model.rsplit("/", 1)[-1]
        return self.vertex is not None and name.startswith("gemini-")

    @property
    def vertex(self) -> VertexTarget | None:
        """Where Vertex AI requests go, when ``GOOGLE_GENAI_USE_VERTEXAI`` asks for Vertex; an
        ``api_key=`` argument means express mode, as in google-genai (it wins over the project
        in the environment). A ``vertex=`` argument (LiteLLM's ``vertex_ai/`` models) is used
        as given, whatever the environment says."""
        if self._vertex is not None:
            return self._vertex
        target = vertex_target()
        if target is not None and self._api_key:
            return dataclasses.replace(target, project=None, api_key=self._api_key)
        return target

    @property
    def url(self) -> str:
        vertex = self.vertex
        if vertex is not None:
            return vertex.url(self.model, "generateContent")
        return f"{self.base_url}/models/{urllib.parse.quote(self.model)}:generateContent"

    @property
    def stream_url(self) -> str:
        vertex = self.vertex
        if vertex is not None:
            return vertex.url(self.model, "streamGenerateContent") + "?alt=sse"
        quoted = urllib.parse.quote(self.model)
        return f"{self.base_url}/models/{quoted}:streamGenerateContent?alt=sse"

    @property
    def _service(self) -> str:
        if self.vertex is not None:
            return f"Vertex AI model {self.model!r}"
        return super()._service

    def _key(self, service: str) -> str:
        vertex = self.vertex
        if vertex is None:
            return super()._key(service)
        if vertex.project is not None:
            return ""  # Application Default Credentials, see _auth
        key = vertex.api_key
        if not key and vertex.base_url is None:
            raise ModelError(f"{service}: no project and no API key. {_VERTEX_HINT}")
        return key or ""

    def _auth(self) -> httpx.Auth | None:
        vertex = self.vertex
        if vertex is None or vertex.project is None:
            return None
        if self._google_auth is None:
            self._google_auth = GoogleAuth(self._service, self._credentials)
        return self._google_auth

    def _key_hint(self) -> str:
        return _KEY_HINT

    def _headers(self, key: str) -> dict[str, str]:
        return {"x-goog-api-key": key} if key else {}

    def _stream_request(self, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return self.stream_url, body

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        """One call; with an App's ``ContextCacheConfig``, through a ``cachedContents`` prefix
        when one serves it (see ``_gemini_cache``), the cache state on the final answer."""
        if llm_request.cache_config is None:
            async for response in super().generate_content_async(llm_request, stream):
                yield response
            return
        from yadk.models._gemini_cache import GeminiContextCache

        sent, metadata = await GeminiContextCache(self).prepare(llm_request)
        async for response in super().generate_content_async(sent, stream):
            if not response.partial:
                response.cache_metadata = metadata.model_copy()
            yield response

    def _parsed(self, data: dict[str, Any], service: str) -> LlmResponse:
        return _parsed(data, service)

    def _assembler(self, service: str) -> _ChunkStream:
        return _ChunkStream(service)

    def request_body(self, llm_request: LlmRequest) -> dict[str, Any]:
        """The JSON body for ``llm_request``, exactly as it is sent."""
        body: dict[str, Any] = {"contents": self._contents(llm_request.contents)}
        if llm_request.system_instruction:
            body["systemInstruction"] = {"parts": [{"text": llm_request.system_instruction}]}
        declarations = llm_request.function_declarations
        if declarations:
            body["tools"] = [{"functionDeclarations": [_declaration(d) for d in declarations]}]
        native = llm_request.config.get("tools")  # built-ins such as {"google_search": {}}
        if native:
            body.setdefault("tools", []).extend(camel_keys(tool) for tool in native)
        generation, top_level = _config(llm_request.config)
        if generation:
            body["generationConfig"] = generation
        body.update(top_level)
        return body

    def wire_contents(self, contents: list[Content]) -> list[dict[str, Any]]:
        """``contents`` in the wire form, as they are (the request's ends not completed)."""
        wire: list[dict[str, Any]] = []
        for content in contents:
            role = content.role or "user"
            parts = [p for p in (_part(part) for part in content.parts) if p is not None]
            if not parts:
                continue
            if role == "model":
                self._attach_signatures(parts)
            wire.append({"role": role, "parts": parts})
        return wire

    def _contents(self, contents: list[Content]) -> list[dict[str, Any]]:
        wire = self.wire_contents(contents)
        if not wire:
            wire.append({"role": "user", "parts": [{"text": EMPTY_CONTENTS_TEXT}]})
        elif wire[-1]["role"] != "user":
            wire.append({"role": "user", "parts": [{"text": CONTINUE_TEXT}]})
        return wire

    def _attach_signatures(self, parts: list[dict[str, Any]]) -> None:
        calls = [p for p in parts if "functionCall" in p]
        for part in calls:
            signature = _signatures.get(part["functionCall"])
            if signature:
                part["thoughtSignature"] = signature
        if calls and "thoughtSignature" not in calls[0] and not _OLD_GENERATION.match(self.model):
            calls[0]["thoughtSignature"] = _SKIP_SIGNATURE

    def _hint(self, status: int, api_message: str) -> str:
        vertex = self.vertex
        if vertex is not None and status in (401, 403):
            return (
                "Check that the credentials may call Vertex AI (role roles/aiplatform.user) and"
                " that the Vertex AI API is enabled for the project."
            )
        if "api key" in api_message.lower() or status in (401, 403):
            return (
                f"{_KEY_HINT} Check that the key is valid and the Generative Language API is"
                " enabled for its project."
            )
        if status == 404:
            return (
                f"Check the model name {self.model!r} (see"
                " https://ai.google.dev/gemini-api/docs/models) and YADK_GEMINI_BASE_URL."
            )
        if status == 429:
            return "Rate limit or quota exceeded: wait and retry, or check your quota."
        if status >= 500:
            return "The Gemini service failed; try again later."
        return "`yadk inspect` shows the request the agent builds."


class _ChunkStream:
    """streamGenerateContent chunks, merged (``MergedStream``), each checked for its shape."""

    def __init__(self, service: str) -> None:
        self.service = service
        self.merged = MergedStream()

    def add(self, data: dict[str, Any]) -> LlmResponse | None:
        return parsed_chunk(self.merged, data, self.service)

    def answer(self) -> dict[str, Any]:
        return self.merged.answer()


class _SignatureCache:
    """Thought signatures of recent function calls, so a later request can send them back.

    yadk's ``Part`` has no field for them, so they are remembered here by call (name and
    arguments), process-wide and bounded.
    """

    def __init__(self, size: int = 4096) -> None:
        self._items: OrderedDict[str, str] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    @staticmethod
    def _key(call: dict[str, Any]) -> str:
        return json.dumps([call.get("name"), call.get("args") or {}], sort_keys=True, default=str)

    def put(self, call: dict[str, Any], signature: str) -> None:
        with self._lock:
            self._items[self._key(call)] = signature
            self._items.move_to_end(self._key(call))
            while len(self._items) > self._size:
                self._items.popitem(last=False)

    def get(self, call: dict[str, Any]) -> str | None:
        with self._lock:
            return self._items.get(self._key(call))


_signatures = _SignatureCache()


def _part(part: Part) -> dict[str, Any] | None:
    if part.thought:  # the model's own reasoning summary is not sent back as text
        return None
    if part.function_call is not None:
        call: dict[str, Any] = {"name": part.function_call.name, "args": part.function_call.args}
        if part.function_call.id:
            call["id"] = part.function_call.id
        return {"functionCall": call}
    if part.function_response is not None:
        response: dict[str, Any] = {
            "name": part.function_response.name,
            "response": part.function_response.response,
        }
        if part.function_response.id:
            response["id"] = part.function_response.id
        return {"functionResponse": response}
    if part.inline_data is not None:
        blob = part.inline_data
        data = base64.b64encode(blob.data or b"").decode("ascii")
        return {
            "inlineData": {"mimeType": blob.mime_type or "application/octet-stream", "data": data}
        }
    if part.file_data is not None:
        file: dict[str, Any] = {"fileUri": part.file_data.file_uri}
        if part.file_data.mime_type:
            file["mimeType"] = part.file_data.mime_type
        return {"fileData": file}
    if part.executable_code is not None:
        return {"executableCode": camel_keys(part.executable_code.to_dict())}
    if part.code_execution_result is not None:
        return {"codeExecutionResult": camel_keys(part.code_execution_result.to_dict())}
    if part.text is not None:
        return {"text": part.text}
    return None


def _declaration(declaration: FunctionDeclaration) -> dict[str, Any]:
    wire: dict[str, Any] = {"name": declaration.name}
    if declaration.description:
        wire["description"] = declaration.description
    if declaration.parameters is not None:
        # Full JSON Schema ($defs, anyOf, ...) as pydantic emits it, not the OpenAPI subset.
        wire["parametersJsonSchema"] = declaration.parameters
    if declaration.response is not None:
        wire["responseJsonSchema"] = declaration.response
    return wire


def _config(config: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    generation: dict[str, Any] = {}
    top_level: dict[str, Any] = {}
    for raw_key, value in config.items():
        if value is None:
            continue
        key = snake_case(raw_key)
        if key in ("http_options", "tools"):
            continue  # client-side settings (timeout), see settings_for
        if key in ("response_schema", "response_json_schema"):
            # Schemas keep their keys (property names are data); an OpenAPI-style schema with
            # upper-case types goes to responseSchema, a JSON Schema to responseJsonSchema.
            field = "responseSchema" if is_openapi_schema(value) else "responseJsonSchema"
            generation[field] = value
        elif key == "labels":
            top_level["labels"] = value
        elif key in _TOP_LEVEL:
            top_level[_TOP_LEVEL[key]] = camel_keys(value)
        else:
            generation[camel_case(key)] = camel_keys(value)
    return generation, top_level


def _parsed(data: dict[str, Any], service: str) -> LlmResponse:
    try:
        return parse_response(data)
    except (TypeError, AttributeError, KeyError, ValueError, ValidationError) as exc:
        raise ModelError(
            f"{service}: the answer does not have the generateContent shape"
            f" ({type(exc).__name__}: {exc})."
        ) from None


def parse_response(data: dict[str, Any]) -> LlmResponse:
    """A generateContent answer as an ``LlmResponse`` (errors and blocks as ``error_code``)."""
    usage = snake_keys(data["usageMetadata"]) if data.get("usageMetadata") else None
    candidates = data.get("candidates") or []
    if not candidates:
        feedback = data.get("promptFeedback") or {}
        reason = feedback.get("blockReason")
        if reason:
            return LlmResponse(
                error_code=reason,
                error_message=feedback.get("blockReasonMessage")
                or f"Gemini blocked the prompt ({reason}).",
                usage_metadata=usage,
            )
        return LlmResponse(content=Content(role="model", parts=[]), usage_metadata=usage)
    candidate = candidates[0]
    wire_parts = (candidate.get("content") or {}).get("parts") or []
    parts = [p for p in (_parse_part(w) for w in wire_parts) if p is not None]
    finish = candidate.get("finishReason")
    reported = _reported(data, candidate)
    if parts or finish in (None, "STOP"):
        grounding = candidate.get("groundingMetadata")
        return LlmResponse(
            content=Content(role="model", parts=parts),
            finish_reason=finish,
            usage_metadata=usage,
            grounding_metadata=snake_keys(grounding) if grounding else None,
            **reported,
        )
    return LlmResponse(
        error_code=finish,
        error_message=candidate.get("finishMessage")
        or f"Gemini returned no content (finish reason {finish}).",
        finish_reason=finish,
        usage_metadata=usage,
        **reported,
    )


def _reported(data: dict[str, Any], candidate: dict[str, Any]) -> dict[str, Any]:
    """What google-adk keeps of a candidate beside its content: the model version, the log
    probabilities and the citations."""
    reported: dict[str, Any] = {}
    if isinstance(data.get("modelVersion"), str):
        reported["model_version"] = data["modelVersion"]
    if isinstance(candidate.get("avgLogprobs"), int | float):
        reported["avg_logprobs"] = float(candidate["avgLogprobs"])
    for wire, field in (
        ("logprobsResult", "logprobs_result"),
        ("citationMetadata", "citation_metadata"),
    ):
        if isinstance(candidate.get(wire), dict):
            reported[field] = snake_keys(candidate[wire])
    return reported


def _parse_part(wire: dict[str, Any]) -> Part | None:
    if "functionCall" in wire:
        call = wire["functionCall"]
        if wire.get("thoughtSignature"):
            _signatures.put(call, wire["thoughtSignature"])
        return Part(
            function_call=FunctionCall(
                id=call.get("id"), name=call["name"], args=call.get("args") or {}
            )
        )
    if "functionResponse" in wire:
        response = wire["functionResponse"]
        return Part(
            function_response=FunctionResponse(
                id=response.get("id"),
                name=response["name"],
                response=response.get("response") or {},
            )
        )
    if "inlineData" in wire:
        blob = wire["inlineData"]
        return Part(inline_data=Blob(mime_type=blob.get("mimeType"), data=blob.get("data", "")))
    if "fileData" in wire:
        file = wire["fileData"]
        return Part(
            file_data=FileData(file_uri=file.get("fileUri"), mime_type=file.get("mimeType"))
        )
    if "executableCode" in wire:
        return Part(executable_code=ExecutableCode.model_validate(wire["executableCode"]))
    if "codeExecutionResult" in wire:
        result = CodeExecutionResult.model_validate(wire["codeExecutionResult"])
        return Part(code_execution_result=result)
    if "text" in wire:
        if wire.get("thought"):
            return Part(text=wire["text"], thought=True)
        return Part(text=wire["text"])
    return None  # parts yadk's content model does not hold (e.g. videoMetadata alone)
