"""The names google-adk agent code imports, served by the shim: what each is in yadk, the
adapters that take google-adk's arguments, and google-genai's types."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import yadk.agents
import yadk.events
import yadk.examples
import yadk.sessions
import yadk.tools
import yadk.types
from yadk.adk_compat import disable, enable, install, provided_names
from yadk.adk_compat._surface import SURFACE
from yadk.models import LlmRequest, LlmResponse, ScriptedModel


@pytest.fixture(autouse=True)
def _shim() -> Iterator[None]:
    install()
    yield
    disable()
    enable()


# module -> {name: yadk's object (None: a compatibility adapter, checked below)}
EXPECTED = {
    "google.adk": {"Agent": None, "Context": yadk.agents.Context, "Event": yadk.events.Event},
    "google.adk.agents": {
        "BaseAgent": yadk.agents.BaseAgent,
        "SequentialAgent": yadk.agents.SequentialAgent,
        "ParallelAgent": yadk.agents.ParallelAgent,
        "LoopAgent": yadk.agents.LoopAgent,
        "InvocationContext": yadk.agents.InvocationContext,
        "CallbackContext": yadk.agents.CallbackContext,
        "ReadonlyContext": yadk.agents.ReadonlyContext,
        "RunConfig": None,
    },
    "google.adk.events": {"Event": yadk.events.Event, "EventActions": yadk.events.EventActions},
    "google.adk.tools": {
        "FunctionTool": yadk.tools.FunctionTool,
        "AgentTool": yadk.tools.AgentTool,
        "ExampleTool": yadk.tools.ExampleTool,
        "LongRunningFunctionTool": yadk.tools.LongRunningFunctionTool,
        "ToolContext": yadk.agents.ToolContext,
        "BaseTool": yadk.tools.BaseTool,
        "BaseToolset": yadk.tools.BaseToolset,
        "MCPToolset": yadk.tools.MCPToolset,
        "google_search": yadk.tools.google_search,
        "load_artifacts": yadk.tools.load_artifacts,
        "load_memory": yadk.tools.load_memory,
        "preload_memory": yadk.tools.preload_memory,
        "exit_loop": yadk.tools.exit_loop,
        "get_user_choice": yadk.tools.get_user_choice,
        "transfer_to_agent": yadk.tools.transfer_to_agent,
    },
    "google.adk.examples": {
        "Example": yadk.examples.Example,
        "BaseExampleProvider": yadk.examples.BaseExampleProvider,
    },
    "google.adk.sessions": {
        "InMemorySessionService": yadk.sessions.InMemorySessionService,
        "Session": yadk.sessions.Session,
        "State": yadk.sessions.State,
    },
    "google.adk.models": {"LlmRequest": LlmRequest, "LlmResponse": LlmResponse},
    "google.adk.agents.llm_agent": {"Agent": None, "LlmAgent": None},
    "google.adk.agents.callback_context": {"CallbackContext": yadk.agents.CallbackContext},
    "google.adk.agents.invocation_context": {"InvocationContext": yadk.agents.InvocationContext},
    "google.adk.tools.tool_context": {"ToolContext": yadk.agents.ToolContext},
    "google.adk.tools.function_tool": {"FunctionTool": yadk.tools.FunctionTool},
    "google.adk.tools.example_tool": {"ExampleTool": yadk.tools.ExampleTool},
    "google.adk.events.event": {"Event": yadk.events.Event},
    "google.adk.tools.mcp_tool.mcp_toolset": {"MCPToolset": yadk.tools.MCPToolset},
    "google.genai.types": {
        "Content": yadk.types.Content,
        "Part": yadk.types.Part,
        "FunctionCall": yadk.types.FunctionCall,
        "FunctionResponse": yadk.types.FunctionResponse,
        "Blob": yadk.types.Blob,
        "FileData": yadk.types.FileData,
        "ModelContent": yadk.types.ModelContent,
        "UserContent": yadk.types.UserContent,
    },
}


@pytest.mark.parametrize("module", sorted(EXPECTED))
def test_google_adk_names_are_yadks_objects(module: str) -> None:
    served = importlib.import_module(module)
    for name, expected in EXPECTED[module].items():
        value = getattr(served, name)
        if expected is not None:
            assert value is expected, f"{module}.{name}"


def test_google_adks_agent_classes_are_yadks() -> None:
    from google.adk import Agent, Runner
    from google.adk.agents import LlmAgent, RunConfig
    from google.adk.runners import InMemoryRunner

    import yadk.runner

    assert Agent is LlmAgent and issubclass(LlmAgent, yadk.agents.LlmAgent)
    assert issubclass(Runner, yadk.runner.Runner) and issubclass(InMemoryRunner, Runner)
    assert issubclass(RunConfig, yadk.agents.RunConfig)


def test_every_module_of_google_adk_imports() -> None:
    """Every module google-adk 2.13 has (in the packages the shim covers) imports, and its
    ``__all__`` lists exactly what it provides."""
    for module in SURFACE:
        served = importlib.import_module(module)
        assert sorted(served.__all__) == sorted(provided_names(module)), module


def test_genai_types_enums_and_models() -> None:
    from google.genai import types

    assert types.Type.STRING.value == "STRING" and types.Type("OBJECT") is types.Type.OBJECT
    assert [m.value for m in types.Modality][:3] == ["MODALITY_UNSPECIFIED", "TEXT", "IMAGE"]
    settings = types.GenerateContentConfig(
        temperature=0.1,
        safety_settings=[
            types.SafetySetting(
                category=types.HarmCategory.HARM_CATEGORY_HATE_SPEECH,
                threshold=types.HarmBlockThreshold.BLOCK_LOW_AND_ABOVE,
            )
        ],
        thinkingConfig=types.ThinkingConfig(thinking_budget=64),
        http_options=types.HttpOptions(timeout=3000),
        response_modalities=[types.Modality.TEXT],
    )
    assert settings.model_dump(exclude_none=True, mode="json") == {
        "temperature": 0.1,
        "safety_settings": [
            {"category": "HARM_CATEGORY_HATE_SPEECH", "threshold": "BLOCK_LOW_AND_ABOVE"}
        ],
        "thinking_config": {"thinking_budget": 64},
        "http_options": {"timeout": 3000},
        "response_modalities": ["TEXT"],
    }
    with pytest.raises(ValueError, match="temprature"):
        types.GenerateContentConfig(temprature=0.1)
    schema = types.Schema(type=types.Type.OBJECT, properties={"a": types.Schema(type="STRING")})
    assert schema.model_dump(exclude_none=True, mode="json") == {
        "type": "OBJECT",
        "properties": {"a": {"type": "STRING"}},
    }
    declaration = types.FunctionDeclaration(name="f", description="d", parameters=schema)
    assert types.Tool(function_declarations=[declaration]).function_declarations == [declaration]


def test_builtin_planner_sets_thinking_config() -> None:
    from google.adk.agents import LlmAgent
    from google.adk.planners import BuiltInPlanner
    from google.genai import types

    agent = LlmAgent(
        name="a",
        model="gemini-2.5-flash",
        generate_content_config=types.GenerateContentConfig(temperature=0.3),
        planner=BuiltInPlanner(
            thinking_config=types.ThinkingConfig(include_thoughts=True, thinking_budget=128)
        ),
    )
    assert agent.generate_content_config == {
        "temperature": 0.3,
        "thinking_config": {"include_thoughts": True, "thinking_budget": 128},
    }


def test_plan_re_act_planner_is_not_provided() -> None:
    with pytest.raises(ImportError) as raised:
        from google.adk.planners import PlanReActPlanner  # noqa: F401
    assert str(raised.value) == (
        "`google.adk.planners.PlanReActPlanner` is not provided by yadk's google-adk"
        " compatibility layer: use `BuiltInPlanner(thinking_config=...)` (the model's own"
        " thinking). See docs/adk_compat.md for what is provided."
    )


def test_lite_llm_builds_yadks_backends(monkeypatch: pytest.MonkeyPatch) -> None:
    from google.adk.models import Gemini, LiteLlm

    from yadk.models import AnthropicLlm, OpenAIChat

    monkeypatch.setenv("OLLAMA_API_BASE", "http://127.0.0.1:9")
    ollama = LiteLlm(model="ollama_chat/llama3")
    assert isinstance(ollama, OpenAIChat) and ollama.model == "llama3"
    assert str(ollama.base_url) == "http://127.0.0.1:9/v1"
    assert isinstance(LiteLlm(model="anthropic/claude-sonnet-4-5"), AnthropicLlm)
    assert isinstance(LiteLlm(model="gemini/gemini-2.5-flash"), Gemini)
    from yadk.errors import ModelError

    with pytest.raises(ModelError, match="provider 'bedrock' is not served"):
        LiteLlm(model="bedrock/claude")


@pytest.mark.parametrize(
    ("url", "store"),
    [
        ("sqlite:///./sessions.db", "sqlite:///./sessions.db"),
        ("sqlite+aiosqlite:///data/s.db", "sqlite:///data/s.db"),
        ("sqlite:////abs/s.db", "sqlite:////abs/s.db"),
        ("sqlite:///:memory:", ":memory:"),
        ("postgresql+asyncpg://u:p@127.0.0.1:5432/db", "postgresql://u:p@127.0.0.1:5432/db"),
        ("postgresql://u@h/db", "postgresql://u@h/db"),
    ],
)
def test_database_session_service_urls(url: str, store: str) -> None:
    from yadk.adk_compat._services import session_store_url

    assert session_store_url(url) == store


def test_database_session_service_rejects_other_databases() -> None:
    from google.adk.sessions import DatabaseSessionService

    with pytest.raises(ValueError) as raised:
        DatabaseSessionService("mysql+pymysql://u@h/db")
    assert str(raised.value) == (
        "DatabaseSessionService('mysql+pymysql://u@h/db'): yadk stores sessions in SQLite or"
        " PostgreSQL, not mysql; use a sqlite:///PATH or postgresql:// URL."
    )


async def test_a_google_adk_runner_loop_on_a_sqlite_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Runner(app_name, agent, session_service=DatabaseSessionService(url))`` as google-adk's
    docs write it, then the same session read again from the file."""
    from google.adk.agents import Agent
    from google.adk.runners import Runner
    from google.adk.sessions import DatabaseSessionService
    from google.adk.tools.tool_context import ToolContext
    from google.genai import types

    def remember(city: str, tool_context: ToolContext) -> dict[str, str]:
        """Remembers the city."""
        tool_context.state["user:city"] = city
        return {"status": "ok"}

    model = ScriptedModel(
        turns=[
            {"function_calls": [{"name": "remember", "args": {"city": "Porto"}}]},
            {"text": "Ok"},
        ]
    )
    agent = Agent(name="travel", model=model, instruction="Help.", tools=[remember])
    monkeypatch.chdir(tmp_path)
    service = DatabaseSessionService(db_url="sqlite+aiosqlite:///./sessions.db")
    assert isinstance(service, yadk.sessions.SqliteSessionService)
    runner = Runner(app_name="trips", agent=agent, session_service=service)
    session = await runner.session_service.create_session(app_name="trips", user_id="u")
    texts = []
    async for event in runner.run_async(
        user_id="u",
        session_id=session.id,
        new_message=types.Content(role="user", parts=[types.Part(text="Porto")]),
    ):
        if event.is_final_response() and event.content and event.content.parts:
            texts.append(event.content.parts[0].text)
    assert texts == ["Ok"]
    again = DatabaseSessionService("sqlite:///sessions.db")
    stored = await again.get_session(app_name="trips", user_id="u", session_id=session.id)
    assert stored is not None and stored.state["user:city"] == "Porto"
    assert [e.author for e in stored.events] == ["user", "travel", "travel", "travel"]


