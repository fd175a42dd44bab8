"""google-adk's ``LiteLlm(model="provider/name")``: yadk's backend for that provider."""

from __future__ import annotations

import os
from typing import Any

from yadk.models import BaseLlm, resolve_model

__all__ = ["LiteLlm", "model_name_for"]

# LiteLLM provider prefix -> yadk's model-name provider.
_PROVIDERS = {
    "openai": "openai",
    "anthropic": "anthropic",
    "gemini": "gemini",
}
_OLLAMA = ("ollama", "ollama_chat")


def model_name_for(litellm_model: str) -> str:
    """yadk's name for LiteLLM's ``provider/model`` string (``openai/gpt-4o`` ->
    ``openai:gpt-4o``); ``ValueError`` for a provider yadk has no backend for."""
    provider, sep, name = litellm_model.partition("/")
    if not sep:
        return litellm_model  # a bare name: yadk's registry matches it (gemini-*, claude-*)
    if provider in _PROVIDERS:
        return f"{_PROVIDERS[provider]}:{name}"
    if provider in _OLLAMA:
        return f"openai:{name}"
    raise ValueError(
        f"LiteLlm(model={litellm_model!r}): yadk has no backend for LiteLLM provider"
        f" {provider!r}; it speaks Gemini, OpenAI-compatible APIs (openai/NAME, ollama/NAME) and"
        " Anthropic. Register one with yadk.models.register_model."
    )


def LiteLlm(model: str, **settings: Any) -> BaseLlm:
    """google-adk's ``LiteLlm(model=...)``: yadk's backend for the model string. ``ollama/NAME``
    talks to Ollama's OpenAI-compatible API (``OLLAMA_API_BASE``, default
    ``http://localhost:11434``); ``api_base`` / ``api_key`` are passed to the backend."""
    name = model_name_for(model)
    provider = model.partition("/")[0]
    if provider in _OLLAMA or "api_base" in settings or "api_key" in settings:
        from yadk.models import OpenAIChat

        if provider in _PROVIDERS and provider != "openai":
            raise ValueError(
                f"LiteLlm(model={model!r}, api_base/api_key=...): set the key in the"
                " environment for that provider instead"
            )
        base = settings.get("api_base") or (
            os.environ.get("OLLAMA_API_BASE", "http://localhost:11434").rstrip("/") + "/v1"
            if provider in _OLLAMA
            else None
        )
        key = settings.get("api_key") or ("ollama" if provider in _OLLAMA else None)
        return OpenAIChat(name.partition(":")[2], base_url=base, api_key=key)
    return resolve_model(name)
