"""The public facade is pinned: each package's ``__all__`` is exactly its documented contract.

``CONTRACT`` holds ARCHITECTURE.md's "Python API" table; ``DOCUMENTED`` the names a package adds
to it that a doc page (named in the comment) tells users to import. A new public name is one
entry in one of them (a new package is one row), together with the doc that describes it; a
helper that yadk's other packages need is offered by the facade outside ``__all__`` instead
(tests/test_layers.py).
"""

from __future__ import annotations

import importlib
import importlib.metadata

import pytest

CONTRACT: dict[str, set[str]] = {
    "yadk": {
        "__version__",
        "Agent",
        "App",
        "LlmAgent",
        "SequentialAgent",
        "ParallelAgent",
        "LoopAgent",
        "Runner",
        "Workflow",
        "load_agent",
    },
    "yadk.types": {
        "Content",
        "Part",
        "FunctionCall",
        "FunctionResponse",
        "Blob",
        "UserContent",
        "ModelContent",
    },
    "yadk.sessions": {
        "State",
        "Session",
        "BaseSessionService",
        "InMemorySessionService",
        "SqliteSessionService",
        "PostgresSessionService",
        "StaleSessionError",
        "SessionNotFoundError",
    },
    "yadk.events": {"Event", "EventActions"},
    "yadk.workflow": {
        "Workflow",
        "START",
        "DEFAULT_ROUTE",
        "Edge",
        "BaseNode",
        "FunctionNode",
        "JoinNode",
        "node",
        "RetryConfig",
        "NodeTimeoutError",
        "NodeTool",
    },
    "yadk.memory": {"BaseMemoryService", "InMemoryMemoryService"},
    "yadk.apps": {
        "App",
        "BasePlugin",
        "ContextFilterPlugin",
        "DebugLoggingPlugin",
        "GlobalInstructionPlugin",
        "LoggingPlugin",
        "ReflectAndRetryToolPlugin",
        "SaveFilesAsArtifactsPlugin",
        "EventsCompactionConfig",
        "ContextCacheConfig",
        "ResumabilityConfig",
        "Budget",
    },
    "yadk.artifacts": {
        "BaseArtifactService",
        "InMemoryArtifactService",
        "FileArtifactService",
        "PostgresArtifactService",
    },
    "yadk.agents": {
        "BaseAgent",
        "LlmAgent",
        "SequentialAgent",
        "ParallelAgent",
        "LoopAgent",
        "ReadonlyContext",
        "Context",
        "CallbackContext",
        "ToolContext",
        "InvocationContext",
        "InstructionProvider",
    },
    "yadk.templating": {"inject_session_state", "InstructionProvider", "find_placeholders"},
    "yadk.models": {
        "BaseLlm",
        "LlmRequest",
        "LlmResponse",
        "ScriptedModel",
        "resolve_model",
        "register_model",
    },
    "yadk.tools": {
        "BaseTool",
        "BaseToolset",
        "FunctionTool",
        "AgentTool",
        "ExampleTool",
        "ToolExecutionError",
        "ToolErrorType",
        "MCPToolset",
        "LongRunningFunctionTool",
        "exit_loop",
        "transfer_to_agent",
        "load_artifacts",
        "load_memory",
        "preload_memory",
        "google_search",
        "url_context",
    },
    "yadk.examples": {
        "Example",
        "BaseExampleProvider",
        "convert_examples_to_text",
        "LexicalExampleStore",
    },
    "yadk.skills": {
        "Frontmatter",
        "Skill",
        "Resources",
        "load_skill_from_dir",
        "load_skills_from_dir",
        "SkillToolset",
    },
    "yadk.config": {"load_agent", "validate_paths", "Diagnostic", "agent_config_json_schema"},
    "yadk.testing": {"ScriptedModel", "readonly_context", "tool_context"},
    # docs/eval.md: eval sets, their criteria, running and scoring them.
    "yadk.eval": {
        "CaseResult",
        "EvalCase",
        "EvalConfig",
        "EvalSet",
        "EvalSetResult",
        "EvalStatus",
        "EvalTarget",
        "Invocation",
        "Metric",
        "MetricResult",
        "RougeScore",
        "ToolCall",
        "agent_factory",
        "find_eval_files",
        "load_eval_config",
        "load_eval_set_file",
        "load_targets",
        "rouge_1",
        "run_targets",
        "tokenize",
        "trajectory_matches",
    },
    "yadk.errors": {"YadkError", "ConfigError", "TemplateError", "SkillError", "ModelError"},
    # docs/tools.md, Code execution: google-adk's code_executors, built-in only.
    "yadk.code_executors": {"BaseCodeExecutor", "BuiltInCodeExecutor"},
    # docs/a2a.md, Calling remote agents: google-adk's names.
    "yadk.a2a": {
        "AGENT_CARD_WELL_KNOWN_PATH",
        "A2AClientError",
        "AgentCardResolutionError",
        "RemoteA2aAgent",
    },
}

