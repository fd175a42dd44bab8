"""What the three HTTP backends (Gemini, OpenAI-compatible, Anthropic) share: the constructor,
the base URL from the argument, the environment or the default, the service name used in
messages (never with credentials), the API key check, and one call, whole or streamed.

A backend says where it goes and how it reads answers; this class does the rest.
"""

from __future__ import annotations

import os
import urllib.parse
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from yadk.errors import ModelError
from yadk.models._base import BaseLlm, LlmRequest, LlmResponse
from yadk.models._client import pick_client
from yadk.models._http import Call, WholeAnswer, post_json, stream_json
from yadk.models._rest import HttpSettings, settings_for
from yadk.models._switch import check_allow_model_requests
from yadk.types import Content, Part

if TYPE_CHECKING:
    import httpx

__all__ = ["HttpBackend", "StreamAssembler", "final_response"]


class StreamAssembler(Protocol):
    """The streamed events of one answer: ``add`` returns the partial response for an event
    (or None), ``answer`` the whole answer in the shape of a non-streamed one."""

    def add(self, data: dict[str, Any]) -> LlmResponse | None: ...

    def answer(self) -> dict[str, Any]: ...


class HttpBackend(BaseLlm):
    """A model behind a JSON-over-HTTP API. Subclasses set the class variables below and
    implement ``url``, ``request_body``, ``_headers``, ``_key_hint``, ``_parsed``,
    ``_assembler`` and ``_hint``."""

    DEFAULT_BASE_URL: ClassVar[str]
    # The environment variable that replaces DEFAULT_BASE_URL.
    BASE_URL_ENV: ClassVar[str]
    # The environment variables that hold the API key, tried in order.
    KEY_ENVS: ClassVar[tuple[str, ...]]
    # How messages name the model: "<LABEL> model 'name'"; for another server than the default
    # one (a proxy, a local server), "<OTHER_SERVER_LABEL> model 'name' at <url>" (None: the
    # URL is never shown).
    LABEL: ClassVar[str]
    OTHER_SERVER_LABEL: ClassVar[str | None] = None

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
        self.model = self._model_name(model)
        self._api_key = api_key
        self._base_url = base_url
        self.settings = HttpSettings.resolve(
            timeout, retries, retry_delay, deadline=deadline, max_response_bytes=max_response_bytes
        )
        self._http_client = http_client
        self._transport = transport

    def _model_name(self, model: str) -> str:
        """``model`` as the API names it; a ``ModelError`` saying what to write if it is wrong."""
        return model

    @property
    def base_url(self) -> str:
        base = self._base_url or os.environ.get(self.BASE_URL_ENV) or self.DEFAULT_BASE_URL
        return base.rstrip("/")

    @property
    def url(self) -> str:
        raise NotImplementedError

    @property
    def _service(self) -> str:
        named = f"{self.LABEL} model {self.model!r}"
        if self.OTHER_SERVER_LABEL is None or self.base_url == self.DEFAULT_BASE_URL:
            return named
        parts = urllib.parse.urlsplit(self.base_url)
        port = f":{parts.port}" if parts.port else ""
        # The URL without any user:password@ it may carry.
        where = f"{parts.scheme}://{parts.hostname or ''}{port}{parts.path}"
        return f"{self.OTHER_SERVER_LABEL} model {self.model!r} at {where}"

    def _key(self, service: str) -> str:
        """The API key ("" for another server than the default one, which may need none)."""
        key = self._api_key or next((os.environ[v] for v in self.KEY_ENVS if os.environ.get(v)), "")
        if not key and self.base_url == self.DEFAULT_BASE_URL:
            raise ModelError(f"{service}: no API key. {self._key_hint()}")
        return key

    def missing_credentials(self) -> str | None:
        try:
            self._key(self._service)
        except ModelError as exc:
            return exc.message
        return None

    def _key_hint(self) -> str:
        raise NotImplementedError

    def _headers(self, key: str) -> dict[str, str]:
        raise NotImplementedError

    def _auth(self) -> httpx.Auth | None:
        """How requests are authorised beyond the key headers (e.g. OAuth tokens), or None."""
        return None

    def request_body(self, llm_request: LlmRequest) -> dict[str, Any]:
        raise NotImplementedError

    def _stream_request(self, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The URL and body of the streamed form of a request."""
        return self.url, {**body, "stream": True}

    def _parsed(self, data: dict[str, Any], service: str) -> LlmResponse:
        raise NotImplementedError

    def _assembler(self, service: str) -> StreamAssembler:
        raise NotImplementedError

    def _hint(self, status: int, api_message: str) -> str:
        raise NotImplementedError

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        """One call: the whole answer, or with ``stream`` its text as partial responses while it
        arrives, then the whole answer. A server that ignores the request to stream and answers
        one JSON body is read as the non-streamed answer it is."""
        service = self._service
        check_allow_model_requests(f"the request to {service}")
        headers = self._headers(self._key(service))
        url, body = self.url, self.request_body(llm_request)
        if stream:
            url, body = self._stream_request(body)
        call = Call(
            client=await pick_client(self._http_client, self._transport),
            url=url,
            body=body,
            headers=headers,
            settings=settings_for(self.settings, llm_request.config),
            service=service,
            hint=self._hint,
            auth=self._auth(),
        )
        if not stream:
            yield self._parsed(await post_json(call), service)
            return
        assembler = self._assembler(service)
        async for data in stream_json(call):
            if isinstance(data, WholeAnswer):
                yield self._parsed(data.data, service)
                return
            partial = assembler.add(data)
            if partial is not None:
                yield partial
        yield self._parsed(assembler.answer(), service)


def final_response(
    parts: list[Part],
    finish: str | None,
    usage: dict[str, Any] | None,
    no_content: Callable[[], str],
) -> LlmResponse:
    """The complete answer: its parts, or, when it has nothing but thoughts and stopped for a
    reason other than STOP, an error response with the message ``no_content()``."""
    if any(not p.thought for p in parts) or finish in (None, "STOP"):
        return LlmResponse(
            content=Content(role="model", parts=parts),
            finish_reason=finish,
            usage_metadata=usage,
        )
    return LlmResponse(
        error_code=finish,
        error_message=no_content(),
        finish_reason=finish,
        usage_metadata=usage,
    )
