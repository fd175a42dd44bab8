"""The JSON Schema (draft 2020-12) of the YAML dialect, for editors:
``# yaml-language-server: $schema=agent.schema.json`` at the top of a config."""

from __future__ import annotations

from typing import Any

from yadk.config._dialect import (
    AGENT_CLASS_SPELLINGS,
    BUILTIN_TOOL_SPELLINGS,
    COMMON_KEYS,
    CONTENT_CONFIG_KEYS,
    HTTP_OPTIONS_KEYS,
    LLM_KEYS,
    LOOP_KEYS,
    RETRY_OPTIONS_KEYS,
    WORKFLOW_KEYS,
    KeySpec,
    keys_for,
)

__all__ = ["agent_config_json_schema"]

_DOTTED = r"^\.?[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$"
_REF = "#/$defs/"


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": _REF + name}


def _file_ref(what: str) -> dict[str, Any]:
    return {
        "type": "object",
        "description": f"(yadk addition) Read {what} from a file, relative to this config.",
        "properties": {"file": {"type": "string"}},
        "required": ["file"],
        "additionalProperties": False,
    }


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _spellings(kind: str) -> list[str]:
    return sorted(name for name, value in AGENT_CLASS_SPELLINGS.items() if value == kind)


_KEY_SCHEMAS: dict[str, dict[str, Any]] = {
    "agent_class": {"type": "string"},
    "name": {"type": "string", "pattern": r"^[A-Za-z_][A-Za-z0-9_]*$", "not": {"const": "user"}},
    "description": {"type": "string"},
    "sub_agents": {"type": "array", "items": _ref("AgentReference")},
    "state": _ref("StateDeclaration"),
    "model": {"type": "string"},
    "model_code": _ref("ModelCode"),
    "instruction": {"anyOf": [{"type": "string"}, _file_ref("the instruction")]},
    "static_instruction": _ref("StaticInstruction"),
    "disallow_transfer_to_parent": {"type": ["boolean", "null"]},
    "disallow_transfer_to_peers": {"type": ["boolean", "null"]},
    "input_schema": _ref("CodeReference"),
    "output_schema": _ref("CodeReference"),
    "output_key": {"type": ["string", "null"]},
    "include_contents": {"enum": ["default", "none"]},
    "mode": {"enum": ["chat", "single_turn", "task"]},
    "tools": {"type": "array", "items": _ref("Tool")},
    "generate_content_config": _ref("GenerateContentConfig"),
    "code_executor": {
        "anyOf": [
            {"type": "string"},
            {
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
                "additionalProperties": False,
            },
            {"type": "null"},
        ]
    },
    "skills": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
    "examples": _ref("Examples"),
    "max_iterations": {"type": ["integer", "null"], "minimum": 1},
    "edges": {
        "type": "array",
        "items": {
            "anyOf": [
                {"type": "array", "minItems": 2},
                {
                    "type": "object",
                    "properties": {"from_node": {}, "to_node": {}, "route": {}},
                    "required": ["from_node", "to_node"],
                    "additionalProperties": False,
                },
            ]
        },
    },
    "max_concurrency": {"type": ["integer", "null"]},
    "timeout": {"type": ["number", "null"]},
    "rerun_on_resume": {"type": "boolean"},
    "wait_for_output": {"type": "boolean"},
    "agent_card": {"type": "string", "minLength": 1},
    "headers": {"type": "object", "additionalProperties": {"type": "string"}},
}


