"""yadk validate of Python agent folders: statically always, by importing only when trusted."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess

ADK_PYTHON = Path("/opt/adkvenv/bin/python")
SRC = Path(__file__).resolve().parents[2] / "src"

GOOD = """\
from yadk import LlmAgent
from yadk.agents import SequentialAgent

first = LlmAgent(name="first", model="gemini-2.5-flash", instruction="Write.", output_key="draft")
second = LlmAgent(name="second", model="gemini-2.5-flash", instruction="Review {draft}, {drafts}.")
root_agent = SequentialAgent(name="pipe", sub_agents=[first, second])
"""


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def yadk(cwd: Path, *args: str, python: str = sys.executable) -> tuple[int, str]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run(
        [python, "-m", "yadk.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )
    assert not done.stderr, done.stderr
    return done.returncode, done.stdout


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path / "pyproject.toml", '[tool.yadk]\ntrusted_modules = ["pipe", "broken"]\n')
    write(tmp_path / "agents" / "pipe" / "agent.py", GOOD)
    write(tmp_path / "agents" / "pipe" / "__init__.py", "from . import agent\n")
    write(tmp_path / "agents" / "syntax" / "agent.py", 'root_agent = LlmAgent(name="x"\n')
    write(
        tmp_path / "agents" / "adk" / "agent.py",
        "from google.adk.tools.tool_context import ToolContext\n"
        "from google.adk.tools import VertexAiSearchTool\n\nroot_agent = None\n",
    )
    write(
        tmp_path / "agents" / "broken" / "agent.py",
        "from yadk import LlmAgent\n\nroot_agent = LlmAgent(\n"
        '    name="b", model="gemini-2.5-flash", tools=[42]\n)\n',
    )
    # A module called agent.py that never mentions root_agent is not an agent folder.
    write(tmp_path / "agents" / "lib" / "agent.py", "def helper() -> int:\n    return 1\n")
    return tmp_path


STATIC = (
    "agents/adk/agent.py:2:1: error adk-import: `google.adk.tools.VertexAiSearchTool` is not"
    " provided by yadk's google-adk compatibility layer: yadk has no Vertex AI Search tool;"
    " serve the search over MCP (`MCPToolset`) or wrap your client in a `FunctionTool`. See"
    " docs/adk_compat.md for what is provided.\n"
    "  hint: Import what yadk offers instead (yadk's own API, or a google.adk name the shim"
    " serves: see docs/adk_compat.md).\n"
    "agents/syntax/agent.py:1:22: error syntax-error: Python syntax error: '(' was never"
    " closed.\n"
    "  hint: Fix the code in agent.py; validate reads it without importing it.\n"
)


def test_validate_dot_finds_python_agents_and_checks_them_statically(project: Path) -> None:
    assert yadk(project, "validate", ".") == (1, STATIC + "2 errors in 4 agents\n")


def test_import_checks_trusted_agents_and_says_which_it_did_not_import(project: Path) -> None:
    code, out = yadk(project, "validate", "--import", ".")
    assert code == 1
    assert out == (
        STATIC[: STATIC.index("agents/syntax")]
        + "agents/broken/agent.py:3:1: error import-failed: Importing `broken.agent` failed:"
        " AgentDefinitionError: Invalid LlmAgent 'b': tools: 42 is not a tool: expected a"
        " function, a BaseTool, a BaseToolset, a Workflow or a workflow node\n"
        "  hint: Fix the error in the agent's code.\n"
        "agents/pipe/agent.py:5:89: warning placeholder-unknown-key: `{drafts}` reads state key"
        " `drafts`, which nothing writes: no agent's output_key, no tool or callback.\n"
        "  hint: Did you mean `{draft}`?\n"
        + STATIC[STATIC.index("agents/syntax") :]
        + "3 errors, 1 warning in 4 agents\n"
    )


def test_an_untrusted_folder_is_not_imported(project: Path) -> None:
    (project / "pyproject.toml").write_text("[tool.yadk]\n")
    code, out = yadk(project, "validate", "--import", "agents/pipe")
    assert (code, out) == (
        0,
        "agents/pipe/agent.py:6:1: warning untrusted-python-agent: `pipe` was not imported:"
        " --import runs a Python agent's code only when the project trusts its package; only"
        " the static checks ran.\n"
        '  hint: Add `trusted_modules = ["pipe"]` under [tool.yadk] in the project\'s'
        " pyproject.toml, or run `yadk --trust pipe validate --import ...`.\n"
        "1 warning in 1 agent\n",
    )
    code, out = yadk(project, "--trust", "pipe", "validate", "--import", "agents/pipe")
    assert (code, out.splitlines()[0]) == (
        0,
        "agents/pipe/agent.py:5:89: warning placeholder-unknown-key: `{drafts}` reads state key"
        " `drafts`, which nothing writes: no agent's output_key, no tool or callback.",
    )


def test_a_named_folder_without_root_agent_says_so(project: Path) -> None:
    assert yadk(project, "validate", "agents/lib") == (
        1,
        "agents/lib/agent.py:1:1: error missing-root-agent: agent.py defines no `root_agent`.\n"
        "  hint: Define the agent as `root_agent = LlmAgent(...)` (from yadk import LlmAgent),"
        " or add a root_agent.yaml to the folder.\n"
        "1 error in 1 agent\n",
    )


@pytest.mark.skipif(not ADK_PYTHON.exists(), reason="needs google-adk 2.13 in /opt/adkvenv")
@pytest.mark.slow
@pytest.mark.subprocess
def test_a_google_adk_root_agent_is_named_as_such_without_the_shim(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.yadk]\ntrusted_modules = ["shop"]\n')
    write(
        tmp_path / "shop" / "agent.py",
        "from google.adk.agents import LlmAgent\n\n"
        'root_agent = LlmAgent(name="shop", model="gemini-2.5-flash", instruction="Sell.")\n',
    )
    # With google-adk installed the shim still serves the agent's imports: it validates clean.
    assert yadk(tmp_path, "validate", "--import", "shop", python=str(ADK_PYTHON)) == (
        0,
        "no problems found in 1 agent\n",
    )
    command = ("--no-adk-compat", "validate", "--import", "shop")
    assert yadk(tmp_path, *command, python=str(ADK_PYTHON)) == (
        1,
        "shop/agent.py:3:1: error adk-object: `root_agent` is a google-adk `LlmAgent` object"
        " (`google.adk.agents.llm_agent.LlmAgent`), expected a yadk agent: yadk runs its own"
        " objects, not google-adk's.\n"
        "  hint: Build it with `yadk.LlmAgent` (google-adk's arguments) in that module, or name"
        " it in YAML (e.g. a sub-agent `config_path:`, a built-in tool `name:`).\n"
        "1 error in 1 agent\n",
    )
