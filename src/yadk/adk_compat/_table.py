"""What the import shim serves: google-adk 2.13's names (``_surface``) mapped onto yadk's objects.

A google-adk name is looked up by its module and name in ``OVERRIDES``, then by name alone in
``NAMES`` (google-adk re-exports one class from many modules: ``LlmAgent`` from
``google.adk.agents`` and ``google.adk.agents.llm_agent`` is the same class). A target is
``"module:attribute"``, imported when first used. Names of google-adk 2.13 without a target are
not provided: importing one fails with the reason and what yadk offers instead (``HINTS``).
Reading this table imports nothing heavier than itself (``yadk validate`` checks imports with it).
"""

from __future__ import annotations

import importlib.util
from typing import Any, Final

from yadk.adk_compat._surface import GENAI_TYPES, SURFACE

__all__ = [
    "MODULES",
    "NAMES",
    "ROOTS",
    "is_shim_module",
    "provided_names",
    "target_available",
    "target_of",
    "unprovided_reason",
    "value_of",
]

ROOTS: Final = ("google.adk", "google.genai")

_AGENTS = "yadk.agents"
_COMPAT = "yadk.adk_compat"

# google-adk name -> yadk's object, wherever google-adk exports that name.
NAMES: Final[dict[str, str]] = {
    # google.adk.agents
    "Agent": f"{_COMPAT}._agents:LlmAgent",
    "LlmAgent": f"{_COMPAT}._agents:LlmAgent",
    "BaseAgent": f"{_AGENTS}:BaseAgent",
    "SequentialAgent": f"{_AGENTS}:SequentialAgent",
    "ParallelAgent": f"{_AGENTS}:ParallelAgent",
    "LoopAgent": f"{_AGENTS}:LoopAgent",
    "InvocationContext": f"{_AGENTS}:InvocationContext",
    "Context": f"{_AGENTS}:Context",
    "CallbackContext": f"{_AGENTS}:CallbackContext",
    "ReadonlyContext": f"{_AGENTS}:ReadonlyContext",
    "ToolContext": f"{_AGENTS}:ToolContext",
    "RunConfig": f"{_COMPAT}._runners:RunConfig",
    "StreamingMode": f"{_COMPAT}._runners:StreamingMode",
    # google.adk.telemetry
    "TelemetryConfig": f"{_AGENTS}:TelemetryConfig",
    "ContentCapturingMode": f"{_AGENTS}:ContentCapturingMode",
    "tracer": f"{_COMPAT}._telemetry:tracer",
    # google.adk.events
    "Event": "yadk.events:Event",
    "EventActions": "yadk.events:EventActions",
    "RequestInput": "yadk.workflow:RequestInput",
    "NodeInfo": "yadk.events:NodeInfo",
    # google.adk.tools
    "BaseTool": "yadk.tools:BaseTool",
    "BaseToolset": "yadk.tools:BaseToolset",
    "FunctionTool": "yadk.tools:FunctionTool",
    "AgentTool": "yadk.tools:AgentTool",
    "ExampleTool": "yadk.tools:ExampleTool",
    "LongRunningFunctionTool": "yadk.tools:LongRunningFunctionTool",
    "ToolConfirmation": "yadk.tools:ToolConfirmation",
    "GoogleSearchTool": "yadk.tools:GoogleSearchTool",
    "google_search": "yadk.tools:google_search",
    "url_context": "yadk.tools:url_context",
    "load_artifacts": "yadk.tools:load_artifacts",
    "load_memory": "yadk.tools:load_memory",
    "preload_memory": "yadk.tools:preload_memory",
    "exit_loop": "yadk.tools:exit_loop",
    "get_user_choice": "yadk.tools:get_user_choice",
    "transfer_to_agent": "yadk.tools:transfer_to_agent",
    "MCPToolset": "yadk.tools.mcp:MCPToolset",
    "McpToolset": "yadk.tools.mcp:McpToolset",
    "MCPTool": "yadk.tools.mcp:MCPTool",
    "McpTool": "yadk.tools.mcp:McpTool",
    "StdioConnectionParams": "yadk.tools.mcp:StdioConnectionParams",
    "SseConnectionParams": "yadk.tools.mcp:SseConnectionParams",
    "StreamableHTTPConnectionParams": "yadk.tools.mcp:StreamableHTTPConnectionParams",
    "StdioServerParameters": "yadk.tools.mcp:StdioServerParameters",
    # google.adk.examples
    "Example": "yadk.examples:Example",
    "BaseExampleProvider": "yadk.examples:BaseExampleProvider",
    "convert_examples_to_text": "yadk.examples:convert_examples_to_text",
    # google.adk.runners
    "Runner": f"{_COMPAT}._runners:Runner",
    "InMemoryRunner": f"{_COMPAT}._runners:InMemoryRunner",
    # google.adk.sessions
    "BaseSessionService": "yadk.sessions:BaseSessionService",
    "InMemorySessionService": "yadk.sessions:InMemorySessionService",
    "SqliteSessionService": "yadk.sessions:SqliteSessionService",
    "DatabaseSessionService": f"{_COMPAT}._services:DatabaseSessionService",
    "Session": "yadk.sessions:Session",
    "State": "yadk.sessions:State",
    "GetSessionConfig": "yadk.sessions:GetSessionConfig",
    "ListSessionsResponse": "yadk.sessions:ListSessionsResponse",
    # google.adk.artifacts
    "BaseArtifactService": "yadk.artifacts:BaseArtifactService",
    "InMemoryArtifactService": "yadk.artifacts:InMemoryArtifactService",
    "FileArtifactService": "yadk.artifacts:FileArtifactService",
    # google.adk.memory
    "BaseMemoryService": "yadk.memory:BaseMemoryService",
    "InMemoryMemoryService": "yadk.memory:InMemoryMemoryService",
    "SqliteMemoryService": "yadk.memory:SqliteMemoryService",
    "SearchMemoryResponse": "yadk.memory:SearchMemoryResponse",
    "MemoryEntry": "yadk.memory:MemoryEntry",
    # google.adk.models
    "BaseLlm": "yadk.models:BaseLlm",
    "LlmRequest": "yadk.models:LlmRequest",
    "LlmResponse": "yadk.models:LlmResponse",
    "Gemini": "yadk.models:Gemini",
    "LiteLlm": f"{_COMPAT}._models:LiteLlm",
    # google.adk.code_executors
    "BaseCodeExecutor": "yadk.code_executors:BaseCodeExecutor",
    "BuiltInCodeExecutor": "yadk.code_executors:BuiltInCodeExecutor",
    # google.adk.planners
    "BasePlanner": f"{_COMPAT}._planners:BasePlanner",
    "BuiltInPlanner": f"{_COMPAT}._planners:BuiltInPlanner",
    # google.adk.apps / google.adk.plugins: yadk.apps
    "App": "yadk.apps:App",
    "ResumabilityConfig": "yadk.apps:ResumabilityConfig",
    "EventsCompactionConfig": "yadk.apps:EventsCompactionConfig",
    "ContextCacheConfig": "yadk.apps:ContextCacheConfig",
    "BaseEventsSummarizer": "yadk.apps:BaseEventsSummarizer",
    "LlmEventSummarizer": "yadk.apps:LlmEventSummarizer",
    "BasePlugin": "yadk.apps:BasePlugin",
    "LoggingPlugin": "yadk.apps:LoggingPlugin",
    "DebugLoggingPlugin": "yadk.apps:DebugLoggingPlugin",
    "GlobalInstructionPlugin": "yadk.apps:GlobalInstructionPlugin",
    "ContextFilterPlugin": "yadk.apps:ContextFilterPlugin",
    "ReflectAndRetryToolPlugin": "yadk.apps:ReflectAndRetryToolPlugin",
    "TrackingScope": "yadk.apps:TrackingScope",
    "SaveFilesAsArtifactsPlugin": "yadk.apps:SaveFilesAsArtifactsPlugin",
    # google.adk.workflow: yadk.workflow
    "Workflow": "yadk.workflow:Workflow",
    "START": "yadk.workflow:START",
    "DEFAULT_ROUTE": "yadk.workflow:DEFAULT_ROUTE",
    "Edge": "yadk.workflow:Edge",
    "BaseNode": "yadk.workflow:BaseNode",
    "FunctionNode": "yadk.workflow:FunctionNode",
    "JoinNode": "yadk.workflow:JoinNode",
    "Node": "yadk.workflow:Node",
    "node": "yadk.workflow:node",
    "RetryConfig": "yadk.workflow:RetryConfig",
    "NodeTimeoutError": "yadk.workflow:NodeTimeoutError",
    "NodeInterruptedError": "yadk.workflow:NodeInterruptedError",
    # google.adk.agents.remote_a2a_agent: yadk.a2a
    "RemoteA2aAgent": "yadk.a2a:RemoteA2aAgent",
    "A2AClientError": "yadk.errors:A2AClientError",
    "AgentCardResolutionError": "yadk.errors:AgentCardResolutionError",
    "AGENT_CARD_WELL_KNOWN_PATH": "yadk.a2a:AGENT_CARD_WELL_KNOWN_PATH",
}

