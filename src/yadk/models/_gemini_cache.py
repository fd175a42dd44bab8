"""Gemini context caching: a request's stable prefix (system instruction, tools, the contents
before the latest user turn) kept as a ``cachedContents`` resource, so later calls send only
what follows it. The decisions are google-adk 2.13's (``GeminiContextCacheManager``):

* the first call of an agent records only a **fingerprint** of its cacheable prefix;
* a later call whose prefix still has that fingerprint **creates** the cache (if the previous
  call reported a prompt of at least ``min_tokens``, and the prefix reaches Gemini's minimum:
  2,048 tokens for 2.5 models, 4,096 for Gemini 3), then sends the rest with ``cachedContent``;
* calls **reuse** it while it is unexpired, used by at most ``cache_intervals`` invocations and
  its prefix unchanged; otherwise it is **deleted** and, when the prefix still matches, created
  again (refreshed).

A cache that cannot be created (an HTTP error) is logged and the call goes out whole: caching
never fails a call. The state rides on the model event (``Event.cache_metadata``), so it
survives restarts with the session.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import json
import logging
import re
import time
import urllib.parse
from typing import TYPE_CHECKING, Any

from yadk.errors import ModelError
from yadk.events import CacheMetadata
from yadk.models._base import LlmRequest
from yadk.models._client import pick_client
from yadk.models._http import Call, post_json
from yadk.models._switch import check_allow_model_requests
from yadk.types import Content

if TYPE_CHECKING:
    from yadk.models._gemini import Gemini

__all__ = ["GeminiContextCache"]

logger = logging.getLogger("yadk.models.cache")

_MINIMUM_TOKENS = (("gemini-2.5-", 2048), ("gemini-3", 4096))


def _minimum_tokens(model: str) -> int | None:
    name = model.rsplit("/", 1)[-1]
    return next((tokens for prefix, tokens in _MINIMUM_TOKENS if name.startswith(prefix)), None)


def cacheable_count(contents: list[Content]) -> int:
    """How many contents to cache: all before the last run of user contents."""
    start = len(contents)
    while start > 0 and contents[start - 1].role == "user":
        start -= 1
    return start


class GeminiContextCache:
    """One model call's caching: what to send, and the state to record on its event."""

    def __init__(self, backend: Gemini) -> None:
        self.backend = backend

    async def prepare(self, request: LlmRequest) -> tuple[LlmRequest, CacheMetadata]:
        """The request to send (with ``cachedContent`` when a cache serves it) and the cache
        metadata its answer carries."""
        check_allow_model_requests(f"the request to {self.backend._service}")
        old = request.cache_metadata
        if old is None:
            return request, self._fingerprint_only(request, cacheable_count(request.contents))
        if self._valid(request, old):
            assert old.cache_name is not None
            return self._applied(request, old.cache_name, old.contents_count), old.model_copy()
        if old.cache_name is not None:
            await self.delete(old.cache_name)
        if self.fingerprint(request, old.contents_count) != old.fingerprint:
            return request, self._fingerprint_only(request, cacheable_count(request.contents))
        count = max(old.contents_count, cacheable_count(request.contents))
        created = await self._create(request, count)
        if created is None or created.cache_name is None:
            return request, self._fingerprint_only(request, count)
        return self._applied(request, created.cache_name, count), created

    def _fingerprint_only(self, request: LlmRequest, count: int) -> CacheMetadata:
        return CacheMetadata(fingerprint=self.fingerprint(request, count), contents_count=count)

    def _valid(self, request: LlmRequest, metadata: CacheMetadata) -> bool:
        if metadata.cache_name is None or metadata.expire_time is None:
            return False
        if time.time() >= metadata.expire_time:
            logger.info("Cache expired: %s", metadata.cache_name)
            return False
        if (metadata.invocations_used or 0) > request.cache_config.cache_intervals:
            logger.info(
                "Cache %s used by %d invocations, more than cache_intervals (%d): renewing it",
                metadata.cache_name,
                metadata.invocations_used,
                request.cache_config.cache_intervals,
            )
            return False
        return self.fingerprint(request, metadata.contents_count) == metadata.fingerprint

    def _prefix(self, request: LlmRequest, count: int) -> dict[str, Any]:
        """What a cache of the first ``count`` contents holds, in the wire form."""
        body = self.backend.request_body(dataclasses.replace(request, contents=[]))
        prefix: dict[str, Any] = {
            key: body[key] for key in ("systemInstruction", "tools", "toolConfig") if key in body
        }
        cached = self.backend.wire_contents(request.contents[:count])
        if cached:
            prefix["contents"] = cached
        return prefix

    def fingerprint(self, request: LlmRequest, count: int) -> str:
        """A 16-hex-digit hash of the model, where caches live, and the prefix."""
        data = {
            "model": self.backend.model,
            "scope": self._scope(),
            **self._prefix(request, count),
        }
        text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def _scope(self) -> dict[str, Any]:
        vertex = self.backend.vertex
        if vertex is None:
            return {"backend": "gemini", "base_url": self.backend.base_url}
        return {"backend": "vertex", "project": vertex.project, "location": vertex.location}

    def _applied(self, request: LlmRequest, cache_name: str, count: int) -> LlmRequest:
        """``request`` as sent with the cache: no system instruction or tools (the cache holds
        them), the cached contents left out (at least one content stays)."""
        config = {
            k: v
            for k, v in request.config.items()
            if k not in ("tools", "tool_config", "toolConfig")
        }
        config["cached_content"] = cache_name
        removable = min(count, max(len(request.contents) - 1, 0))
        return dataclasses.replace(
            request,
            system_instruction="",
            tools_dict={},
            contents=request.contents[removable:],
            config=config,
        )

    async def _create(self, request: LlmRequest, count: int) -> CacheMetadata | None:
        settings = request.cache_config
        previous = request.cacheable_contents_token_count
        if previous is None:
            logger.info("No previous token count available: no cache for the first request")
            return None
        if previous < settings.min_tokens:
            logger.info(
                "Previous request too small for caching (%d < %d tokens)",
                previous,
                settings.min_tokens,
            )
            return None
        minimum = _minimum_tokens(self.backend.model)
        prefix_tokens = self._prefix_tokens(request, count)
        if minimum is not None and prefix_tokens < minimum:
            logger.info(
                "Cacheable prefix below Gemini's minimum cache size (%d < %d tokens)",
                prefix_tokens,
                minimum,
            )
            return None
        where = self._collection()
        if where is None:
            logger.info("Context caching needs the Gemini API or a Vertex AI project: skipped")
            return None
        url, model = where
        body: dict[str, Any] = {
            "model": model,
            "ttl": f"{settings.ttl_seconds}s",
            "displayName": f"adk-cache-{int(time.time())}-{count}contents",
            **self._prefix(request, count),
        }
        try:
            answer = await post_json(await self._call(url, body, "POST"))
        except ModelError as exc:
            logger.warning("Failed to create cache: %s", exc.message)
            return None
        created_at = time.time()
        name = answer.get("name")
        if not isinstance(name, str) or not name:
            logger.warning("Failed to create cache: the answer named no cachedContents resource")
            return None
        expire_time = _timestamp(answer.get("expireTime")) or created_at + settings.ttl_seconds
        logger.info("Cache created: %s", name)
        return CacheMetadata(
            cache_name=name,
            expire_time=expire_time,
            fingerprint=self.fingerprint(request, count),
            invocations_used=1,
            contents_count=count,
            created_at=created_at,
        )

    async def delete(self, cache_name: str) -> None:
        """Delete a cache that is no longer used (a failure is logged: it expires anyway)."""
        base = self._resource_base()
        if base is None:
            return
        try:
            await post_json(await self._call(f"{base}/{cache_name}", {}, "DELETE"))
            logger.info("Cache deleted: %s", cache_name)
        except ModelError as exc:
            logger.warning("Failed to delete cache %s: %s", cache_name, exc.message)

    def _resource_base(self) -> str | None:
        vertex = self.backend.vertex
        if vertex is None:
            return self.backend.base_url
        if vertex.project is None:
            return None
        return f"{vertex.host}/v1"

    def _collection(self) -> tuple[str, str] | None:
        """The cachedContents collection URL and the model's name there."""
        base = self._resource_base()
        vertex = self.backend.vertex
        if base is None:
            return None
        if vertex is None:
            return f"{base}/cachedContents", f"models/{self.backend.model}"
        parent = f"projects/{vertex.project}/locations/{vertex.location}"
        model = f"{parent}/publishers/google/models/{self.backend.model}"
        return f"{base}/{urllib.parse.quote(parent)}/cachedContents", model

    async def _call(self, url: str, body: dict[str, Any], method: str) -> Call:
        backend = self.backend
        service = f"{backend._service} (cachedContents)"
        return Call(
            client=await pick_client(backend._http_client, backend._transport),
            url=url,
            body=body,
            headers=backend._headers(backend._key(service)),
            settings=backend.settings,
            service=service,
            hint=backend._hint,
            auth=backend._auth(),
            method=method,
        )

    def _prefix_tokens(self, request: LlmRequest, count: int) -> int:
        """The reported prompt size scaled by the prefix's share of the request's characters."""
        full = request.cacheable_contents_token_count or 0
        whole = _chars(request, len(request.contents))
        if whole <= 0:
            return full
        return int(full * min(1.0, _chars(request, count) / whole))


def _chars(request: LlmRequest, count: int) -> int:
    total = len(request.system_instruction)
    total += sum(len(json.dumps(d.to_dict())) for d in request.function_declarations)
    for content in request.contents[:count]:
        total += sum(len(p.text) for p in content.parts if p.text)
    return total // 4


def _timestamp(value: Any) -> float | None:
    if not isinstance(value, str):
        return None
    # RFC 3339 with up to nine fractional digits (Google's); Python reads six.
    value = re.sub(r"(\.\d{6})\d+", r"\1", value.replace("Z", "+00:00"))
    try:
        return datetime.datetime.fromisoformat(value).timestamp()
    except ValueError:
        return None