@pytest.mark.postgres
async def test_a_google_adk_runner_loop_on_a_postgresql_database(postgres_url: str) -> None:
    """google-adk's asyncpg URL reaches yadk's PostgreSQL store; a second service reads the
    session back."""
    from google.adk.agents import Agent
    from google.adk.runners import Runner
    from google.adk.sessions import DatabaseSessionService
    from google.genai import types

    url = postgres_url.replace("postgresql://", "postgresql+asyncpg://", 1)
    model = ScriptedModel(turns=[{"text": "Noted."}])
    service = DatabaseSessionService(db_url=url)
    assert not isinstance(service, yadk.sessions.SqliteSessionService)
    runner = Runner(
        app_name="trips", agent=Agent(name="travel", model=model), session_service=service
    )
    session = await service.create_session(app_name="trips", user_id="u", state={"k": 1})
    async for _ in runner.run_async(
        user_id="u", session_id=session.id, new_message=types.UserContent("Porto")
    ):
        pass
    again = DatabaseSessionService(url)
    stored = await again.get_session(app_name="trips", user_id="u", session_id=session.id)
    assert stored is not None and stored.state == {"k": 1}
    assert [e.author for e in stored.events] == ["user", "travel"]
    for opened in (service, again):
        await opened.close()  # google-adk's name; an open pool could outlive the loop