# (module, name) -> target, where one google-adk name means something else in one module.
OVERRIDES: Final[dict[tuple[str, str], str]] = {
    ("google.adk.tools.load_artifacts_tool", "load_artifacts_tool"): "yadk.tools:load_artifacts",
}

# Names yadk also serves where google-adk 2.13 does not export them (older google-adk did, and
# agent code still imports them from there).
EXTRA: Final[dict[str, tuple[str, ...]]] = {
    "google.adk.agents": ("CallbackContext", "ReadonlyContext", "ToolContext"),
    "google.adk.tools": ("BaseToolset", "GoogleSearchTool"),
    # google-adk imports this module only with LiteLLM installed, so the recorded surface
    # (google-adk without extras) lacks it; agent code imports LiteLlm from here.
    "google.adk.models.lite_llm": ("LiteLlm",),
    # A private module (so not in the recorded surface), where google-adk keeps the signal
    # ``ctx.run_node`` raises; node code that must let it through imports it from there.
    "google.adk.workflow._errors": ("NodeInterruptedError", "NodeTimeoutError"),
}

# Where yadk offers something else for a google-adk name it does not provide.
HINTS: Final[dict[str, str]] = {
    "VertexAiSearchTool": "yadk has no Vertex AI Search tool; serve the search over MCP"
    " (`MCPToolset`) or wrap your client in a `FunctionTool`",
    "EnterpriseWebSearchTool": "yadk has no Enterprise Web Search; use `google_search`",
    "enterprise_web_search": "yadk has no Enterprise Web Search; use `google_search`",
    "google_maps_grounding": "yadk has no Google Maps grounding tool",
    "GoogleMapsGroundingTool": "yadk has no Google Maps grounding tool",
    "PreloadMemoryTool": "use the ready-made `preload_memory`",
    "LoadMemoryTool": "use the ready-made `load_memory`",
    "LoadArtifactsTool": "use the ready-made `load_artifacts`",
    "UrlContextTool": "use the ready-made `url_context`",
    "VertexAiSessionService": "yadk stores sessions in memory, SQLite or PostgreSQL"
    " (`DatabaseSessionService(url)`, `yadk.sessions.open_session_service`)",
    "VertexAiMemoryBankService": "yadk's memory stores are in memory, SQLite or PostgreSQL"
    " (`yadk.memory`)",
    "VertexAiRagMemoryService": "yadk's memory stores are in memory, SQLite or PostgreSQL"
    " (`yadk.memory`)",
    "GcsArtifactService": "yadk stores artifacts in memory, in files (`FileArtifactService`) or"
    " in PostgreSQL (`yadk.artifacts.PostgresArtifactService`)",
    "VertexAiExampleStore": "use `yadk.examples.LexicalExampleStore` or a `BaseExampleProvider`"
    " of your own",
    "PlanReActPlanner": "use `BuiltInPlanner(thinking_config=...)` (the model's own thinking)",
    "UnsafeLocalCodeExecutor": "yadk never runs model-written code on this machine; use"
    " `BuiltInCodeExecutor` (the model runs it)",
    "ContainerCodeExecutor": "yadk runs code only through `BuiltInCodeExecutor` (the model's"
    " own code execution)",
    "VertexAiCodeExecutor": "yadk runs code only through `BuiltInCodeExecutor`",
    "GkeCodeExecutor": "yadk runs code only through `BuiltInCodeExecutor`",
    "AgentEngineSandboxCodeExecutor": "yadk runs code only through `BuiltInCodeExecutor`",
    "Claude": "use `yadk.models.AnthropicLlm` (or the model string `anthropic:NAME`)",
    "AnthropicLlm": "use `yadk.models.AnthropicLlm`",
    "LLMRegistry": "use `yadk.models.register_model` / `resolve_model`",
    "SkillToolset": "use `yadk.skills.SkillToolset`, or `skills:` in YAML",
    "LiveRequestQueue": "yadk has no live (bidirectional streaming) mode",
    "LiveRequest": "yadk has no live (bidirectional streaming) mode",
    "from_config": "use `yadk.config.load_agent(path)`",
    "LangchainTool": "wrap the LangChain tool's function in a `FunctionTool`",
    "CrewaiTool": "wrap the CrewAI tool's function in a `FunctionTool`",
    "load_web_page": "yadk has no web page loader; use `url_context` or a `FunctionTool`",
    "request_input": "human input is `yadk.workflow`'s (`RequestInput`)",
    **dict.fromkeys(
        (
            "trace_call_llm",
            "trace_tool_call",
            "trace_merged_tool_calls",
            "trace_send_data",
            "trace_agent_invocation",
            "start_as_current_node_span",
        ),
        "yadk traces its agents, nodes, model and tool calls itself (docs/tracing.md); for a"
        " span of your own use `google.adk.telemetry.tracer`",
    ),
    **dict.fromkeys(
        ("maybe_set_otel_providers", "get_gcp_exporters", "OTelHooks"),
        "set an OpenTelemetry `TracerProvider`, or run yadk with `--otel` and the"
        " `OTEL_EXPORTER_OTLP_*` variables (docs/tracing.md)",
    ),
}

