"""``tools:``: built-ins by short or google-adk name, dotted functions, tools, toolsets, classes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from yadk.agents import LlmAgent
from yadk.config import ConfigError, load_agent, validate_paths
from yadk.tools import AgentTool, ExampleTool, FunctionTool, exit_loop, transfer_to_agent

WriteTree = Callable[[dict[str, str]], Path]

TOOLS_PY = '''
from yadk.tools import BaseTool, BaseToolset, FunctionTool


def search(query: str) -> str:
    """Search the web."""
    return query


search_tool = FunctionTool(search, name="web_search")


class Greeter(BaseTool):
    yadk_config_args = {"greeting"}

    def __init__(self, greeting: str = "hi", secret: str = "") -> None:
        super().__init__(name="greet", description="Greets.")
        self.greeting = greeting
        self.secret = secret


class Plain(BaseTool):
    def __init__(self, level: int = 0) -> None:
        super().__init__(name="plain", description="Plain.")
        self.level = level


class Pair(BaseToolset):
    async def get_tools(self, readonly_context=None):
        return [FunctionTool(search)]


pair = Pair()


def make_tool(prefix: str) -> FunctionTool:
    return FunctionTool(search, name=prefix + "_search")


make_tool.yadk_config_args = ["prefix"]

COUNT = 3
'''


def load(write_tree: WriteTree, tools_yaml: str, **files: str) -> LlmAgent:
    root = write_tree(
        {
            "my_agent/root_agent.yaml": f"name: a\ninstruction: hi\ntools:\n{tools_yaml}",
            "my_agent/tools.py": TOOLS_PY,
            **files,
        }
    )
    agent = load_agent(root / "my_agent")
    assert isinstance(agent, LlmAgent)
    return agent


def errors(
    write_tree: WriteTree, tools_yaml: str, **files: str
) -> list[tuple[int, int, str, str, str]]:
    with pytest.raises(ConfigError) as caught:
        load(write_tree, tools_yaml, **files)
    return [(d.line, d.column, d.rule, d.message, d.hint) for d in caught.value.diagnostics]


@pytest.mark.parametrize(
    "spelling",
    [
        "exit_loop",
        "google.adk.tools.exit_loop",
        "google.adk.tools.exit_loop_tool.exit_loop",
        "yadk.tools.exit_loop",
    ],
)
def test_exit_loop_spellings(write_tree: WriteTree, spelling: str) -> None:
    assert load(write_tree, f"  - name: {spelling}\n").tools == [exit_loop]


def test_plain_string_entries(write_tree: WriteTree) -> None:
    agent = load(write_tree, "  - transfer_to_agent\n  - .tools.search\n")
    from my_agent import tools  # type: ignore[import-not-found]

    assert agent.tools == [transfer_to_agent, tools.search]


def test_function_tool_instance_and_toolset(write_tree: WriteTree) -> None:
    agent = load(
        write_tree,
        "  - name: my_agent.tools.search\n  - name: .tools.search_tool\n  - name: .tools.pair\n",
    )
    from my_agent import tools

    assert agent.tools == [tools.search, tools.search_tool, tools.pair]
    assert [t.name for t in agent.tool_units() if isinstance(t, FunctionTool)] == [
        "search",
        "web_search",
    ]


def test_tool_class_with_declared_args(write_tree: WriteTree) -> None:
    agent = load(write_tree, "  - name: .tools.Greeter\n    args: {greeting: hello}\n")
    (tool,) = agent.tools
    assert (type(tool).__name__, tool.greeting) == ("Greeter", "hello")


def test_tool_class_without_args_is_instantiated(write_tree: WriteTree) -> None:
    agent = load(write_tree, "  - name: .tools.Plain\n")
    (tool,) = agent.tools
    assert (type(tool).__name__, tool.level) == ("Plain", 0)


def test_factory_function_with_declared_args(write_tree: WriteTree) -> None:
    agent = load(write_tree, "  - name: .tools.make_tool\n    args:\n      prefix: docs\n")
    (tool,) = agent.tools
    assert tool.name == "docs_search"


def test_adk_list_form_of_args(write_tree: WriteTree) -> None:
    agent = load(
        write_tree,
        "  - name: .tools.make_tool\n    args:\n      - name: prefix\n        value: old\n",
    )
    assert agent.tools[0].name == "old_search"


def test_undeclared_arg_is_refused(write_tree: WriteTree) -> None:
    assert errors(write_tree, "  - name: .tools.Greeter\n    args: {greeting: x, secret: y}\n") == [
        (
            5,
            25,
            "args-not-allowed",
            "`my_agent.tools.Greeter` does not accept `secret` from YAML.",
            (
                "It declares yadk_config_args = ['greeting']; add the name there if it is safe to "
                "take from a config."
            ),
        )
    ]


def test_class_without_declaration_gets_no_args(write_tree: WriteTree) -> None:
    assert errors(write_tree, "  - name: .tools.Plain\n    args: {level: 2}\n") == [
        (
            5,
            11,
            "args-not-allowed",
            (
                "`my_agent.tools.Plain` may not receive `args` from YAML: it does not declare which "
                "arguments are safe."
            ),
            (
                'Declare them on the class or function (`yadk_config_args = {"arg", ...}`), or trust '
                'it in pyproject.toml: [tool.yadk] allow_args = ["my_agent.tools.Plain"].'
            ),
        )
    ]


@pytest.mark.parametrize(
    "pyproject",
    [
        '[tool.yadk]\nallow_args = ["my_agent.tools.Plain"]\n',
        '[tool.yadk]\ntrusted_modules = ["my_agent"]\n',
    ],
)
def test_project_can_trust_args(
    write_tree: WriteTree, pyproject: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # trust comes from the project root the user runs in
    agent = load(
        write_tree,
        "  - name: .tools.Plain\n    args: {level: 2}\n",
        **{"pyproject.toml": pyproject},
    )
    assert agent.tools[0].level == 2


def test_invalid_trust_table_is_reported(
    write_tree: WriteTree, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    root = write_tree(
        {
            "pyproject.toml": '[tool.yadk]\ntrusted_modules = "my_agent"\nallow_args = ["os.system"]\n',
            "my_agent/root_agent.yaml": "name: a\ninstruction: hi\ntools:\n  - name: .tools.Plain\n    args: {level: 1}\n",
            "my_agent/tools.py": TOOLS_PY,
        }
    )
    found = [
        (Path(d.path).name, d.rule, d.message)
        for d in validate_paths([root / "my_agent"], import_code=True)
    ]
    assert found == [
        (
            "pyproject.toml",
            "pyproject-invalid",
            "[tool.yadk] trusted_modules must be a list of strings",
        ),
        (
            "pyproject.toml",
            "pyproject-invalid",
            "[tool.yadk] allow_args cannot trust 'os.system': the 'os' module is always blocked",
        ),
        (
            "root_agent.yaml",
            "args-not-allowed",
            (
                "`my_agent.tools.Plain` may not receive `args` from YAML: it does not declare which "
                "arguments are safe."
            ),
        ),
    ]


def test_example_tool_from_args(write_tree: WriteTree) -> None:
    agent = load(
        write_tree,
        """
  - name: google.adk.tools.example_tool.ExampleTool
    args:
      examples:
        - input: {role: user, parts: [{text: ping}]}
          output: [{role: model, parts: [{text: pong}]}]
      cache_size: 4
