"""The JSON Schema of app.yaml, for editors (``yadk schema --app``; point a
``# yaml-language-server: $schema=app.schema.json`` comment at the saved output)."""

from __future__ import annotations

from typing import Any

import yadk.apps
from yadk.config._app_config import APP_KEYS, BUILTIN_PLUGINS

__all__ = ["app_config_json_schema"]

_SETTINGS = {
    "events_compaction_config": "EventsCompactionConfig",
    "context_cache_config": "ContextCacheConfig",
    "resumability_config": "ResumabilityConfig",
    "budget": "Budget",  # a yadk addition
}


def _settings(model: str) -> dict[str, Any]:
    schema: dict[str, Any] = getattr(yadk.apps, model).model_json_schema()
    schema.pop("title", None)
    if model == "EventsCompactionConfig":  # in YAML the summariser is a model name
        schema["properties"]["summarizer"] = {
            "type": "string",
            "description": "The model that summarises (default: the root agent's).",
        }
    return schema


def _plugin() -> dict[str, Any]:
    name = {
        "type": "string",
        "description": "A built-in plugin (google-adk's name), an installed one (entry-point"
        " group yadk.plugins), or a dotted name.",
        "examples": sorted(BUILTIN_PLUGINS),
    }
    return {
        "oneOf": [
            name,
            {
                "type": "object",
                "properties": {
                    "name": name,
                    "args": {"type": "object", "description": "The plugin's arguments."},
                },
                "required": ["name"],
                "additionalProperties": False,
            },
        ]
    }


def app_config_json_schema() -> dict[str, Any]:
    """The JSON Schema of app.yaml (a fresh dict on every call)."""
    properties: dict[str, Any] = {
        "name": {
            "type": "string",
            "pattern": "^[A-Za-z][A-Za-z0-9_-]*$",
            "description": "The app's name (default: the agent folder's name).",
        },
        "plugins": {"type": "array", "items": _plugin()},
        **{key: _settings(model) for key, model in _SETTINGS.items()},
    }
    # Nested models' definitions live at the root, where their "#/$defs/..." references point.
    definitions: dict[str, Any] = {}
    for value in properties.values():
        definitions.update(value.pop("$defs", {}))
    missing = sorted(set(APP_KEYS) - set(properties))
    if missing:  # a key added to the table without its schema
        raise AssertionError(f"app.yaml keys without a schema: {missing}")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "yadk app.yaml",
        "description": "The App around the agent of this folder (a yadk addition): google-adk's"
        " App settings and plugins.",
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
        **({"$defs": definitions} if definitions else {}),
    }
