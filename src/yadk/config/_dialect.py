"""The YAML dialect as data: keys per agent class, built-in class and tool names, model settings.

The checker, the builder and the JSON Schema all read these tables, so they cannot disagree.
Key names and meanings are google-adk 2.13's Agent Config; entries marked ``yadk=True`` are yadk
additions.
"""

from __future__ import annotations

import dataclasses
from typing import Final, Literal

__all__ = [
    "ADK_ONLY_TOOLS",
    "AGENT_CLASS_SPELLINGS",
    "BUILTIN_TOOL_SPELLINGS",
    "COMMON_KEYS",
    "CONTENT_CONFIG_KEYS",
    "LLM_KEYS",
    "LOOP_KEYS",
    "REMOTE_KEYS",
    "WORKFLOW_KEYS",
    "AgentKind",
    "KeySpec",
    "keys_for",
]

AgentKind = Literal[
    "LlmAgent", "SequentialAgent", "ParallelAgent", "LoopAgent", "Workflow", "RemoteA2aAgent"
]


@dataclasses.dataclass(frozen=True)
class KeySpec:
    """One key of an agent mapping."""

    name: str
    description: str
    yadk: bool = False


_CALLBACKS = "A list of callbacks, each `- name: pkg.module.function`, called in order."

COMMON_KEYS: Final = (
    KeySpec(
        "agent_class",
        "LlmAgent (default), SequentialAgent, ParallelAgent, LoopAgent, Workflow (with `edges:`), "
        "RemoteA2aAgent (with `agent_card:`), their google.adk spellings, or the dotted name of a "
        "custom BaseAgent subclass.",
    ),
    KeySpec("name", "Required. The agent's name: a Python identifier, unique in the agent tree."),
    KeySpec("description", "What the agent does; other agents read it to decide on transfers."),
    KeySpec(
        "sub_agents",
        "Child agents: `- config_path: other.yaml` (relative to this file) or "
        "`- code: pkg.module.agent_instance`.",
    ),
    KeySpec("before_agent_callbacks", _CALLBACKS),
    KeySpec("after_agent_callbacks", _CALLBACKS),
    KeySpec(
        "state",
        "The session state keys the agent graph reads and writes (a list of names, or a mapping "
        "of name to description); `yadk validate` checks instruction placeholders against them.",
        yadk=True,
    ),
)

LLM_KEYS: Final = (
    KeySpec(
        "model",
        "The model name (e.g. gemini-2.5-flash, scripted:turns.yaml); inherited from the nearest "
        "ancestor LlmAgent when unset.",
    ),
    KeySpec(
        "model_code",
        "A model object from code: `name: pkg.module.my_model` (a BaseLlm instance). Not "
        "together with `model`.",
    ),
    KeySpec(
        "instruction",
        "Required. The instruction, with {state_key}, {optional_key?} and {artifact.name} "
        "placeholders; or `file: prompts/x.md` (yadk).",
    ),
    KeySpec(
        "static_instruction",
        "Instruction content sent verbatim before everything else (cacheable); a string, a "
        "Content mapping, or `file: prompts/x.md` (yadk).",
    ),
    KeySpec("disallow_transfer_to_parent", "Forbid transferring control back to the parent."),
    KeySpec("disallow_transfer_to_peers", "Forbid transferring control to sibling agents."),
    KeySpec("input_schema", "The input model when the agent is used as a tool: `name: pkg.Model`."),
    KeySpec(
        "output_schema",
        "A pydantic model the final answer must match: `name: pkg.module.Model`.",
    ),
    KeySpec("output_key", "Save the agent's final answer to this session state key."),
    KeySpec(
        "include_contents",
        "`default` sends the conversation history; `none` sends only the current turn.",
    ),
    KeySpec(
        "mode",
        "`single_turn` answers its input once, seeing only it (a workflow node's default); `chat`"
        " talks with the user and is a transfer target (a sub-agent's default); `task`, a"
        " sub-agent its parent delegates a task to, chats with the user until it calls"
        " finish_task.",
        yadk=True,
    ),
    KeySpec(
        "tools",
        "Tools: `- name: X` with optional `args:`; X is a built-in (ExampleTool, SkillToolset, "
        "AgentTool, exit_loop, transfer_to_agent) or a dotted name of a function, tool or "
        "toolset.",
    ),
    KeySpec("before_model_callbacks", _CALLBACKS),
    KeySpec("after_model_callbacks", _CALLBACKS),
    KeySpec("before_tool_callbacks", _CALLBACKS),
    KeySpec("after_tool_callbacks", _CALLBACKS),
    KeySpec(
        "generate_content_config",
        "Model settings: temperature, top_p, top_k, max_output_tokens, stop_sequences, "
        "safety_settings, thinking_config, ...",
    ),
    KeySpec(
        "code_executor",
        "BuiltInCodeExecutor: Gemini runs the code the model writes (the native code_execution "
        "tool). google-adk 2.13 sets it in Python only; executors that run code on this machine "
        "are not provided.",
        yadk=True,
    ),
    KeySpec(
        "skills",
        "Skill folders (each holding SKILL.md) or folders of skills, relative to this file; "
        "offered to the model through a SkillToolset.",
        yadk=True,
    ),
    KeySpec(
        "examples",
        "Few-shot examples: an inline list, a .yaml/.yml/.json/.jsonl file, or the dotted name "
        "of a BaseExampleProvider instance; added through an ExampleTool.",
        yadk=True,
    ),
)

