"""Models: the backend interface, the offline ScriptedModel, and name resolution."""

from yadk.models._base import BaseLlm, FunctionDeclaration, LlmRequest, LlmResponse
from yadk.models._registry import register_model, registered_providers, resolve_model
from yadk.models._scripted import ScriptedModel, ScriptedTurn

__all__ = [
    "BaseLlm",
    "FunctionDeclaration",
    "LlmRequest",
    "LlmResponse",
    "ScriptedModel",
    "ScriptedTurn",
    "register_model",
    "registered_providers",
    "resolve_model",
]
