"""What a model request carries for Gemini context caching (an App's ``ContextCacheConfig``):
the settings, and from the agent's latest model events the cache state it recorded and the
prompt size its call reported, as google-adk 2.13's context-cache request processor finds them.

A cache recorded by an earlier invocation counts one more use (``invocations_used``), so a
cache is renewed after ``cache_intervals`` invocations; the backend decides the rest.
"""

from __future__ import annotations

from yadk._contexts import InvocationContext
from yadk.events import CacheMetadata
from yadk.models import LlmRequest

__all__ = ["add_cache_info"]


def add_cache_info(request: LlmRequest, ctx: InvocationContext, agent_name: str) -> None:
    """Set ``request``'s cache fields when the app caches contexts (nothing otherwise)."""
    config = ctx.app.context_cache_config if ctx.app is not None else None
    if config is None:
        return
    request.cache_config = config
    metadata: CacheMetadata | None = None
    tokens: int | None = None
    for event in reversed(ctx.session.events):
        if event.author != agent_name:
            continue
        recorded = event.cache_metadata
        if metadata is None and recorded is not None:
            if (
                event.invocation_id
                and event.invocation_id != ctx.invocation_id
                and recorded.cache_name is not None
                and recorded.invocations_used is not None
            ):
                metadata = recorded.model_copy(
                    update={"invocations_used": recorded.invocations_used + 1}
                )
            else:
                metadata = recorded.model_copy()
        usage = event.usage_metadata
        if tokens is None and usage and usage.get("prompt_token_count") is not None:
            tokens = int(usage["prompt_token_count"])
        if metadata is not None and tokens is not None:
            break
    request.cache_metadata = metadata
    request.cacheable_contents_token_count = tokens
