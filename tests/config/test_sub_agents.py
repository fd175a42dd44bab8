"""Sub-agents from other config files and from code; custom agent classes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from yadk.agents import BaseAgent, LlmAgent, SequentialAgent
from yadk.config import ConfigError, load_agent, validate_paths

WriteTree = Callable[[dict[str, str]], Path]

AGENTS_PY = '''
from yadk.agents import BaseAgent, LlmAgent


class Echo(BaseAgent):
    """A custom agent whose fields come from YAML."""

    greeting: str = "hi"
    times: int = 1
    formatter: object = None

    async def _run_async_impl(self, ctx):
        return
        yield


class Careful(LlmAgent):
    strictness: int = 0


def shout(text):
    return text.upper()


reviewer = LlmAgent(name="reviewer", instruction="Review.", output_key="review")
team = LlmAgent(name="team", instruction="Lead.", sub_agents=[LlmAgent(name="member", instruction="m")])
'''


def tree(write_tree: WriteTree, root_yaml: str, **files: str) -> Path:
    return (
        write_tree(
            {"my_agent/root_agent.yaml": root_yaml, "my_agent/agents.py": AGENTS_PY, **files}
        )
        / "my_agent"
    )


def test_nested_config_paths_are_relative_to_their_file(write_tree: WriteTree) -> None:
    folder = tree(
        write_tree,
        "agent_class: SequentialAgent\nname: root\nsub_agents:\n  - config_path: team/lead.yaml\n",
        **{
            "my_agent/team/lead.yaml": "name: lead\ninstruction: lead\nsub_agents:\n"
            "  - config_path: members/one.yaml\n  - ../shared.yaml\n",
            "my_agent/team/members/one.yaml": "name: one\ninstruction: one\n",
            "my_agent/shared.yaml": "name: shared\ninstruction: shared\n",
        },
    )
    agent = load_agent(folder)
    assert isinstance(agent, SequentialAgent)
    lead = agent.sub_agents[0]
    assert [s.name for s in lead.sub_agents] == ["one", "shared"]
    assert lead.sub_agents[1].parent_agent is lead


def test_code_sub_agents(write_tree: WriteTree) -> None:
    folder = tree(
        write_tree,
        "name: root\ninstruction: hi\nsub_agents:\n  - code: .agents.reviewer\n"
        "  - code: my_agent.agents.team\n",
    )
    agent = load_agent(folder)
    from my_agent import agents  # type: ignore[import-not-found]

    assert agent.sub_agents == [agents.reviewer, agents.team]
    assert agents.reviewer.parent_agent is agent


def test_code_agent_loaded_twice_is_copied_for_the_second_tree(write_tree: WriteTree) -> None:
    folder = tree(write_tree, "name: root\ninstruction: hi\nsub_agents: [{code: .agents.team}]\n")
    first = load_agent(folder)
    second = load_agent(folder)
    assert first.sub_agents[0].parent_agent is first
    assert second.sub_agents[0].parent_agent is second
    assert second.sub_agents[0] is not first.sub_agents[0]
    assert second.sub_agents[0].sub_agents[0].parent_agent is second.sub_agents[0]


def test_duplicate_name_between_yaml_and_code(write_tree: WriteTree) -> None:
    folder = tree(
        write_tree,
        "name: root\ninstruction: hi\nsub_agents:\n  - code: .agents.team\n  - member.yaml\n",
        **{"my_agent/member.yaml": "name: member\ninstruction: m\n"},
    )
    with pytest.raises(ConfigError) as caught:
        load_agent(folder)
    (problem,) = caught.value.diagnostics
    assert (Path(problem.path).name, problem.line, problem.column, problem.rule) == (
        "member.yaml",
        1,
        7,
        "duplicate-agent-name",
    )
    assert problem.hint.startswith(f"The other one is at {folder / 'root_agent.yaml'}:4:11;")


def test_agent_reference_shapes(write_tree: WriteTree) -> None:
    folder = tree(
        write_tree,
        "name: root\ninstruction: hi\nsub_agents:\n"
        "  - {code: .agents.reviewer, config_path: x.yaml}\n  - {}\n  - 3\n",
    )
    with pytest.raises(ConfigError) as caught:
        load_agent(folder)
    assert [(d.line, d.column, d.rule, d.message) for d in caught.value.diagnostics] == [
        (
            4,
            6,
            "conflicting-fields",
            "An agent reference takes `config_path` or `code`, not both.",
        ),
        (5, 5, "missing-field", "An agent reference needs `config_path` or `code`."),
        (
            6,
            5,
            "wrong-type",
            "`sub_agents[2]` must be a mapping with `config_path` or `code`, got an integer.",
        ),
    ]


def test_custom_agent_class_with_extra_fields(write_tree: WriteTree) -> None:
    folder = tree(
        write_tree,
        "agent_class: SequentialAgent\nname: root\nsub_agents: [{config_path: echo.yaml}]\n",
        **{
            "my_agent/echo.yaml": "agent_class: .agents.Echo\nname: echo\ngreeting: hello\n"
            "times: 3\nformatter_code: .agents.shout\n"
            "before_agent_callbacks: [{name: .agents.shout}]\n"
        },
    )
    agent = load_agent(folder)
    echo = agent.sub_agents[0]
    from my_agent import agents

    assert type(echo).__name__ == "Echo"
    assert (echo.greeting, echo.times, echo.formatter) == ("hello", 3, agents.shout)
    assert echo.before_agent_callback == [agents.shout]


def test_custom_agent_class_field_errors(write_tree: WriteTree) -> None:
    folder = tree(
        write_tree,
        "agent_class: .agents.Echo\nname: echo\ntimes: many\ngreting: hello\ninstruction: x\n",
    )
    with pytest.raises(ConfigError) as caught:
        load_agent(folder)
    assert [(d.line, d.column, d.rule, d.message, d.hint) for d in caught.value.diagnostics] == [
        (
            3,
            8,
            "wrong-type",
            (
                "`times` is invalid for Echo: Input should be a valid integer, unable to parse "
                "string as an integer."
            ),
            "",
        ),
        (
            4,
            1,
            "unknown-key",
            "Unknown key `greting` in a BaseAgent config.",
            "Did you mean `greeting`?",
        ),
        (
            5,
            1,
            "unknown-key",
            "Unknown key `instruction` in a BaseAgent config.",
            "Only an LlmAgent takes `instruction`.",
        ),
    ]


def test_custom_llm_agent_subclass(write_tree: WriteTree) -> None:
    folder = tree(
        write_tree,
        "agent_class: my_agent.agents.Careful\nname: careful\nstrictness: 2\n"
        "instruction: Be careful.\ntools: [exit_loop]\n",
    )
    agent = load_agent(folder)
    assert type(agent).__name__ == "Careful"
    assert isinstance(agent, LlmAgent)
    assert (agent.strictness, agent.instruction) == (2, "Be careful.")


@pytest.mark.parametrize(
    ("agent_class", "rule", "message"),
    [
        (
            ".agents.shout",
            "wrong-kind",
            "`my_agent.agents.shout` is a function, expected a BaseAgent subclass.",
        ),
        (
            ".agents.Nope",
            "attribute-not-found",
            "Module `my_agent.agents` has no attribute `Nope`.",
        ),
    ],
)
def test_bad_custom_agent_class(
    write_tree: WriteTree, agent_class: str, rule: str, message: str
) -> None:
    folder = tree(write_tree, f"agent_class: {agent_class}\nname: x\n")
    for import_code in (False, True):
        found = [
            (d.line, d.column, d.rule, d.message)
            for d in validate_paths([folder], import_code=import_code)
        ]
        assert found == [(1, 14, rule, message)]


def test_custom_class_is_checked_statically_without_imports(write_tree: WriteTree) -> None:
    folder = tree(write_tree, "agent_class: .agents.Echo\nname: echo\ngreeting: hello\n")
    assert validate_paths([folder]) == []
    assert "my_agent.agents" not in __import__("sys").modules
    assert isinstance(load_agent(folder), BaseAgent)


def test_code_fields_of_an_unimported_class_are_checked(write_tree: WriteTree) -> None:
    folder = tree(
        write_tree, "agent_class: .agents.Echo\nname: echo\nformatter_code: .agents.shuot\n"
    )
    assert [(d.line, d.column, d.rule, d.hint) for d in validate_paths([folder])] == [
        (3, 17, "attribute-not-found", "Did you mean `shout`?")
    ]


def test_custom_class_constructor_failure(write_tree: WriteTree) -> None:
    folder = (
        write_tree(
            {
                "my_agent/root_agent.yaml": "agent_class: .picky.Picky\nname: picky\n",
                "my_agent/picky.py": "from yadk.agents import BaseAgent\n\n\n"
                "class Picky(BaseAgent):\n    def model_post_init(self, context):\n"
                "        raise RuntimeError('not today')\n",
            }
        )
        / "my_agent"
    )
    with pytest.raises(ConfigError) as caught:
        load_agent(folder)
    assert [(d.line, d.rule, d.message) for d in caught.value.diagnostics] == [
        (1, "invalid-agent", "Building Picky failed: RuntimeError: not today.")
    ]