def _properties(keys: tuple[KeySpec, ...]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key in keys:
        schema = dict(_KEY_SCHEMAS.get(key.name) or {"$ref": _REF + "Callbacks"})
        prefix = "(yadk addition) " if key.yadk else ""
        schema["description"] = prefix + key.description
        found[key.name] = schema
    return found


def _agent(kind: str, keys: tuple[KeySpec, ...], required: list[str]) -> dict[str, Any]:
    properties = _properties(keys)
    properties["agent_class"] = {
        **properties["agent_class"],
        "enum": _spellings(kind),
    }
    return {
        "type": "object",
        "title": kind,
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def _tool_args() -> list[dict[str, Any]]:
    def names(short: str) -> list[str]:
        return sorted(k for k, v in BUILTIN_TOOL_SPELLINGS.items() if v == short)

    args: dict[str, dict[str, Any]] = {
        "ExampleTool": {
            "properties": {
                "examples": {"anyOf": [{"type": "array"}, {"type": "string"}]},
                "timeout": {"type": "number", "exclusiveMinimum": 0},
                "cache_size": {"type": "integer", "minimum": 0},
            },
            "required": ["examples"],
        },
        "AgentTool": {
            "properties": {
                "agent": _ref("AgentReference"),
                "skip_summarization": {"type": "boolean"},
                "include_plugins": {"type": "boolean"},
            },
            "required": ["agent"],
        },
        "SkillToolset": {
            "properties": {
                "skills": {
                    "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]
                },
                "allow_scripts": {"type": "boolean"},
                "script_timeout": {"type": "number"},
                "max_resource_bytes": {"type": "integer"},
            },
            "required": ["skills"],
        },
        "GoogleSearchTool": {
            "properties": {
                "bypass_multi_tools_limit": {"type": "boolean"},
                "model": {"type": "string"},
            },
        },
    }
    return [
        {
            "if": {"properties": {"name": {"enum": names(short)}}, "required": ["name"]},
            "then": {
                "properties": {"args": {"type": "object", "additionalProperties": False, **schema}}
            },
        }
        for short, schema in args.items()
    ]


def _settings(keys: dict[str, str], special: dict[str, Any]) -> dict[str, Any]:
    """JSON Schema properties for ``keys`` (key -> JSON type), in both spellings."""
    properties: dict[str, Any] = {}
    for key, json_type in keys.items():
        schema: dict[str, Any] = {} if json_type == "any" else {"type": json_type}
        schema = special.get(key, schema)
        properties[key] = schema
        if _camel(key) != key:
            properties[_camel(key)] = schema
    return properties


def _defs() -> dict[str, Any]:
    retry_options = _settings(
        RETRY_OPTIONS_KEYS,
        {
            "http_status_codes": {
                "type": "array",
                "items": {"type": "integer", "minimum": 100, "maximum": 599},
            }
        },
    )
    http_options = _settings(
        HTTP_OPTIONS_KEYS,
        {
            "retry_options": {
                "type": "object",
                "properties": retry_options,
                "additionalProperties": False,
            }
        },
    )
    content_config = _settings(
        CONTENT_CONFIG_KEYS,
        {
            "http_options": {
                "type": "object",
                "properties": http_options,
                "additionalProperties": False,
            }
        },
    )
    builtin_classes = sorted(AGENT_CLASS_SPELLINGS)
    return {
        "CodeReference": {
            "description": "A dotted name (`pkg.module.attr`; a leading `.` is relative to the "
            "config's folder), as `name: ...` or (yadk) a plain string.",
            "anyOf": [
                {"type": "string", "pattern": _DOTTED},
                {
                    "type": "object",
                    "properties": {"name": {"type": "string", "pattern": _DOTTED}},
                    "required": ["name"],
                    "additionalProperties": False,
                },
            ],
        },
        "Callbacks": {"type": "array", "items": _ref("CodeReference")},
        "ModelCode": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "pattern": _DOTTED},
                "args": {"type": ["object", "array"]},
            },
            "required": ["name"],
            "additionalProperties": False,
        },
        "AgentReference": {
            "anyOf": [
                {"type": "string", "description": "(yadk) A config path."},
                {
                    "type": "object",
                    "properties": {"config_path": {"type": "string"}},
                    "required": ["config_path"],
                    "additionalProperties": False,
                },
                {
                    "type": "object",
                    "properties": {"code": {"type": "string", "pattern": _DOTTED}},
                    "required": ["code"],
                    "additionalProperties": False,
                },
            ]
        },
        "StaticInstruction": {
            "anyOf": [
                {"type": "string"},
                _file_ref("the static instruction"),
                {"type": "object", "description": "A Content (`parts: [...]`) or a Part."},
                {"type": "array", "items": {"type": ["string", "object"]}},
            ]
        },
        "Tool": {
            "anyOf": [
                {"type": "string"},
                {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "args": {"type": ["object", "array", "null"]},
                    },
                    "required": ["name"],
                    "additionalProperties": False,
                    "allOf": _tool_args(),
                },
            ]
        },
        "GenerateContentConfig": {
            "type": "object",
            "properties": content_config,
            "additionalProperties": False,
        },
        "StateDeclaration": {
            "anyOf": [
                {"type": "array", "items": {"type": "string"}},
                {"type": "object", "additionalProperties": {"type": ["string", "null"]}},
            ]
        },
        "Examples": {
            "anyOf": [
                {"type": "array", "items": {"type": "object"}},
                {"type": "string"},
                {
                    "type": "object",
                    "properties": {
                        "examples": {"anyOf": [{"type": "array"}, {"type": "string"}]},
                        "timeout": {"type": "number"},
                        "cache_size": {"type": "integer"},
                    },
                    "required": ["examples"],
                    "additionalProperties": False,
                },
            ]
        },
        "LlmAgent": _agent("LlmAgent", COMMON_KEYS + LLM_KEYS, ["name", "instruction"]),
        "SequentialAgent": _agent("SequentialAgent", COMMON_KEYS, ["agent_class", "name"]),
        "ParallelAgent": _agent("ParallelAgent", COMMON_KEYS, ["agent_class", "name"]),
        "LoopAgent": _agent("LoopAgent", COMMON_KEYS + LOOP_KEYS, ["agent_class", "name"]),
        "Workflow": _agent(
            "Workflow", COMMON_KEYS + WORKFLOW_KEYS, ["agent_class", "name", "edges"]
        ),
        "RemoteA2aAgent": _agent(
            "RemoteA2aAgent",
            keys_for("RemoteA2aAgent"),
            ["agent_class", "name", "agent_card"],
        ),
        "CustomAgent": {
            "type": "object",
            "title": "Custom agent class",
            "properties": {
                **_properties(COMMON_KEYS + LLM_KEYS + LOOP_KEYS),
                "agent_class": {
                    "type": "string",
                    "pattern": _DOTTED,
                    "not": {"enum": builtin_classes},
                    "description": "The dotted name of a BaseAgent subclass; its own fields are "
                    "further keys.",
                },
            },
            "required": ["agent_class", "name"],
        },
    }


