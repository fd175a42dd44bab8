"""Placeholder checks: near-misses always; unknown state keys against the declared ``state:``,
or, in plain ADK configs, against the writers inferred from output_keys and tool code."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from yadk.config import load_agent_with_sources, validate_paths

WriteTree = Callable[[dict[str, str]], Path]


def warnings(root: Path) -> list[str]:
    found = validate_paths([root / "my_agent"])
    assert all(d.severity == "warning" for d in found)
    return [d.format().replace(str(root / "my_agent") + "/", "") for d in found]


@pytest.mark.parametrize(
    ("instruction", "expected"),
    [
        (
            "instruction: Greet {customer name}.",
            [
                (
                    "root_agent.yaml:2:20: warning placeholder-near-miss: `{customer name}` is not a "
                    "placeholder and stays in the prompt as written: a state name cannot contain "
                    "spaces. Did you mean `{customer_name}`?"
                )
            ],
        ),
        (
            "instruction: 'Say {user :name}'",
            [
                (
                    "root_agent.yaml:2:19: warning placeholder-near-miss: `{user :name}` is not a "
                    "placeholder and stays in the prompt as written: no spaces are allowed around "
                    "`:`. Did you mean `{user:name}`?"
                )
            ],
        ),
        (
            "instruction: |\n  First line.\n  Then {name with space}.\n",
            [
                (
                    "root_agent.yaml:4:8: warning placeholder-near-miss: `{name with space}` is not "
                    "a placeholder and stays in the prompt as written: a state name cannot contain "
                    "spaces. Did you mean `{name_with_space}`?"
                )
            ],
        ),
        ("instruction: 'JSON like {\"a\": 1} and {name?} are fine'", []),
        ("instruction: An optional {anything?} may stay empty.", []),
    ],
)
def test_near_misses(write_tree: WriteTree, instruction: str, expected: list[str]) -> None:
    root = write_tree({"my_agent/root_agent.yaml": f"name: a\n{instruction}\n"})
    assert warnings(root) == expected


def test_unknown_keys_only_when_state_is_declared(write_tree: WriteTree) -> None:
    root = write_tree(
        {
            "my_agent/root_agent.yaml": """
                agent_class: SequentialAgent
                name: flow
                state:
                  topic: what the user asked about
                sub_agents:
                  - config_path: research.yaml
                  - config_path: write.yaml
            """,
            "my_agent/research.yaml": "name: research\ninstruction: Research {topic}.\n"
            "output_key: findings\n",
            "my_agent/write.yaml": "name: write\ninstruction:\n  file: prompts/write.md\n",
            "my_agent/prompts/write.md": "Use {findings} about {topic}.\nCite {fidnings?} and"
            " {user:style?} and {artifact.notes.txt}.\n",
        }
    )
    assert warnings(root) == [
        (
            "prompts/write.md:2:6: warning placeholder-unknown-key: `{fidnings?}` reads state key "
            "`fidnings`, which no agent writes (output_key) and `state:` does not declare.\n"
            "  hint: Did you mean `{findings}`?"
        ),
        (
            "prompts/write.md:2:22: warning placeholder-unknown-key: `{user:style?}` reads state "
            "key `user:style`, which no agent writes (output_key) and `state:` does not declare.\n"
            "  hint: Declare it under `state:` if something else sets it (a tool, a callback, the "
            "caller), or fix the name."
        ),
    ]


def test_warnings_do_not_stop_loading(write_tree: WriteTree) -> None:
    root = write_tree(
        {"my_agent/root_agent.yaml": "name: a\ninstruction: Hi {first name}.\nstate: [name]\n"}
    )
    loaded = load_agent_with_sources(root / "my_agent")
    assert [d.rule for d in loaded.diagnostics] == ["placeholder-near-miss"]
    assert loaded.agent.instruction == "Hi {first name}."


PIPELINE = """
    agent_class: SequentialAgent
    name: flow
    sub_agents:
      - config_path: outline.yaml
      - config_path: write.yaml
