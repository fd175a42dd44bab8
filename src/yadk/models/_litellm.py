"""LiteLLM's ``provider/model`` strings on yadk's backends (google-adk's ``LiteLlm``).

google-adk reaches most providers through LiteLLM; yadk speaks their HTTP APIs itself. Each
provider LiteLLM names maps to a backend with that provider's usual base URL and key variable,
so ``LiteLlm(model="groq/llama-3.1-8b-instant")`` (Python, through the compatibility shim) and
``model_code: {name: google.adk.models.lite_llm.LiteLlm, args: [...]}`` (YAML) run unchanged.
``api_base`` and ``api_key`` override both. A provider with no mapping is an error naming
those that have one.

Each provider's backend is imported only for a name that routes to it; the registry, which imports
this module, only for a bare name.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from yadk._model_names import LITELLM_PROVIDERS, litellm_problem
from yadk.errors import ModelError
from yadk.models._base import BaseLlm
from yadk.models._openai import OpenAIChat

__all__ = ["LITELLM_PROVIDERS", "CompatibleChat", "litellm_model"]


@dataclass(frozen=True)
class CompatibleProvider:
    """An OpenAI-compatible service as LiteLLM configures it."""

    label: str
    base_url: str | None  # None: the user must say where (a self-hosted server)
    base_url_env: str
    key_env: str | None
    needs_key: bool
    path_suffix: str = ""  # appended to a base URL from the environment (Ollama's has no /v1)


_COMPATIBLE: dict[str, CompatibleProvider] = {
    "groq": CompatibleProvider(
        "Groq", "https://api.groq.com/openai/v1", "GROQ_API_BASE", "GROQ_API_KEY", True
    ),
    "mistral": CompatibleProvider(
        "Mistral", "https://api.mistral.ai/v1", "MISTRAL_API_BASE", "MISTRAL_API_KEY", True
    ),
    "deepseek": CompatibleProvider(
        "DeepSeek", "https://api.deepseek.com/v1", "DEEPSEEK_API_BASE", "DEEPSEEK_API_KEY", True
    ),
    "openrouter": CompatibleProvider(
        "OpenRouter",
        "https://openrouter.ai/api/v1",
        "OPENROUTER_API_BASE",
        "OPENROUTER_API_KEY",
        True,
    ),
    "ollama": CompatibleProvider(
        "Ollama", "http://localhost:11434/v1", "OLLAMA_API_BASE", None, False, "/v1"
    ),
    "hosted_vllm": CompatibleProvider(
        "vLLM", None, "HOSTED_VLLM_API_BASE", "HOSTED_VLLM_API_KEY", False
    ),
}
_COMPATIBLE["ollama_chat"] = _COMPATIBLE["ollama"]

# Providers with a backend of their own.
_NATIVE = ("openai", "anthropic", "gemini", "azure", "vertex_ai")
assert set(LITELLM_PROVIDERS) == {*_NATIVE, *_COMPATIBLE}  # the config layer checks that list
_NOT_SERVED = {
    "bedrock": "yadk does not serve Amazon Bedrock; use anthropic/NAME with ANTHROPIC_API_KEY",
}


class CompatibleChat(OpenAIChat):
    """An OpenAI-compatible service other than OpenAI (Groq, Mistral, Ollama, vLLM, ...), with
    its own base URL and key variable.

    Its answer to an output schema beside tools comes through ``set_model_response``: not every
    such service honours a response format while tools are offered."""

    output_schema_with_tools = False

    def __init__(self, model: str, *, provider: CompatibleProvider, **settings: Any) -> None:
        self.provider = provider
        super().__init__(model, **settings)

    @property
    def provider_name(self) -> str:  # type: ignore[override]
        label = self.provider.label
        return {"Mistral": "mistral_ai", "vLLM": "vllm"}.get(label, label.lower())

    @property
    def base_url(self) -> str:
        p = self.provider
        from_env = (os.environ.get(p.base_url_env) or "").rstrip("/")
        if from_env and not from_env.endswith(p.path_suffix):
            from_env += p.path_suffix
        base = self._base_url or from_env or p.base_url
        if base is None:
            raise ModelError(
                f"{p.label} model {self.model!r}: no server to send it to. Set"
                f" {p.base_url_env} (e.g. http://localhost:8000/v1) or pass api_base."
            )
        return base.rstrip("/")

    @property
    def _service(self) -> str:
        return f"{self.provider.label} model {self.model!r}"

    def _key(self, service: str) -> str:
        p = self.provider
        key = self._api_key or (os.environ.get(p.key_env, "") if p.key_env else "")
        if not key and p.needs_key:
            raise ModelError(f"{service}: no API key. {self._key_hint()}")
        return key

    def _key_hint(self) -> str:
        p = self.provider
        return f"Set {p.key_env} (or pass api_key)." if p.key_env else "Pass api_key."


class AzureChat(OpenAIChat):
    """Azure OpenAI: a deployment's chat completions, keyed by ``api-key``, as LiteLLM's
    ``azure/DEPLOYMENT`` with ``AZURE_API_BASE``, ``AZURE_API_KEY`` and ``AZURE_API_VERSION``."""

    BASE_URL_ENV = "AZURE_API_BASE"
    KEY_ENVS = ("AZURE_API_KEY",)
    LABEL = "Azure OpenAI"
    provider_name = "azure.ai.openai"
    DEFAULT_API_VERSION = "2024-10-21"

    def __init__(self, model: str, *, api_version: str | None = None, **settings: Any) -> None:
        self.api_version = (
            api_version or os.environ.get("AZURE_API_VERSION") or self.DEFAULT_API_VERSION
        )
        super().__init__(model, **settings)

    @property
    def base_url(self) -> str:
        base = self._base_url or os.environ.get(self.BASE_URL_ENV)
        if not base:
            raise ModelError(
                f"Azure OpenAI deployment {self.model!r}: no resource URL. Set AZURE_API_BASE"
                " (https://RESOURCE.openai.azure.com) or pass api_base."
            )
        return base.rstrip("/")

    @property
    def url(self) -> str:
        return (
            f"{self.base_url}/openai/deployments/{self.model}/chat/completions"
            f"?api-version={self.api_version}"
        )

    @property
    def _service(self) -> str:
        return f"Azure OpenAI deployment {self.model!r}"

    def _key(self, service: str) -> str:
        key = self._api_key or os.environ.get("AZURE_API_KEY", "")
        if not key:
            raise ModelError(f"{service}: no API key. {self._key_hint()}")
        return key

    def _key_hint(self) -> str:
        return "Set AZURE_API_KEY (or pass api_key)."

    def _headers(self, key: str) -> dict[str, str]:
        return {"api-key": key}

    def _stream_request(self, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return self.url, {**body, "stream": True, "stream_options": {"include_usage": True}}


def _vertex_gemini(
    model: str,
    name: str,
    api_base: str | None,
    api_key: str | None,
    project: str | None,
    location: str | None,
) -> BaseLlm:
    """LiteLLM's ``vertex_ai/gemini-...``: yadk's Gemini backend on Vertex AI, whatever
    ``GOOGLE_GENAI_USE_VERTEXAI`` says. The project and location come from the arguments, then
    LiteLLM's ``VERTEXAI_PROJECT``/``VERTEXAI_LOCATION``, then google-genai's
    ``GOOGLE_CLOUD_PROJECT``/``GOOGLE_CLOUD_LOCATION``; an ``api_key`` means express mode."""
    from yadk.models._gemini import Gemini
    from yadk.models._vertex import DEFAULT_LOCATION, VertexTarget

    problem = litellm_problem(model)
    if problem is not None:
        raise ModelError(f"LiteLlm model {problem}".replace("`", "'"))
    env = os.environ
    target = VertexTarget(
        project=None
        if api_key
        else (project or env.get("VERTEXAI_PROJECT") or env.get("GOOGLE_CLOUD_PROJECT") or None),
        location=location
        or env.get("VERTEXAI_LOCATION")
        or env.get("GOOGLE_CLOUD_LOCATION")
        or DEFAULT_LOCATION,
        api_key=api_key,
        base_url=api_base or env.get("GOOGLE_VERTEX_BASE_URL") or None,
    )
    return Gemini(name, vertex=target)


def litellm_model(
    model: str,
    *,
    api_base: str | None = None,
    api_key: str | None = None,
    api_version: str | None = None,
    vertex_project: str | None = None,
    vertex_location: str | None = None,
) -> BaseLlm:
    """The backend for LiteLLM's ``provider/name`` (a bare name goes to yadk's registry, as
    ``gemini-2.5-flash``); ``ModelError`` for a provider yadk does not serve."""
    provider, sep, name = model.partition("/")
    if not sep:
        from yadk.models._registry import resolve_model

        return resolve_model(model)
    if not name:
        raise ModelError(f"LiteLlm model {model!r} names no model after {provider + '/'!r}.")
    if provider in _COMPATIBLE:
        return CompatibleChat(
            name, provider=_COMPATIBLE[provider], api_key=api_key, base_url=api_base
        )
    if provider == "openai":
        return OpenAIChat(name, api_key=api_key, base_url=api_base)
    if provider == "azure":
        return AzureChat(name, api_version=api_version, api_key=api_key, base_url=api_base)
    if provider == "anthropic":
        from yadk.models._anthropic import AnthropicLlm

        return AnthropicLlm(name, api_key=api_key, base_url=api_base)
    if provider == "gemini":
        from yadk.models._gemini import Gemini

        return Gemini(name, api_key=api_key, base_url=api_base)
    if provider == "vertex_ai":
        return _vertex_gemini(model, name, api_base, api_key, vertex_project, vertex_location)
    why = _NOT_SERVED.get(provider, "yadk has no backend for it")
    raise ModelError(
        f"LiteLlm model {model!r}: provider {provider!r} is not served ({why}). The providers"
        f" yadk serves: {', '.join(p + '/' for p in LITELLM_PROVIDERS)}; other backends can be"
        " added with yadk.models.register_model."
    )
