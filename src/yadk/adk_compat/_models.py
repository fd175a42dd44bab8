"""google-adk's ``LiteLlm(model="provider/name")``: yadk's backend for that provider."""

from __future__ import annotations

from typing import Any

from yadk.models import BaseLlm, litellm_model

__all__ = ["LiteLlm"]


def LiteLlm(model: str, **settings: Any) -> BaseLlm:
    """google-adk's ``LiteLlm(model=...)``: yadk's backend for the provider the model string
    names (``openai/``, ``anthropic/``, ``gemini/``, ``groq/``, ``ollama_chat/``, ...), with
    that provider's base URL and key variables; ``api_base``, ``api_key`` and ``api_version``
    override them (``vertex_project`` and ``vertex_location`` for ``vertex_ai/``). Other keyword arguments are LiteLLM's request options, which yadk takes from
    the agent's ``generate_content_config`` instead; they are ignored."""
    return litellm_model(
        model,
        api_base=settings.get("api_base"),
        api_key=settings.get("api_key"),
        api_version=settings.get("api_version"),
        vertex_project=settings.get("vertex_project"),
        vertex_location=settings.get("vertex_location"),
    )
