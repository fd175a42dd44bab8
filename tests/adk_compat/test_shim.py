"""Agent code written for google-adk runs without google-adk: the narrow import shim, the
static diagnostic for what it does not provide, and ``--no-adk-compat``."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from yadk import Runner
from yadk.adk_compat import disable, enable, installed, unprovided_imports
from yadk.adk_compat._table import target_available
from yadk.cli import main
from yadk.config import ConfigError, load_agent, validate_paths
from yadk.models import ScriptedModel

TOOLS = '''
from google.adk.tools.tool_context import ToolContext
from google.adk.agents.callback_context import CallbackContext
from google.adk.models import LlmRequest, LlmResponse
from google.genai import types


def remember(city: str, tool_context: ToolContext) -> dict:
    """Remember the city."""
    tool_context.state["city"] = city
    return {"status": "ok"}


def before_model(callback_context: CallbackContext, llm_request: LlmRequest) -> LlmResponse | None:
    if llm_request.contents and "forbidden" in str(llm_request.contents[-1].parts[0].text):
        return LlmResponse(content=types.Content(role="model", parts=[types.Part(text="No.")]))
    return None


SETTINGS = types.GenerateContentConfig(temperature=0.2)
'''

CONFIG = """
name: travel
model: gemini-2.5-flash
instruction: Help with travel.
tools:
  - name: travel.tools.remember
before_model_callbacks:
  - name: travel.tools.before_model
"""


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path) -> Iterator[None]:
    """The shim removed, and this test's agent modules forgotten, after each test."""
    path = list(sys.path)
    yield
    disable()
    enable()
    sys.path[:] = path
    for name, module in list(sys.modules.items()):
        if str(getattr(module, "__file__", None) or "").startswith(str(tmp_path)):
            del sys.modules[name]


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return root / "travel"


async def test_adk_style_code_loads_and_runs_on_yadk_types(tmp_path: Path) -> None:
    folder = write(
        tmp_path,
        {"travel/__init__.py": "", "travel/tools.py": TOOLS, "travel/root_agent.yaml": CONFIG},
    )
    agent = load_agent(folder)
    assert installed()
    model = ScriptedModel(
        turns=[
            {"function_calls": [{"name": "remember", "args": {"city": "Porto"}}]},
            {"text": "Ok"},
        ]
    )
    agent.model = model  # type: ignore[attr-defined]
    runner = Runner(app_name="app", agent=agent)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    texts = [
        e.text async for e in runner.run_async(user_id="u", session_id=session.id, new_message="Go")
    ]
    assert texts[-1] == "Ok"
    stored = await runner.session_service.get_session(
        app_name="app", user_id="u", session_id=session.id
    )
    assert stored is not None and stored.state["city"] == "Porto"
    refused = [
        e.text
        async for e in runner.run_async(user_id="u", session_id=session.id, new_message="forbidden")
    ]
    assert refused[-1] == "No."

    import google.genai.types as genai_types

    import yadk.types

    assert genai_types.Content is yadk.types.Content
    settings = genai_types.GenerateContentConfig(temperature=0.2)
    assert settings.model_dump(exclude_none=True) == {"temperature": 0.2}


def test_imports_the_shim_lacks_are_located_diagnostics(tmp_path: Path) -> None:
    tools = (
        "from google.adk.agents import LlmAgent\n"
        "import google.adk.cli.fast_api\n"
        "from google.adk.tools import ToolContext, VertexAiSearchTool, FunctionTools\n"
        "from google.adk.plugins import BasePlugin\n\n\ndef f() -> None:\n    pass\n"
    )
    config = "name: travel\nmodel: m\ninstruction: hi\ntools:\n  - name: travel.tools.f\n"
    folder = write(
        tmp_path,
        {"travel/__init__.py": "", "travel/tools.py": tools, "travel/root_agent.yaml": config},
    )
    file = folder / "tools.py"
    hint = (
        "\n  hint: Import what yadk offers instead (yadk's own API, or a google.adk name the"
        " shim serves: see docs/adk_compat.md)."
    )
    see = " See docs/adk_compat.md for what is provided."
    expected = [
        f"{file}:2:1: error adk-import: `google.adk.cli.fast_api` is not provided by yadk's"
        " google-adk compatibility layer (it serves google-adk's agents, events, tools, examples,"
        " runners, sessions, artifacts, memory, models, planners, code_executors, apps, plugins,"
        " workflow and telemetry modules). Import yadk's own API instead (see docs/adk_compat.md)."
        + hint,
        f"{file}:3:1: error adk-import: `google.adk.tools.VertexAiSearchTool` is not provided by"
        " yadk's google-adk compatibility layer: yadk has no Vertex AI Search tool; serve the"
        " search over MCP (`MCPToolset`) or wrap your client in a `FunctionTool`." + see + hint,
        f"{file}:3:1: error adk-import: `google.adk.tools.FunctionTools` does not exist in"
        " google-adk 2.13." + hint,
    ]
    if not target_available("yadk.apps:BasePlugin"):
        expected.append(
            f"{file}:4:1: error adk-import: `google.adk.plugins.BasePlugin` maps to"
            " `yadk.apps.BasePlugin`, which this installation of yadk does not have." + hint
        )
    assert [d.format() for d in validate_paths([folder])] == expected
    with pytest.raises(ConfigError, match="google.adk.cli"):
        load_agent(folder)


def test_unprovided_imports_table() -> None:
    source = (
        "import google.genai.types\nfrom google.genai import types\n"
        "from google.adk.models.llm_request import LlmRequest\nimport os\n"
        "from google.genai.types import Tool, Toolz\n"
        "from google.adk.tools.function_tool import FunctionTool\n"
        "from google.adk.tools.example_tool import ExampleTool\n"
        "from google.adk.agents import Agent, InvocationContext, CallbackContext\n"
        "from google.adk.events import Event as E, EventActions\n"
        "from google.adk.tools.load_memory_tool import LoadMemoryTool\n"
    )
    assert [(f.line, f.name, f.reason) for f in unprovided_imports(source)] == [
        (
            5,
            "google.genai.types.Toolz",
            "`google.genai.types.Toolz` does not exist in google-genai.",
        ),
        (
            10,
            "google.adk.tools.load_memory_tool.LoadMemoryTool",
            "`google.adk.tools.load_memory_tool.LoadMemoryTool` is not provided by yadk's"
            " google-adk compatibility layer: use the ready-made `load_memory`. See"
            " docs/adk_compat.md for what is provided.",
        ),
    ]


def test_no_adk_compat_turns_the_shim_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = write(
        tmp_path,
        {"travel/__init__.py": "", "travel/tools.py": TOOLS, "travel/root_agent.yaml": CONFIG},
    )
    monkeypatch.chdir(tmp_path)
    assert main(["--no-adk-compat", "inspect", str(folder)]) != 0
    err = capsys.readouterr().err
    assert "ModuleNotFoundError: No module nam" in err
    assert not installed()
    assert main(["inspect", str(folder)]) == 0
    assert installed()