async def test_failures_are_raised_as_in_google_adk() -> None:
    from google.adk.agents import Agent
    from google.adk.runners import InMemoryRunner
    from google.genai import types

    from yadk.errors import ModelError

    runner = InMemoryRunner(agent=Agent(name="a", model=ScriptedModel(turns=[])))
    assert runner.app_name == "InMemoryRunner"
    session = await runner.session_service.create_session(app_name="InMemoryRunner", user_id="u")
    message = types.UserContent(parts=[types.Part(text="hi")])
    with pytest.raises(ModelError):
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message):
            pass


async def test_auto_create_session_and_yield_user_message() -> None:
    from google.adk.agents import Agent
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService
    from google.genai import types

    agent = Agent(name="a", model=ScriptedModel(turns=[{"text": "Hello"}]))
    runner = Runner(
        app_name="app",
        agent=agent,
        session_service=InMemorySessionService(),
        auto_create_session=True,
    )
    events = [
        (e.author, e.content.parts[0].text if e.content and e.content.parts else None)
        async for e in runner.run_async(
            user_id="u",
            session_id="s1",
            new_message=types.UserContent(parts=[types.Part(text="hi")]),
            yield_user_message=True,
        )
    ]
    assert events == [("user", "hi"), ("a", "Hello")]