"""


def test_plain_adk_configs_infer_writers_from_output_keys(write_tree: WriteTree) -> None:
    root = write_tree(
        {
            "my_agent/root_agent.yaml": PIPELINE,
            "my_agent/outline.yaml": "name: outline\ninstruction: Outline.\noutput_key: outline\n",
            "my_agent/write.yaml": "name: write\ninstruction: Write from {outlines}.\n",
        }
    )
    assert warnings(root) == [
        "write.yaml:2:25: warning placeholder-unknown-key: `{outlines}` reads state key"
        " `outlines`, which nothing writes: no agent's output_key, no tool or callback.\n"
        "  hint: Did you mean `{outline}`?"
    ]


TOOL_TREE = {
    "my_agent/root_agent.yaml": "name: a\ninstruction: Use {draft}, {notes} and {score}.\n"
    "tools:\n  - name: my_tools.save\n",
    "my_agent/my_tools.py": (
        "def save(tool_context) -> dict:\n"
        "    tool_context.state['draft'] = 'x'\n"
        "    tool_context.state.update({'notes': []}, score=1)\n"
        "    return {}\n"
    ),
}


def test_keys_a_tool_writes_are_found_in_its_source(write_tree: WriteTree) -> None:
    root = write_tree(TOOL_TREE)
    assert warnings(root) == []


def test_computed_keys_are_said_once_not_per_placeholder(write_tree: WriteTree) -> None:
    tree = dict(TOOL_TREE)
    tree["my_agent/root_agent.yaml"] = (
        "name: a\ninstruction: Use {draft}, {other} and {more}.\ntools:\n  - name: my_tools.save\n"
    )
    tree["my_agent/my_tools.py"] = (
        "def save(name: str, tool_context) -> dict:\n"
        "    tool_context.state['draft'] = 'x'\n"
        "    tool_context.state[name] = 1\n"
        "    return {}\n"
    )
    root = write_tree(tree)
    assert warnings(root) == [
        "root_agent.yaml:2:27: warning placeholder-writers-unknown: `{other}` has no writer yadk"
        " can see, but code writes state keys it cannot name (my_tools.py:3); placeholders"
        " with no visible writer are not checked.\n"
        "  hint: Declare the keys under `state:` to have every placeholder checked."
    ]


def test_a_missing_sub_agent_file_does_not_make_its_keys_never_written(
    write_tree: WriteTree,
) -> None:
    root = write_tree(
        {
            "my_agent/root_agent.yaml": (
                "agent_class: SequentialAgent\nname: pipeline\nsub_agents:\n"
                "  - config_path: critic.yaml\n  - config_path: reviser.yaml\n"
            ),
            "my_agent/reviser.yaml": (
                "name: reviser\ninstruction: Use {critique} and {notes}.\noutput_key: draft\n"
            ),
        }
    )
    found = validate_paths([root / "my_agent"])
    shown = [d.format().replace(str(root / "my_agent") + "/", "") for d in found]
    assert shown == [
        "root_agent.yaml:4:18: error file-not-found: Sub-agent config `critic.yaml` not found"
        " (looked for critic.yaml).\n"
        "  hint: Did you mean `reviser.yaml`?",
        "reviser.yaml:2:18: warning placeholder-writers-unknown: `{critique}` has no writer"
        " yadk can see, but the agent at root_agent.yaml:4:18 could not be read (the keys it"
        " writes are unknown); placeholders with no visible writer are not checked.\n"
        "  hint: Fix that error first; every placeholder is checked once the whole tree loads.",
    ]


def test_a_code_agent_not_imported_makes_the_check_limited_not_wrong(
    write_tree: WriteTree,
) -> None:
    root = write_tree(
        {
            "my_agent/root_agent.yaml": (
                "agent_class: SequentialAgent\nname: pipeline\nsub_agents:\n"
                "  - code: .helpers.reviewer\n  - config_path: writer.yaml\n"
            ),
            "my_agent/writer.yaml": "name: writer\ninstruction: Apply {review}.\n",
            "my_agent/helpers.py": (
                "from yadk.agents import LlmAgent\n\n"
                "reviewer = LlmAgent(name='reviewer', instruction='Review.', output_key='review')\n"
            ),
        }
    )
    # Without imports the code agent's output_key is unknown: said once, not "never written".
    assert warnings(root) == [
        "writer.yaml:2:20: warning placeholder-writers-unknown: `{review}` has no writer yadk"
        " can see, but the `code:` agent at root_agent.yaml:4:11 is not imported (the keys it"
        " writes are unknown); placeholders with no visible writer are not checked.\n"
        "  hint: Run `yadk validate --import` to import the code and check every placeholder."
    ]
    # Imported, the agent's output_key is known and the placeholder has its writer.
    assert validate_paths([root / "my_agent"], import_code=True) == []