LOOP_KEYS: Final = (
    KeySpec("max_iterations", "Stop after this many rounds (unset: until a sub-agent escalates)."),
)


WORKFLOW_KEYS: Final = (
    KeySpec(
        "edges",
        "Required. The graph: chains `- [START, a, b]` (a list inside for fan-out, `{route: node}` "
        "to route), or `- {from_node: a, to_node: b, route: r}`. A node is START, a config file "
        "(`writer.yaml`), a dotted function or node name (`.nodes.step`), a node named by an "
        "earlier edge, or an inline mapping.",
    ),
    KeySpec("max_concurrency", "At most this many nodes run at once (unset: no limit)."),
    KeySpec("timeout", "Seconds the whole workflow may run, when it is a node of another."),
    KeySpec("rerun_on_resume", "Run the workflow again when resumed (default true)."),
    KeySpec("wait_for_output", "Complete only when a terminal node produced output."),
)


REMOTE_KEYS: Final = (
    KeySpec(
        "agent_card",
        "Required. The remote agent's A2A card: its URL (https://, or http:// on this machine; "
        "a URL not ending in .json gets /.well-known/agent-card.json), or a .json file relative "
        "to this config.",
    ),
    KeySpec(
        "headers",
        "HTTP headers sent with every request to the remote agent (e.g. `Authorization: Bearer "
        "${env:TOKEN}`); environment values only to trusted hosts.",
    ),
    KeySpec("timeout", "Seconds each request to the remote agent may take (default 600)."),
)


def keys_for(kind: AgentKind) -> tuple[KeySpec, ...]:
    """Every key an agent of this built-in kind accepts."""
    if kind == "RemoteA2aAgent":
        return tuple(k for k in COMMON_KEYS if k.name != "sub_agents") + REMOTE_KEYS
    if kind == "Workflow":
        return COMMON_KEYS + WORKFLOW_KEYS
    if kind == "LlmAgent":
        return COMMON_KEYS + LLM_KEYS
    if kind == "LoopAgent":
        return COMMON_KEYS + LOOP_KEYS
    return COMMON_KEYS


def _spellings(name: str, module: str, *aliases: str) -> dict[str, str]:
    names = (name, *aliases)
    found = {alias: name for alias in names}
    for alias in names:
        found[f"google.adk.agents.{alias}"] = name
        found[f"google.adk.agents.{module}.{alias}"] = name
        found[f"yadk.{alias}"] = name
        found[f"yadk.agents.{alias}"] = name
    return found


