"""With google-adk installed, a config naming google-adk's objects says so, and what to write;
the shim stays off. Runs yadk under the google-adk 2.13 venv when it exists."""

from __future__ import annotations

import os
import subprocess
import textwrap
from pathlib import Path

import pytest

from yadk.config import validate_paths

ADK_PYTHON = Path("/opt/adkvenv/bin/python")
SRC = Path(__file__).resolve().parents[2] / "src"

AGENTS = """
from google.adk.agents import BaseAgent, LlmAgent
from google.adk.tools.example_tool import ExampleTool

helper = LlmAgent(name="helper", model="gemini-2.5-flash", instruction="Help.")
examples = ExampleTool(examples=[])


class Custom(BaseAgent):
    pass
"""

SCRIPT = """
from yadk.adk_compat import installed, real_package_importable
from yadk.config import validate_paths

for config in ("shop/root_agent.yaml", "shop/custom.yaml"):
    for d in validate_paths([config], import_code=True):
        print(d.format())
print("shim installed:", installed(), "google-adk importable:", real_package_importable("google.adk"))
"""

HINT_TAIL = (
    " in that module, or name it in YAML (e.g. a sub-agent `config_path:`, a built-in tool"
    " `name:`)."
)


@pytest.mark.skipif(not ADK_PYTHON.exists(), reason="needs google-adk 2.13 in /opt/adkvenv")
@pytest.mark.subprocess
def test_google_adk_objects_are_named_as_such(tmp_path: Path) -> None:
    shop = tmp_path / "shop"
    shop.mkdir()
    (shop / "__init__.py").write_text("")
    (shop / "agents.py").write_text(textwrap.dedent(AGENTS))
    (shop / "root_agent.yaml").write_text(
        "name: shop\nmodel: gemini-2.5-flash\ninstruction: Sell.\nsub_agents:\n"
        "  - code: shop.agents.helper\ntools:\n  - name: shop.agents.examples\n"
    )
    (shop / "custom.yaml").write_text("agent_class: shop.agents.Custom\nname: c\n")
    done = subprocess.run(
        [str(ADK_PYTHON), "-c", SCRIPT],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "shop/root_agent.yaml:5:11: error adk-object: `shop.agents.helper` is a google-adk"
        " `LlmAgent` object (`google.adk.agents.llm_agent.LlmAgent`), expected an agent instance"
        " (e.g. `my_agent = LlmAgent(...)`): yadk runs its own objects, not google-adk's.",
        "  hint: Build it with `yadk.LlmAgent` (google-adk's arguments)" + HINT_TAIL,
        "shop/root_agent.yaml:7:11: error adk-object: `shop.agents.examples` is a google-adk"
        " `ExampleTool` object (`google.adk.tools.example_tool.ExampleTool`), expected a"
        " function, a tool, a toolset, or a tool class: yadk runs its own objects, not"
        " google-adk's.",
        "  hint: Build it with `yadk.tools.ExampleTool` (google-adk's arguments)" + HINT_TAIL,
        "shop/custom.yaml:1:14: error adk-object: `shop.agents.Custom` is a subclass of"
        " google-adk's `BaseAgent` (`google.adk.agents.base_agent.BaseAgent`), expected a"
        " BaseAgent subclass: yadk runs its own objects, not google-adk's.",
        "  hint: Build it with `yadk.agents.BaseAgent` (google-adk's arguments)" + HINT_TAIL,
        "shim installed: False google-adk importable: True",
    ]


def test_unsupported_tool_classes_get_a_class_hint(tmp_path: Path) -> None:
    folder = tmp_path / "a"
    folder.mkdir()
    config = folder / "root_agent.yaml"
    config.write_text("name: a\nmodel: m\ninstruction: hi\ntools:\n  - name: VertexAiSearchTool\n")
    assert [d.format() for d in validate_paths([folder])] == [
        f"{config}:5:11: error unsupported-tool: `VertexAiSearchTool` is a google-adk built-in"
        " tool that yadk does not provide.\n  hint: Write the tool as a BaseTool or BaseToolset"
        " subclass (or a function) in your agent package and reference it by dotted name (e.g."
        " `name: .tools.my_tool`)."
    ]