def agent_config_json_schema() -> dict[str, Any]:
    """The JSON Schema of an agent config file (a fresh dict on every call)."""
    llm = _spellings("LlmAgent")

    def when(kind: str) -> dict[str, Any]:
        return {
            "if": {
                "properties": {"agent_class": {"enum": _spellings(kind)}},
                "required": ["agent_class"],
            },
            "then": _ref(kind),
        }

    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "yadk agent config",
        "description": "An agent in Google ADK's Agent Config dialect (google-adk 2.13), plus "
        "the yadk additions (instruction files, ${env:VAR}, skills, examples, state).",
        "type": "object",
        "allOf": [
            {
                "if": {
                    "anyOf": [
                        {"not": {"required": ["agent_class"]}},
                        {"properties": {"agent_class": {"enum": llm}}},
                    ]
                },
                "then": _ref("LlmAgent"),
            },
            when("SequentialAgent"),
            when("ParallelAgent"),
            when("LoopAgent"),
            when("Workflow"),
            when("RemoteA2aAgent"),
            {
                "if": {
                    "properties": {"agent_class": {"not": {"enum": sorted(AGENT_CLASS_SPELLINGS)}}},
                    "required": ["agent_class"],
                },
                "then": _ref("CustomAgent"),
            },
        ],
        "$defs": _defs(),
    }