AGENT_CLASS_SPELLINGS: Final[dict[str, AgentKind]] = {
    "": "LlmAgent",
    **_spellings("LlmAgent", "llm_agent", "Agent"),  # type: ignore[dict-item]
    **_spellings("SequentialAgent", "sequential_agent"),  # type: ignore[dict-item]
    **_spellings("ParallelAgent", "parallel_agent"),  # type: ignore[dict-item]
    **_spellings("LoopAgent", "loop_agent"),  # type: ignore[dict-item]
    **{
        alias: "Workflow"
        for alias in (
            "Workflow",
            "google.adk.workflow.Workflow",
            "google.adk.workflow._workflow.Workflow",
            "yadk.Workflow",
            "yadk.workflow.Workflow",
        )
    },
    **{
        alias: "RemoteA2aAgent"
        for alias in (
            "RemoteA2aAgent",
            "google.adk.agents.remote_a2a_agent.RemoteA2aAgent",
            "google.adk.a2a.agent.RemoteA2aAgent",
            "yadk.a2a.RemoteA2aAgent",
        )
    },
}


def _tool_spellings(name: str, *qualified: str) -> dict[str, str]:
    return {name: name, **{q: name for q in qualified}}


BUILTIN_TOOL_SPELLINGS: Final[dict[str, str]] = {
    **_tool_spellings(
        "ExampleTool",
        "google.adk.tools.ExampleTool",
        "google.adk.tools.example_tool.ExampleTool",
        "yadk.tools.ExampleTool",
    ),
    **_tool_spellings(
        "AgentTool",
        "google.adk.tools.AgentTool",
        "google.adk.tools.agent_tool.AgentTool",
        "yadk.tools.AgentTool",
    ),
    **_tool_spellings(
        "SkillToolset",
        "google.adk.tools.SkillToolset",
        "google.adk.tools.skill_toolset.SkillToolset",
        "yadk.skills.SkillToolset",
    ),
    **_tool_spellings(
        "MCPToolset",
        "McpToolset",
        "google.adk.tools.MCPToolset",
        "google.adk.tools.McpToolset",
        "google.adk.tools.mcp_tool.MCPToolset",
        "google.adk.tools.mcp_tool.McpToolset",
        "google.adk.tools.mcp_tool.mcp_toolset.MCPToolset",
        "google.adk.tools.mcp_tool.mcp_toolset.McpToolset",
        "yadk.tools.MCPToolset",
        "yadk.tools.McpToolset",
    ),
    **_tool_spellings(
        "FunctionTool",
        "google.adk.tools.FunctionTool",
        "google.adk.tools.function_tool.FunctionTool",
    ),
    **_tool_spellings(
        "LongRunningFunctionTool",
        "google.adk.tools.LongRunningFunctionTool",
        "google.adk.tools.long_running_tool.LongRunningFunctionTool",
    ),
    **_tool_spellings(
        "GoogleSearchTool",
        "google.adk.tools.GoogleSearchTool",
        "google.adk.tools.google_search_tool.GoogleSearchTool",
        "yadk.tools.GoogleSearchTool",
    ),
    **_tool_spellings(
        "google_search",
        "google.adk.tools.google_search",
        "google.adk.tools.google_search_tool.google_search",
        "yadk.tools.google_search",
    ),
    **_tool_spellings(
        "url_context",
        "google.adk.tools.url_context",
        "google.adk.tools.url_context_tool.url_context",
        "yadk.tools.url_context",
    ),
    **_tool_spellings(
        "load_artifacts",
        "google.adk.tools.load_artifacts",
        "google.adk.tools.load_artifacts_tool.load_artifacts_tool",
        "yadk.tools.load_artifacts",
    ),
    **_tool_spellings(
        "load_memory",
        "google.adk.tools.load_memory",
        "google.adk.tools.load_memory_tool.load_memory",
        "google.adk.tools.load_memory_tool.load_memory_tool",
        "yadk.tools.load_memory",
    ),
    **_tool_spellings(
        "preload_memory",
        "google.adk.tools.preload_memory",
        "google.adk.tools.preload_memory_tool.preload_memory_tool",
        "yadk.tools.preload_memory",
    ),
    **_tool_spellings(
        "get_user_choice",
        "google.adk.tools.get_user_choice",
        "google.adk.tools.get_user_choice_tool.get_user_choice_tool",
        "yadk.tools.get_user_choice",
    ),
    **_tool_spellings(
        "exit_loop",
        "google.adk.tools.exit_loop",
        "google.adk.tools.exit_loop_tool.exit_loop",
        "yadk.tools.exit_loop",
    ),
    **_tool_spellings(
        "transfer_to_agent",
        "google.adk.tools.transfer_to_agent",
        "google.adk.tools.transfer_to_agent_tool.transfer_to_agent",
        "yadk.tools.transfer_to_agent",
    ),
}