""",
    )
    (tool,) = agent.tools
    assert isinstance(tool, ExampleTool)
    assert tool.cache_size == 4
    assert [e.output[0].parts[0].text for e in tool.static_examples or []] == ["pong"]


def test_agent_tool_from_config_path(write_tree: WriteTree) -> None:
    agent = load(
        write_tree,
        """
  - name: AgentTool
    args:
      agent: {config_path: helpers/summarizer.yaml}
      skip_summarization: true
  - name: google.adk.tools.agent_tool.AgentTool
    args: {agent: {code: my_agent.agents.checker}}
""",
        **{
            "my_agent/helpers/summarizer.yaml": "name: summarizer\ndescription: Sums up.\ninstruction: Sum up.\n",
            "my_agent/agents.py": "from yadk import LlmAgent\nchecker = LlmAgent(name='checker', instruction='x')\n",
        },
    )
    first, second = agent.tools
    assert isinstance(first, AgentTool) and isinstance(second, AgentTool)
    assert (first.name, first.description, first.skip_summarization) == (
        "summarizer",
        "Sums up.",
        True,
    )
    assert (second.name, second.skip_summarization) == ("checker", False)
    # An AgentTool's agent is its own tree: it has no parent.
    assert first.agent.parent_agent is None


def test_agent_tool_needs_an_agent(write_tree: WriteTree) -> None:
    assert errors(write_tree, "  - name: AgentTool\n    args: {skip_summarization: yes}\n")[0][
        :4
    ] == (5, 11, "missing-field", "AgentTool needs `args.agent`.")
