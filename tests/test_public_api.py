"""The public contract (ARCHITECTURE.md): every name exists, and each ``__all__`` is sorted."""

from __future__ import annotations

import importlib

import pytest

CONTRACT = {
    "yadk": [
        "__version__",
        "Agent",
        "LlmAgent",
        "SequentialAgent",
        "ParallelAgent",
        "LoopAgent",
        "Runner",
        "load_agent",
    ],
    "yadk.types": [
        "Content",
        "Part",
        "FunctionCall",
        "FunctionResponse",
        "Blob",
        "UserContent",
        "ModelContent",
    ],
    "yadk.sessions": [
        "State",
        "Session",
        "BaseSessionService",
        "InMemorySessionService",
        "SqliteSessionService",
        "StaleSessionError",
        "SessionNotFoundError",
    ],
    "yadk.events": ["Event", "EventActions"],
    "yadk.artifacts": ["BaseArtifactService", "InMemoryArtifactService", "FileArtifactService"],
    "yadk.agents": [
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
    ],
    "yadk.templating": ["inject_session_state", "InstructionProvider", "find_placeholders"],
    "yadk.models": [
        "BaseLlm",
        "LlmRequest",
        "LlmResponse",
        "ScriptedModel",
        "resolve_model",
        "register_model",
    ],
    "yadk.tools": [
        "BaseTool",
        "BaseToolset",
        "FunctionTool",
        "AgentTool",
        "ExampleTool",
        "ToolExecutionError",
        "ToolErrorType",
        "exit_loop",
        "transfer_to_agent",
    ],
    "yadk.examples": [
        "Example",
        "BaseExampleProvider",
        "convert_examples_to_text",
        "LexicalExampleStore",
    ],
    "yadk.skills": [
        "Frontmatter",
        "Skill",
        "Resources",
        "load_skill_from_dir",
        "load_skills_from_dir",
        "SkillToolset",
    ],
    "yadk.config": ["load_agent", "validate_paths", "Diagnostic", "agent_config_json_schema"],
    "yadk.testing": ["ScriptedModel", "readonly_context", "tool_context"],
    "yadk.errors": ["YadkError", "ConfigError", "TemplateError", "SkillError", "ModelError"],
}


@pytest.mark.parametrize("module_name", sorted(CONTRACT))
def test_contract_names_exist(module_name: str) -> None:
    module = importlib.import_module(module_name)
    missing = [name for name in CONTRACT[module_name] if not hasattr(module, name)]
    assert missing == []


@pytest.mark.parametrize("module_name", sorted(CONTRACT))
def test_all_is_sorted_and_complete(module_name: str) -> None:
    module = importlib.import_module(module_name)
    exported = list(getattr(module, "__all__", []))
    assert exported == sorted(exported)
    assert all(hasattr(module, name) for name in exported)


def test_agent_is_llm_agent_and_callback_context_is_context() -> None:
    import yadk
    from yadk.agents import CallbackContext, Context

    assert yadk.Agent is yadk.LlmAgent
    assert CallbackContext is Context
