"""The narrow table of google-adk / google-genai names the import shim provides, and yadk's
equivalent of each (imported lazily, when the shimmed module is first imported)."""

from __future__ import annotations

from typing import Any, Final

__all__ = ["PROVIDED", "provided_names", "value_of"]

# module -> {attribute: "yadk.module:attribute"}. Nothing else under google.adk is provided.
PROVIDED: Final[dict[str, dict[str, str]]] = {
    "google.adk.tools": {"ToolContext": "yadk.agents:ToolContext"},
    "google.adk.tools.tool_context": {"ToolContext": "yadk.agents:ToolContext"},
    "google.adk.agents.callback_context": {"CallbackContext": "yadk.agents:CallbackContext"},
    "google.adk.agents.readonly_context": {"ReadonlyContext": "yadk.agents:ReadonlyContext"},
    "google.adk.models": {
        "LlmRequest": "yadk.models:LlmRequest",
        "LlmResponse": "yadk.models:LlmResponse",
    },
    "google.adk.models.llm_request": {"LlmRequest": "yadk.models:LlmRequest"},
    "google.adk.models.llm_response": {"LlmResponse": "yadk.models:LlmResponse"},
    "google.genai.types": {
        "Content": "yadk.types:Content",
        "Part": "yadk.types:Part",
        "FunctionCall": "yadk.types:FunctionCall",
        "FunctionResponse": "yadk.types:FunctionResponse",
        "Blob": "yadk.types:Blob",
        "GenerateContentConfig": "yadk.adk_compat._genai_types:GenerateContentConfig",
    },
}


def provided_names(module: str) -> dict[str, str]:
    return PROVIDED.get(module, {})


def value_of(target: str) -> Any:
    import importlib

    module, attribute = target.split(":")
    return getattr(importlib.import_module(module), attribute)
