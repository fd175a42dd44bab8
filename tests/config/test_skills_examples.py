"""The yadk ``skills:`` and ``examples:`` keys, and the SkillToolset / ExampleTool built-ins."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from yadk.agents import LlmAgent
from yadk.config import ConfigError, load_agent
from yadk.skills import SkillToolset
from yadk.tools import ExampleTool

WriteTree = Callable[[dict[str, str]], Path]

SKILL = "---\nname: {name}\ndescription: Does {name} things.\n---\nHow to {name}.\n"
EXAMPLE = (
    "- input: {role: user, parts: [{text: hi}]}\n  output: [{role: model, parts: [{text: yo}]}]\n"
)
PROVIDERS_PY = """
from yadk.examples import BaseExampleProvider, Example


class Store(BaseExampleProvider):
    def get_examples(self, query):
        return []


store = Store()
"""


def load(write_tree: WriteTree, body: str, **files: str) -> LlmAgent:
    root = write_tree({"my_agent/root_agent.yaml": f"name: a\ninstruction: hi\n{body}", **files})
    agent = load_agent(root / "my_agent")
    assert isinstance(agent, LlmAgent)
    return agent


def skill_files(*names: str, folder: str = "skills") -> dict[str, str]:
    return {f"my_agent/{folder}/{n}/SKILL.md": SKILL.format(name=n) for n in names}


@pytest.mark.parametrize(
    "body",
    [
        "skills: skills\n",
        "skills: [skills/review, skills/summarize]\n",
        "tools:\n  - name: SkillToolset\n    args: {skills: [skills], allow_scripts: false}\n",
        "tools:\n  - name: google.adk.tools.skill_toolset.SkillToolset\n    args: {skills: skills}\n",
    ],
)
def test_skills_become_a_skill_toolset(write_tree: WriteTree, body: str) -> None:
    agent = load(write_tree, body, **skill_files("review", "summarize"))
    (toolset,) = agent.tools
    assert isinstance(toolset, SkillToolset)
    assert sorted(s.name for s in toolset.skills) == ["review", "summarize"]


def test_skill_problems_are_reported_with_their_files(write_tree: WriteTree) -> None:
    with pytest.raises(ConfigError) as caught:
        load(
            write_tree,
            "skills: [skills, missing]\n",
            **skill_files("good"),
            **{"my_agent/skills/bad/SKILL.md": "---\nname: bad\n---\nBody.\n"},
        )
    assert [(Path(d.path).name, d.line, d.column, d.rule) for d in caught.value.diagnostics] == [
        ("root_agent.yaml", 3, 18, "file-not-found"),
        ("SKILL.md", 1, 1, "skill-description-required"),
    ]


@pytest.mark.parametrize(
    ("body", "files"),
    [
        (
            "examples:\n" + EXAMPLE.replace("- ", "  - ", 1).replace("\n  output", "\n    output"),
            {},
        ),
        ("examples: examples.yaml\n", {"my_agent/examples.yaml": EXAMPLE}),
        (
            "examples: data/examples.jsonl\n",
            {
                "my_agent/data/examples.jsonl": '{"input": {"role": "user", "parts": [{"text": "hi"}]}, '
                '"output": [{"role": "model", "parts": [{"text": "yo"}]}]}\n'
            },
        ),
        (
            "examples: {examples: examples.yaml, cache_size: 2}\n",
            {"my_agent/examples.yaml": EXAMPLE},
        ),
    ],
)
def test_static_examples(write_tree: WriteTree, body: str, files: dict[str, str]) -> None:
    agent = load(write_tree, body, **files)
    (tool,) = agent.tools
    assert isinstance(tool, ExampleTool)
    assert [e.output[0].parts[0].text for e in tool.static_examples or []] == ["yo"]


@pytest.mark.parametrize(
    "body",
    [
        "examples: .providers.store\n",
        "tools:\n  - name: ExampleTool\n    args: {examples: my_agent.providers.store, timeout: 2}\n",
    ],
)
def test_example_provider(write_tree: WriteTree, body: str) -> None:
    agent = load(write_tree, body, **{"my_agent/providers.py": PROVIDERS_PY})
    (tool,) = agent.tools
    assert isinstance(tool, ExampleTool)
    assert type(tool.provider).__name__ == "Store"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "examples: .providers.Store\n",
            (
                3,
                11,
                "wrong-kind",
                (
                    "`my_agent.providers.Store` is a class: example provider must be an instance of "
                    "BaseExampleProvider."
                ),
            ),
        ),
        (
            "examples: .providers.nope\n",
            (
                3,
                11,
                "attribute-not-found",
                (
                    "Invalid fully qualified name: .providers.nope. Module `my_agent.providers`"
                    " has no attribute `nope`."
                ),
            ),
        ),
        (
            "examples: missing.yaml\n",
            (
                3,
                11,
                "file-not-found",
                "Examples file `missing.yaml` not found (looked for {dir}/missing.yaml).",
            ),
        ),
        (
            "examples:\n  - input: {role: user, parts: [{text: hi}]}\n    output: [{role: model, partz: []}]\n",
            (5, 28, "invalid-examples", "example 0: output[0].partz: unknown field 'partz'"),
        ),
        (
            "examples: 42\n",
            (
                3,
                11,
                "wrong-type",
                (
                    "`examples` must be a list of examples, a file path or a provider's dotted name, "
                    "got an integer."
                ),
            ),
        ),
    ],
)
def test_example_errors(
    write_tree: WriteTree, body: str, expected: tuple[int, int, str, str]
) -> None:
    root = write_tree({"my_agent/providers.py": PROVIDERS_PY})
    with pytest.raises(ConfigError) as caught:
        load(write_tree, body)
    found = [(d.line, d.column, d.rule, d.message) for d in caught.value.diagnostics]
    line, column, rule, message = expected
    assert found == [(line, column, rule, message.format(dir=root / "my_agent"))]


def test_example_file_errors_point_into_the_file(write_tree: WriteTree) -> None:
    root = write_tree(
        {
            "my_agent/examples.jsonl": '{"input": {"role": "user", "parts": []}, "output": []}\n{"output": 3}\n'
        }
    )
    with pytest.raises(ConfigError) as caught:
        load(write_tree, "examples: examples.jsonl\n")
    (problem,) = caught.value.diagnostics
    assert (problem.path, problem.line, problem.rule) == (
        str(root / "my_agent" / "examples.jsonl"),
        2,
        "invalid-examples",
    )
    assert not problem.message.startswith(str(root))