_GENAI_TYPES = "google.genai.types"
# yadk packages a target may live in that an installation of yadk may not have yet.
_OPTIONAL: Final = frozenset({"yadk.apps", "yadk.workflow"})
_PARENTS: Final = ("google", "google.adk", "google.genai")


def _all_modules() -> frozenset[str]:
    modules = set(SURFACE) | set(EXTRA) | {_GENAI_TYPES, *_PARENTS}
    for name in list(modules):
        parts = name.split(".")
        modules.update(".".join(parts[:i]) for i in range(1, len(parts)))
    return frozenset(modules)


MODULES: Final[frozenset[str]] = _all_modules()


def is_shim_module(module: str) -> bool:
    """Whether the shim serves ``module`` (google-adk 2.13 has it, and the shim covers it)."""
    return module in MODULES


def target_of(module: str, name: str) -> str | None:
    """The yadk object ``module.name`` maps to, or None when the shim does not provide it."""
    if module == _GENAI_TYPES:
        return f"{_COMPAT}._genai_types:{name}" if name in GENAI_TYPES else None
    if name not in SURFACE.get(module, ()) and name not in EXTRA.get(module, ()):
        return None
    return OVERRIDES.get((module, name)) or NAMES.get(name)


def provided_names(module: str) -> dict[str, str]:
    """Every name the shim provides in ``module`` and its target."""
    names = (
        tuple(GENAI_TYPES)
        if module == _GENAI_TYPES
        else SURFACE.get(module, ()) + EXTRA.get(module, ())
    )
    return {n: t for n in names if (t := target_of(module, n)) is not None}