def test_modules_are_not_imported_until_used() -> None:
    """Importing a shim module resolves none of its names (yadk.runner is imported only when
    ``Runner`` is used)."""
    for name in [n for n in sys.modules if n.startswith("google.adk")]:
        del sys.modules[name]
    module = importlib.import_module("google.adk.runners")
    assert "Runner" not in vars(module)


async def test_run_config_with_google_adks_streaming_mode() -> None:
    from google.adk.agents import Agent
    from google.adk.agents.run_config import RunConfig, StreamingMode
    from google.adk.runners import InMemoryRunner
    from google.genai import types

    with pytest.raises(ValueError, match="BIDI"):
        RunConfig(streaming_mode=StreamingMode.BIDI)
    config = RunConfig(streaming_mode=StreamingMode.SSE, max_llm_calls=5)
    assert (config.streaming, config.max_llm_calls) == (True, 5)
    runner = InMemoryRunner(agent=Agent(name="a", model=ScriptedModel(turns=[{"text": "Hi"}])))
    session = await runner.session_service.create_session(app_name="InMemoryRunner", user_id="u")
    events = [
        e
        async for e in runner.run_async(
            user_id="u",
            session_id=session.id,
            new_message=types.UserContent(parts=[types.Part(text="hi")]),
            run_config=config,
        )
    ]
    assert [(e.partial, e.content.parts[0].text) for e in events if e.content] == [
        (True, "Hi"),
        (None, "Hi"),
    ]


async def test_a_workflow_written_for_google_adk_runs_through_the_shim() -> None:
    from google.adk import Workflow
    from google.adk.events import Event
    from google.adk.events.event import NodeInfo
    from google.adk.runners import InMemoryRunner
    from google.adk.workflow import START, Node
    from google.adk.workflow._errors import NodeInterruptedError
    from google.genai import types

    import yadk.workflow

    assert (Workflow, Node, NodeInfo, NodeInterruptedError) == (
        yadk.workflow.Workflow,
        yadk.workflow.Node,
        yadk.events.NodeInfo,
        yadk.workflow.NodeInterruptedError,
    )

    def shout(node_input: str) -> str:
        return node_input.upper()

    def finish(node_input: str) -> Event:
        return Event(output=node_input + "!", state={"last": node_input})

    runner = InMemoryRunner(agent=Workflow(name="flow", edges=[(START, shout, finish)]))
    session = await runner.session_service.create_session(app_name="InMemoryRunner", user_id="u")
    message = types.UserContent(parts=[types.Part(text="hi")])
    outputs = [
        (e.node_info.path if e.node_info else None, e.output)
        async for e in runner.run_async(user_id="u", session_id=session.id, new_message=message)
        if e.output is not None
    ]
    assert outputs[-1][1] == "HI!"
    stored = await runner.session_service.get_session(
        app_name="InMemoryRunner", user_id="u", session_id=session.id
    )
    assert stored is not None and stored.state["last"] == "HI"
