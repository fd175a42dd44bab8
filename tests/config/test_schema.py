"""The JSON Schema of the dialect agrees with what the loader accepts."""

from __future__ import annotations

import json
from typing import Any

import pytest

from yadk.config import agent_config_json_schema
from yadk.config._dialect import (
    AGENT_CLASS_SPELLINGS,
    COMMON_KEYS,
    LLM_KEYS,
    LOOP_KEYS,
    WORKFLOW_KEYS,
)


def resolve(schema: dict[str, Any], ref: dict[str, Any]) -> dict[str, Any]:
    name = ref["$ref"].removeprefix("#/$defs/")
    found: dict[str, Any] = schema["$defs"][name]
    return found


def test_schema_is_draft_2020_12_and_json() -> None:
    schema = agent_config_json_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert json.loads(json.dumps(schema)) == schema
    assert agent_config_json_schema() is not schema


@pytest.mark.parametrize(
    ("kind", "keys", "required"),
    [
        ("LlmAgent", COMMON_KEYS + LLM_KEYS, ["name", "instruction"]),
        ("SequentialAgent", COMMON_KEYS, ["agent_class", "name"]),
        ("ParallelAgent", COMMON_KEYS, ["agent_class", "name"]),
        ("LoopAgent", COMMON_KEYS + LOOP_KEYS, ["agent_class", "name"]),
        ("Workflow", COMMON_KEYS + WORKFLOW_KEYS, ["agent_class", "name", "edges"]),
    ],
)
def test_each_agent_class_lists_exactly_the_dialect_keys(
    kind: str, keys: tuple[Any, ...], required: list[str]
) -> None:
    schema = agent_config_json_schema()
    agent = schema["$defs"][kind]
    assert sorted(agent["properties"]) == sorted(k.name for k in keys)
    assert agent["required"] == required
    assert agent["additionalProperties"] is False
    assert agent["properties"]["agent_class"]["enum"] == sorted(
        name for name, value in AGENT_CLASS_SPELLINGS.items() if value == kind
    )


def test_yadk_additions_are_marked() -> None:
    llm = agent_config_json_schema()["$defs"]["LlmAgent"]["properties"]
    marked = sorted(k for k, v in llm.items() if v["description"].startswith("(yadk addition)"))
    assert marked == ["code_executor", "examples", "mode", "skills", "state"]
    assert llm["mode"]["enum"] == ["chat", "single_turn", "task"]


def test_dispatch_on_agent_class() -> None:
    schema = agent_config_json_schema()
    branches = schema["allOf"]
    assert [b["then"]["$ref"] for b in branches] == [
        "#/$defs/LlmAgent",
        "#/$defs/SequentialAgent",
        "#/$defs/ParallelAgent",
        "#/$defs/LoopAgent",
        "#/$defs/Workflow",
        "#/$defs/RemoteA2aAgent",
        "#/$defs/CustomAgent",
    ]
    # Without agent_class an agent is an LlmAgent.
    assert branches[0]["if"]["anyOf"][0] == {"not": {"required": ["agent_class"]}}


def test_tools_and_callbacks_shapes() -> None:
    schema = agent_config_json_schema()
    llm = schema["$defs"]["LlmAgent"]["properties"]
    tool = resolve(schema, llm["tools"]["items"])
    assert tool["anyOf"][0] == {"type": "string"}
    assert tool["anyOf"][1]["required"] == ["name"]
    example_tool_names = tool["anyOf"][1]["allOf"][0]["if"]["properties"]["name"]["enum"]
    assert "google.adk.tools.example_tool.ExampleTool" in example_tool_names
    callbacks = resolve(schema, llm["before_model_callbacks"])
    assert callbacks["items"] == {"$ref": "#/$defs/CodeReference"}
    content_config = schema["$defs"]["GenerateContentConfig"]["properties"]
    assert {"temperature", "maxOutputTokens", "max_output_tokens"} <= set(content_config)


def test_http_options_and_retry_options_are_closed_mappings() -> None:
    schema = agent_config_json_schema()
    content_config = schema["$defs"]["GenerateContentConfig"]["properties"]
    http_options = content_config["http_options"]
    assert content_config["httpOptions"] == http_options
    assert http_options["additionalProperties"] is False
    assert http_options["properties"]["timeout"] == {"type": "integer"}
    retry = http_options["properties"]["retry_options"]
    assert http_options["properties"]["retryOptions"] == retry
    assert retry["additionalProperties"] is False
    assert set(retry["properties"]) == {
        "attempts",
        "initial_delay",
        "initialDelay",
        "max_delay",
        "maxDelay",
        "exp_base",
        "expBase",
        "jitter",
        "http_status_codes",
        "httpStatusCodes",
    }
    assert retry["properties"]["httpStatusCodes"]["items"]["maximum"] == 599
