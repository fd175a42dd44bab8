"""ADK-style config trees load unchanged and build what google-adk 2.13 builds from them.

``fixtures/adk/<tree>.adk.json`` records what google-adk's own loader produced for each tree
(names, classes, instructions, models, tools, callbacks, settings); yadk must produce the same.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from yadk.agents import BaseAgent
from yadk.config import load_agent, validate_paths

FIXTURES = Path(__file__).parent / "fixtures" / "adk"
TREES = ["learning_assistant", "study_loop", "dice_agent"]


def _tool_name(tool: Any) -> str:
    name = getattr(tool, "name", None) or getattr(tool, "__name__", None)
    kind = "function" if callable(tool) and hasattr(tool, "__code__") else type(tool).__name__
    return f"{kind}:{name}"


def dump(agent: BaseAgent) -> dict[str, Any]:
    """The same summary google-adk's agents were reduced to for the recorded JSON."""
    found: dict[str, Any] = {
        "class": type(agent).__name__,
        "name": agent.name,
        "description": agent.description,
    }
    for field in (
        "model",
        "instruction",
        "static_instruction",
        "output_key",
        "include_contents",
        "max_iterations",
    ):
        if hasattr(agent, field):
            found[field] = getattr(agent, field)
    config = getattr(agent, "generate_content_config", None)
    if config:
        found["gcc"] = config
    if hasattr(agent, "tools"):
        found["tools"] = [_tool_name(t) for t in agent.tools]
    for callback in ("before_model_callback", "after_tool_callback"):
        value = getattr(agent, callback, None)
        if value:
            found[callback] = [f.__name__ for f in value]
    found["sub_agents"] = [dump(sub) for sub in agent.sub_agents]
    return found


@pytest.mark.parametrize("tree", TREES)
def test_loads_like_google_adk(tree: str) -> None:
    expected = json.loads((FIXTURES / f"{tree}.adk.json").read_text())
    assert dump(load_agent(FIXTURES / tree)) == expected


# What the caller must provide: a required placeholder nothing in the tree writes is a warning
# also for a plain ADK config without a `state:` block.
CALLER_KEYS = {"study_loop": [("writer.yaml", 4, 46, "placeholder-unknown-key", "warning")]}


@pytest.mark.parametrize("tree", TREES)
def test_validates_clean(tree: str) -> None:
    for import_code in (False, True):
        found = validate_paths([FIXTURES / tree], import_code=import_code)
        assert [
            (Path(d.path).name, d.line, d.column, d.rule, d.severity) for d in found
        ] == CALLER_KEYS.get(tree, [])
