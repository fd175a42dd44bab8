"""Models: the backend interface, the offline ScriptedModel, REST backends, and name resolution.

``Gemini``, ``OpenAIChat`` and ``AnthropicLlm`` are imported on first use, so
``import yadk.models`` does not load httpx or the REST code; so are ``ScriptedModel`` and
``ScriptedTurn``, whose models a command that calls no model (``yadk inspect``) never builds.
``ALLOW_MODEL_REQUESTS = False`` (or ``YADK_ALLOW_MODEL_REQUESTS=0``) makes every real backend
refuse to send a request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from yadk.models._base import BaseLlm, FunctionDeclaration, LlmRequest, LlmResponse
from yadk.models._registry import register_model, registered_providers, resolve_model, serves
from yadk.models._switch import allowed_by_environment, override_allow_model_requests

if TYPE_CHECKING:
    from yadk.models._anthropic import AnthropicLlm
    from yadk.models._gemini import Gemini
    from yadk.models._litellm import litellm_model
    from yadk.models._openai import OpenAIChat
    from yadk.models._scripted import ScriptedModel, ScriptedTurn

__all__ = [
    "ALLOW_MODEL_REQUESTS",
    "AnthropicLlm",
    "BaseLlm",
    "FunctionDeclaration",
    "Gemini",
    "LlmRequest",
    "LlmResponse",
    "OpenAIChat",
    "ScriptedModel",
    "ScriptedTurn",
    "litellm_model",
    "override_allow_model_requests",
    "register_model",
    "registered_providers",
    "resolve_model",
    "serves",
]

# For yadk's own packages; not part of the public contract (``__all__``). Their module
# loads with the names above anyway.
from yadk.models._base import insert_before_current_turn as insert_before_current_turn

ALLOW_MODEL_REQUESTS: bool = allowed_by_environment()
"""Whether real backends may send requests; tests set it to False to stay offline."""


def __getattr__(name: str) -> Any:
    if name == "AnthropicLlm":
        from yadk.models._anthropic import AnthropicLlm

        return AnthropicLlm
    if name == "litellm_model":
        from yadk.models._litellm import litellm_model

        return litellm_model
    if name == "Gemini":
        from yadk.models._gemini import Gemini

        return Gemini
    if name == "OpenAIChat":
        from yadk.models._openai import OpenAIChat

        return OpenAIChat
    if name in ("ScriptedModel", "ScriptedTurn"):
        from yadk.models import _scripted

        return getattr(_scripted, name)
    raise AttributeError(f"module 'yadk.models' has no attribute {name!r}")
