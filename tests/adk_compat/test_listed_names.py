"""Every google-adk 2.13 name the compatibility docs promise, imported the way agent code
spells it, with google-adk absent: each comes from yadk's shim and is yadk's own object (or one
of the google-genai types the shim defines)."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
from collections.abc import Iterator
from typing import Any

import pytest

from yadk.adk_compat import disable, enable, install

# module path as agent code spells it -> the names it imports from there
LISTED: dict[str, tuple[str, ...]] = {
    "google.adk": ("Agent", "Context", "Event", "Runner", "Workflow"),
    "google.adk.agents": (
        "Agent",
        "LlmAgent",
        "BaseAgent",
        "SequentialAgent",
        "ParallelAgent",
        "LoopAgent",
        "InvocationContext",
        "CallbackContext",
        "ReadonlyContext",
        "RunConfig",
    ),
    "google.adk.agents.llm_agent": ("Agent", "LlmAgent"),
    "google.adk.agents.base_agent": ("BaseAgent",),
    "google.adk.agents.callback_context": ("CallbackContext",),
    "google.adk.agents.invocation_context": ("InvocationContext",),
    "google.adk.agents.readonly_context": ("ReadonlyContext",),
    "google.adk.agents.run_config": ("RunConfig",),
    "google.adk.agents.sequential_agent": ("SequentialAgent",),
    "google.adk.agents.parallel_agent": ("ParallelAgent",),
    "google.adk.agents.loop_agent": ("LoopAgent",),
    "google.adk.events": ("Event", "EventActions", "RequestInput"),
    "google.adk.events.event": ("Event",),
    "google.adk.events.event_actions": ("EventActions",),
    "google.adk.tools": (
        "FunctionTool",
        "AgentTool",
        "ExampleTool",
        "LongRunningFunctionTool",
        "ToolContext",
        "BaseTool",
        "BaseToolset",
        "MCPToolset",
        "google_search",
        "load_artifacts",
        "load_memory",
        "preload_memory",
        "exit_loop",
        "get_user_choice",
        "transfer_to_agent",
    ),
    "google.adk.tools.tool_context": ("ToolContext",),
    "google.adk.tools.function_tool": ("FunctionTool",),
    "google.adk.tools.agent_tool": ("AgentTool",),
    "google.adk.tools.example_tool": ("ExampleTool",),
    "google.adk.tools.long_running_tool": ("LongRunningFunctionTool",),
    "google.adk.tools.base_tool": ("BaseTool",),
    "google.adk.tools.base_toolset": ("BaseToolset",),
    "google.adk.tools.mcp_tool.mcp_toolset": ("MCPToolset",),
    "google.adk.examples": ("Example", "BaseExampleProvider"),
    "google.adk.runners": ("Runner", "InMemoryRunner"),
    "google.adk.sessions": (
        "InMemorySessionService",
        "DatabaseSessionService",
        "Session",
        "State",
    ),
    "google.adk.artifacts": ("InMemoryArtifactService", "FileArtifactService"),
    "google.adk.memory": ("InMemoryMemoryService",),
    "google.adk.models": ("BaseLlm", "LlmRequest", "LlmResponse", "Gemini", "LiteLlm"),
    "google.adk.models.lite_llm": ("LiteLlm",),
    "google.adk.models.llm_request": ("LlmRequest",),
    "google.adk.models.llm_response": ("LlmResponse",),
    "google.adk.plugins": ("BasePlugin",),
    "google.adk.plugins.base_plugin": ("BasePlugin",),
    "google.adk.apps": ("App",),
    "google.adk.workflow": (
        "Workflow",
        "START",
        "Edge",
        "FunctionNode",
        "JoinNode",
        "node",
        "RetryConfig",
        "NodeTimeoutError",
        "BaseNode",
    ),
    "google.adk.code_executors": ("BuiltInCodeExecutor",),
    "google.adk.planners": ("BuiltInPlanner",),
    "google.genai.types": (
        "Content",
        "Part",
        "ModelContent",
        "UserContent",
        "FunctionCall",
        "FunctionResponse",
        "Blob",
        "FileData",
        "GenerateContentConfig",
        "Schema",
        "Type",
        "Tool",
        "FunctionDeclaration",
        "SafetySetting",
        "HarmCategory",
        "HarmBlockThreshold",
        "ThinkingConfig",
        "HttpOptions",
        "Modality",
    ),
}

# Types the shim defines itself under google-genai's module name (no yadk counterpart).
SHIM_DEFINED = ("google.genai.types",)


@pytest.fixture(autouse=True)
def _shim() -> Iterator[None]:
    install()
    yield
    disable()
    enable()


def _home(value: Any) -> str:
    owner = (
        value
        if inspect.isclass(value) or inspect.isfunction(value) or inspect.ismodule(value)
        else type(value)
    )
    return str(owner.__module__)


def test_google_adk_itself_is_not_installed_here() -> None:
    """The suite's environment has no google-adk: what follows is the shim alone."""
    disable()
    try:
        assert importlib.util.find_spec("google.adk") is None
    except ModuleNotFoundError:
        pass
    finally:
        enable()


@pytest.mark.parametrize("module", sorted(LISTED))
def test_each_listed_name_imports_from_yadk(module: str) -> None:
    served = importlib.import_module(module)
    assert "yadk" in str(served.__spec__.loader), module
    for name in LISTED[module]:
        namespace: dict[str, Any] = {}
        exec(f"from {module} import {name}", namespace)
        value = namespace[name]
        home = _home(value)
        assert home.startswith("yadk.") or home in SHIM_DEFINED, f"{module}.{name}: {home}"


def test_the_shim_builds_what_google_adk_code_builds() -> None:
    from google.adk import Agent, Workflow
    from google.adk.planners import BuiltInPlanner
    from google.adk.sessions import DatabaseSessionService
    from google.adk.workflow import DEFAULT_ROUTE, START
    from google.genai import types

    import yadk.agents
    import yadk.workflow

    agent = Agent(name="helper", model="gemini-2.5-flash", instruction="Help.")
    assert isinstance(agent, yadk.agents.LlmAgent)
    flow = Workflow(name="flow", edges=[(START, agent)])
    assert isinstance(flow, yadk.workflow.Workflow)
    assert DEFAULT_ROUTE == yadk.workflow.DEFAULT_ROUTE
    planner = BuiltInPlanner(thinking_config=types.ThinkingConfig(thinking_budget=64))
    assert planner.thinking_config.thinking_budget == 64
    assert type(DatabaseSessionService(db_url="sqlite:///:memory:")).__module__.startswith("yadk")
    config = types.GenerateContentConfig(
        temperature=0.1,
        safety_settings=[
            types.SafetySetting(
                category=types.HarmCategory.HARM_CATEGORY_HATE_SPEECH,
                threshold=types.HarmBlockThreshold.BLOCK_ONLY_HIGH,
            )
        ],
        response_modalities=[types.Modality.TEXT],
    )
    assert config.safety_settings[0].threshold == "BLOCK_ONLY_HIGH"
