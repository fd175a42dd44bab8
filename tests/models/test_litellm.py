"""LiteLLM model strings on yadk's backends: each provider's base URL, key variable and
request shape, against a loopback server that stands in for the provider."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from yadk.errors import ModelError
from yadk.models import AnthropicLlm, Gemini, LlmRequest, OpenAIChat, litellm_model
from yadk.types import UserContent

if TYPE_CHECKING:
    from tests.models.conftest import FakeServer

ANSWER = {
    "id": "c1",
    "object": "chat.completion",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}}],
}


async def ask(llm: Any) -> str:
    [response] = [
        r async for r in llm.generate_content_async(LlmRequest(contents=[UserContent("hi")]))
    ]
    return str(response.content.parts[0].text)


@pytest.mark.parametrize(
    ("model", "base_env", "key_env", "name"),
    [
        ("groq/llama-3.1-8b-instant", "GROQ_API_BASE", "GROQ_API_KEY", "llama-3.1-8b-instant"),
        (
            "mistral/mistral-small-latest",
            "MISTRAL_API_BASE",
            "MISTRAL_API_KEY",
            "mistral-small-latest",
        ),
        ("deepseek/deepseek-chat", "DEEPSEEK_API_BASE", "DEEPSEEK_API_KEY", "deepseek-chat"),
        ("openrouter/openai/gpt-4o", "OPENROUTER_API_BASE", "OPENROUTER_API_KEY", "openai/gpt-4o"),
        ("hosted_vllm/qwen", "HOSTED_VLLM_API_BASE", "HOSTED_VLLM_API_KEY", "qwen"),
    ],
)
async def test_openai_compatible_providers_use_their_own_variables(
    server: FakeServer,
    monkeypatch: pytest.MonkeyPatch,
    model: str,
    base_env: str,
    key_env: str,
    name: str,
) -> None:
    monkeypatch.setenv(base_env, server.url + "/v1")
    monkeypatch.setenv(key_env, "k-123")
    server.reply(ANSWER)
    llm = litellm_model(model)
    assert isinstance(llm, OpenAIChat)
    assert await ask(llm) == "ok"
    [request] = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer k-123"
    assert request.body["model"] == name


def test_default_base_urls() -> None:
    assert litellm_model("groq/x").base_url == "https://api.groq.com/openai/v1"  # type: ignore[attr-defined]
    assert litellm_model("mistral/x").base_url == "https://api.mistral.ai/v1"  # type: ignore[attr-defined]
    assert litellm_model("openrouter/x").base_url == "https://openrouter.ai/api/v1"  # type: ignore[attr-defined]
    assert litellm_model("ollama_chat/x").base_url == "http://localhost:11434/v1"  # type: ignore[attr-defined]


async def test_ollama_takes_litellms_base_without_v1_and_needs_no_key(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLLAMA_API_BASE", server.url)
    server.reply(ANSWER)
    assert await ask(litellm_model("ollama/llama3")) == "ok"
    [request] = server.requests
    assert request.path == "/v1/chat/completions" and "authorization" not in request.headers


async def test_api_base_and_api_key_win(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GROQ_API_KEY", "from-env")
    server.reply(ANSWER)
    llm = litellm_model("groq/m", api_base=server.url + "/v1", api_key="given")
    assert await ask(llm) == "ok"
    assert server.requests[0].headers["authorization"] == "Bearer given"


async def test_azure_deployments(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZURE_API_BASE", server.url)
    monkeypatch.setenv("AZURE_API_KEY", "az")
    monkeypatch.setenv("AZURE_API_VERSION", "2024-06-01")
    server.reply(ANSWER)
    assert await ask(litellm_model("azure/my-gpt4o")) == "ok"
    [request] = server.requests
    assert request.path == "/openai/deployments/my-gpt4o/chat/completions?api-version=2024-06-01"
    assert request.headers["api-key"] == "az"


def test_native_backends() -> None:
    assert isinstance(litellm_model("openai/gpt-4o-mini"), OpenAIChat)
    assert isinstance(litellm_model("anthropic/claude-sonnet-4-5"), AnthropicLlm)
    assert isinstance(litellm_model("gemini/gemini-2.5-flash"), Gemini)
    assert isinstance(litellm_model("gemini-2.5-flash"), Gemini)


def test_a_missing_key_names_the_providers_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GROQ_API_KEY", raising=False)
    assert litellm_model("groq/m").missing_credentials() == (
        "Groq model 'm': no API key. Set GROQ_API_KEY (or pass api_key)."
    )


def test_a_provider_yadk_does_not_serve() -> None:
    with pytest.raises(ModelError) as caught:
        litellm_model("bedrock/claude")
    assert str(caught.value) == (
        "LiteLlm model 'bedrock/claude': provider 'bedrock' is not served (yadk does not serve"
        " Amazon Bedrock; use anthropic/NAME with ANTHROPIC_API_KEY). The providers yadk serves:"
        " anthropic/, azure/, deepseek/, gemini/, groq/, hosted_vllm/, mistral/, ollama/,"
        " ollama_chat/, openai/, openrouter/, vertex_ai/; other backends can be added with"
        " yadk.models.register_model."
    )