# google-adk built-ins that need Google services or packages yadk does not ship.
ADK_ONLY_TOOLS: Final = frozenset(
    {
        "APIHubToolset",
        "ApiRegistry",
        "DiscoveryEngineSearchTool",
        "ModelConsultTool",
        "RemoteMcpServer",
        "TransferToAgentTool",
        "VertexAiLoadProfilesTool",
        "VertexAiSearchTool",
        "enterprise_web_search",
        "google_maps_grounding",
        "request_input",
    }
)

# google-genai GenerateContentConfig fields (snake_case; camelCase spellings are accepted too),
# with the JSON type yadk checks for the simple ones.
CONTENT_CONFIG_KEYS: Final[dict[str, str]] = {
    "audio_timestamp": "boolean",
    "audio_transcription_config": "object",
    "automatic_continuation": "any",
    "automatic_function_calling": "object",
    "cached_content": "string",
    "candidate_count": "integer",
    "continuation_token": "any",
    "enable_enhanced_civic_answers": "boolean",
    "frequency_penalty": "number",
    "generation_output_config": "any",
    "http_options": "object",
    "image_config": "object",
    "labels": "object",
    "logprobs": "integer",
    "max_output_tokens": "integer",
    "media_resolution": "string",
    "model_armor_config": "object",
    "model_selection_config": "object",
    "presence_penalty": "number",
    "response_json_schema": "any",
    "response_logprobs": "boolean",
    "response_mime_type": "string",
    "response_modalities": "array",
    "response_schema": "any",
    "routing_config": "object",
    "safety_settings": "array",
    "seed": "integer",
    "service_tier": "string",
    "should_return_http_response": "boolean",
    "speech_config": "any",
    "stop_sequences": "array",
    "store": "boolean",
    "system_instruction": "any",
    "temperature": "number",
    "thinking_config": "object",
    "tool_config": "object",
    "tools": "any",
    "top_k": "number",
    "top_p": "number",
}

# google-genai HttpOptions fields an agent can write in YAML (the client objects cannot be), and
# the ones yadk's HTTP backends use; the others are accepted with a warning.
HTTP_OPTIONS_KEYS: Final[dict[str, str]] = {
    "api_version": "string",
    "async_client_args": "object",
    "base_url": "string",
    "base_url_resource_scope": "string",
    "client_args": "object",
    "extra_body": "object",
    "headers": "object",
    "retry_options": "object",
    "timeout": "integer",
}
HTTP_OPTIONS_USED: Final = frozenset({"timeout", "retry_options"})

# google-genai HttpRetryOptions fields.
RETRY_OPTIONS_KEYS: Final[dict[str, str]] = {
    "attempts": "integer",
    "exp_base": "number",
    "http_status_codes": "array",
    "initial_delay": "number",
    "jitter": "number",
    "max_delay": "number",
}