def unprovided_reason(module: str, name: str | None = None) -> str:
    """Why ``module`` (or ``module.name``) cannot be imported from the shim, and what yadk offers
    instead: one sentence for an error message."""
    if name is None:
        return (
            f"`{module}` is not provided by yadk's google-adk compatibility layer (it serves"
            " google-adk's agents, events, tools, examples, runners, sessions, artifacts,"
            " memory, models, planners, code_executors, apps, plugins, workflow and telemetry"
            " modules)."
            " Import yadk's own API instead (see docs/adk_compat.md)."
        )
    full = f"{module}.{name}"
    if module != _GENAI_TYPES and name not in SURFACE.get(module, ()):
        homes = sorted(m for m, names in SURFACE.items() if name in names)
        where = f" (google-adk has it in `{homes[0]}`)" if homes else ""
        return f"`{full}` does not exist in google-adk 2.13{where}."
    if module == _GENAI_TYPES:
        return f"`{full}` does not exist in google-genai."
    target = NAMES.get(name) or OVERRIDES.get((module, name))
    if target is not None:
        package = target.split(":")[0]
        return (
            f"`{full}` maps to `{package}.{target.split(':')[1]}`, which this installation of"
            f" yadk does not have."
        )
    hint = HINTS.get(name, "yadk has no equivalent")
    return (
        f"`{full}` is not provided by yadk's google-adk compatibility layer: {hint}."
        " See docs/adk_compat.md for what is provided."
    )


def target_available(target: str) -> bool:
    """Whether ``target`` exists in this installation of yadk. ``yadk.apps`` and
    ``yadk.workflow`` may be absent, or lack a name (they are imported to find out); every other
    target is part of yadk."""
    package, attribute = target.split(":")
    if package not in _OPTIONAL:
        return True
    try:
        if importlib.util.find_spec(package) is None:
            return False
        return hasattr(importlib.import_module(package), attribute)
    except ImportError:
        return False


def value_of(target: str) -> Any:
    module, attribute = target.split(":")
    return getattr(importlib.import_module(module), attribute)
