"""Which Python files are agents: judged by the syntax tree, not by the text `root_agent`."""

from __future__ import annotations

from pathlib import Path

import pytest

from yadk.config import validate_paths
from yadk.config._python_agent import defines_agent, python_agent_file


@pytest.mark.parametrize(
    ("source", "defines"),
    [
        ("root_agent = make()\n", True),
        ("root_agent: Agent = make()\n", True),
        ("app = App(name='x', root_agent=a)\n", True),
        ("from .agent import root_agent\n", True),
        ("from .agent import build as root_agent\n", True),
        ("try:\n    root_agent = a()\nexcept ImportError:\n    root_agent = b()\n", True),
        ("if True:\n    root_agent, other = a(), b()\n", True),
        ("def f():\n    root_agent = 1\n", False),
        ("class C:\n    root_agent = 1\n", False),
        ("# root_agent is defined in agent.py\n", False),
        ('"""Builds root_agent elsewhere."""\n', False),
        ("from . import agent\n", False),
        ("print(root_agent)\n", False),
        ("root_agent = (\n", True),  # does not parse: loading reports the syntax error
    ],
)
def test_defines_agent(source: str, defines: bool) -> None:
    assert defines_agent(source) is defines


def test_a_package_that_mentions_root_agent_in_a_comment_is_no_agent(tmp_path: Path) -> None:
    package = tmp_path / "helpers"
    package.mkdir()
    (package / "__init__.py").write_text("# root_agent lives in the sibling package\nX = 1\n")
    assert python_agent_file(package) is None
    assert [d.rule for d in validate_paths([tmp_path])] == ["nothing-to-validate"]


def test_agent_py_in_a_tree_counts_only_when_it_defines_root_agent(tmp_path: Path) -> None:
    folder = tmp_path / "tools_pkg"
    folder.mkdir()
    (folder / "agent.py").write_text('"""Not an agent: no root_agent here."""\n')
    assert python_agent_file(folder, mentions_root_agent=True) is None
    (folder / "agent.py").write_text("from yadk import Agent\nroot_agent = Agent(name='a')\n")
    assert python_agent_file(folder, mentions_root_agent=True) == folder / "agent.py"


def test_a_scripted_path_in_agent_code_is_relative_to_the_agent_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from yadk.config import load_agent

    folder = tmp_path / "scripted_code"
    folder.mkdir()
    (folder / "turns.yaml").write_text("turns:\n  - text: hi\n")
    (folder / "agent.py").write_text(
        "from yadk import Agent\n"
        "helper = Agent(name='helper', model='scripted:turns.yaml', instruction='x')\n"
        "root_agent = Agent(name='root', model='scripted:turns.yaml', instruction='x',"
        " sub_agents=[helper])\n"
    )
    monkeypatch.chdir(tmp_path)  # not the agent folder: a path relative to here would miss
    root = load_agent(folder)
    assert root.model == f"scripted:{folder / 'turns.yaml'}"  # type: ignore[attr-defined]
    assert root.sub_agents[0].model == f"scripted:{folder / 'turns.yaml'}"  # type: ignore[attr-defined]