DOCUMENTED: dict[str, set[str]] = {
    # docs/apps.md: per-model prices of a budget (Token budgets), the summariser of event
    # compaction (Event compaction), the failure scope of ReflectAndRetryToolPlugin (Plugins).
    "yadk.apps": {"ModelPrice", "BaseEventsSummarizer", "LlmEventSummarizer", "TrackingScope"},
    # The timeouts and caps create_app takes (docs/serve.md, Safe by default), and its options
    # object (docs/serve.md, Python: create_app).
    "yadk.serve": {"Limits", "ServeOptions", "build_agent_card"},
    # docs/workflows.md: a workflow node's event metadata, human input, the node context, and
    # the errors a graph raises; docs/apps.md (Event compaction, Context caching): a compaction event's summary, the cache state
    # on a model event.
    "yadk.events": {"NodeInfo", "EventCompaction", "CacheMetadata"},
    "yadk.workflow": {
        "GraphValidationError",
        "Node",
        "NodeContext",
        "NodeInterruptedError",
        "RequestInput",
        "StateSchemaError",
        "WorkflowConfigurationError",
    },
    # google-genai's Part.file_data shape (docs/engine.md, Content and Part), and the code parts
    # of Gemini's built-in code execution (docs/tools.md).
    "yadk.types": {"CodeExecutionResult", "ExecutableCode", "FileData"},
    # ADK's names for the session service's arguments and results (docs/engine.md), and the
    # store chosen by URL (--db) that every command opens.
    "yadk.sessions": {
        "AlreadyExistsError",
        "GetSessionConfig",
        "ListSessionsResponse",
        "open_session_service",
        # docs/cli.md (yadk db): the default local store upgrades itself, copied aside first.
        "upgrade_local_store",
        # docs/engine.md (One turn at a time on a session): the runner's turn locks.
        "SessionBusy",
        "SessionLocks",
    },
    # docs/engine.md and docs/multi_agent.md: Agent = LlmAgent, RunConfig; docs/tracing.md:
    # google-adk's per-request telemetry settings.
    "yadk.agents": {"Agent", "RunConfig", "TelemetryConfig", "ContentCapturingMode"},
    # docs/templating.md: Placeholder fields, artifact rendering, the template cache.
    "yadk.templating": {"Placeholder", "artifact_to_text", "clear_template_caches"},
    # docs/models.md: the backends, the switch that forbids real calls, the registry.
    "yadk.models": {
        "ALLOW_MODEL_REQUESTS",
        "AnthropicLlm",
        "FunctionDeclaration",
        "Gemini",
        "OpenAIChat",
        "ScriptedTurn",
        "litellm_model",
        "override_allow_model_requests",
        "registered_providers",
        "serves",
    },
    # ADK's google.adk.tools exports ToolContext too (docs/engine.md, tools).
    # docs/tools.md: google-adk's current spelling of MCPToolset; closing an agent tree's toolsets.
    "yadk.tools": {
        "ToolContext",
        "McpToolset",
        "close_toolsets",
        "get_user_choice",
        # docs/tools.md: bypass_multi_tools_limit and the search sub-agent.
        "GoogleSearchTool",
        # docs/tools.md: asking the user to confirm a tool call.
        "ToolConfirmation",
    },
    # docs/memory.md: google-adk's entry and response models, the SQLite and PostgreSQL stores.
    "yadk.memory": {
        "MemoryEntry",
        "PostgresMemoryService",
        "SearchMemoryResponse",
        "SqliteMemoryService",
    },
    # docs/examples.md: agent cards.
    "yadk.examples": {"ExampleTool"},
    # docs/skills.md: the refreshable skill set and the config layer's toolset builder.
    "yadk.skills": {"SkillRegistry", "skill_toolset_from_paths"},
    # docs/config.md: loading with sources (the dev loop), severities, the trust policy.
    "yadk.config": {
        # docs/apps.md (app.yaml): the JSON Schema of app.yaml.
        "app_config_json_schema",
        "ARGS_ATTRIBUTE",
        "ConfigError",
        "LoadedAgent",
        "Severity",
        "TrustPolicy",
        "blocked_module",
        "find_trust_policy",
        "load_agent_with_sources",
        "resolve_config_path",
    },
    # docs/engine.md: an InvocationContext for testing agents directly; docs/eval.md: evaluate.
    "yadk.testing": {"evaluate", "invocation_context"},
    # The whole error tree drawn in yadk/errors.py's docstring.
    "yadk.errors": {
        "AgentDefinitionError",
        "ToolDeclarationError",
        "AgentLoadError",
        "A2AClientError",
        "AgentCardResolutionError",
        "AlreadyExistsError",
        "ArtifactError",
        "BudgetExceededError",
        "CallbackError",
        "ExampleError",
        "ImmutableEventError",
        "Located",
        "ModelCallLimitError",
        "PluginError",
        "ResumeError",
        "RunError",
        "SessionError",
        "SessionNotFoundError",
        "SessionStoreBusyError",
        "SessionStoreCorruptError",
        "SessionStoreError",
        "SessionStoreSchemaError",
        "SessionTooLargeError",
        "StaleSessionError",
        "TemplateKeyError",
        "TemplateSyntaxError",
        "TemplateValueError",
        "ToolErrorType",
        "ToolExecutionError",
        "TracingSetupError",
    },
}


@pytest.mark.parametrize("module_name", sorted(CONTRACT))
def test_all_is_exactly_the_documented_contract(module_name: str) -> None:
    module = importlib.import_module(module_name)
    exported = list(module.__all__)
    assert exported == sorted(exported)
    assert set(exported) == CONTRACT[module_name] | DOCUMENTED.get(module_name, set())
    assert [name for name in exported if not hasattr(module, name)] == []


def test_version_comes_from_the_package_metadata() -> None:
    import yadk

    assert yadk.__version__ == importlib.metadata.version("yadk")


def test_agent_is_llm_agent_and_callback_context_is_context() -> None:
    import yadk
    from yadk.agents import CallbackContext, Context

    assert yadk.Agent is yadk.LlmAgent
    assert CallbackContext is Context
