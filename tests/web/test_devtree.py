"""The Agent panel's data: every agent, tool, skill and example provider with file and line."""

from __future__ import annotations

from pathlib import Path

from yadk.config import load_agent_with_sources
from yadk.serve._devtree import agent_tree

CONFIGS = Path(__file__).parents[2] / "configs"


def test_agents_tools_and_skills_carry_the_line_that_defines_them(desk: Path) -> None:
    tree = agent_tree(load_agent_with_sources(desk))
    root_file = str(desk / "root_agent.yaml")
    assert (tree["name"], tree["kind"], tree["file"], tree["line"]) == (
        "desk",
        "LlmAgent",
        root_file,
        2,
    )
    assert tree["model"] == "scripted:scripted.yaml"
    [tool] = tree["tools"]
    assert (tool["name"], tool["file"], tool["line"]) == ("remember_visitor", root_file, 8)
    assert tool["code"] == {"file": str(desk / "tools.py"), "line": 6}
    [skill] = tree["skills"]
    assert skill["name"] == "greeting"
    assert skill["description"] == "How to greet library visitors."
    assert (skill["file"], skill["line"]) == (str(desk / "skills/greeting/SKILL.md"), 1)
    assert skill["declared_at"] == {"file": root_file, "line": 9}
    assert skill["resources"] == {"references": ["hours.md"], "assets": [], "scripts": []}
    [child] = tree["sub_agents"]
    assert (child["name"], child["file"], child["line"]) == (
        "archivist",
        str(desk / "archivist.yaml"),
        1,
    )
    assert child["tools"] == child["skills"] == child["examples"] == []


def test_example_providers_and_workflow_agents() -> None:
    support = agent_tree(load_agent_with_sources(CONFIGS / "support_desk"))
    [examples] = support["examples"]
    assert examples["kind"] == "static"
    assert examples["count"] >= 1
    assert examples["file"].endswith("support_desk/root_agent.yaml")
    assert examples["line"] == 14
    trip = agent_tree(load_agent_with_sources(CONFIGS / "trip_planner"))
    assert trip["kind"] == "SequentialAgent"
    assert "tools" not in trip
    assert [a["name"] for a in trip["sub_agents"]] == ["intake", "planner", "budget_checker"]
    assert all(a["file"].endswith(f"{a['name']}.yaml") for a in trip["sub_agents"])
