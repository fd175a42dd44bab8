"""Each scenario of scenarios.py runs in yadk and its events and final state match what
google-adk 2.13 produced for it (tests/workflow/recorded/, written by record_adk.py)."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.workflow import (  # noqa: F401  (register scenarios)
    scenarios_dynamic,
    scenarios_limits,
    scenarios_modes,
    scenarios_resume,
)
from tests.workflow.kit import KIT, run_turns, summarize
from tests.workflow.scenarios import INVALID, SCENARIOS, canonical_message

from yadk import LlmAgent
from yadk.adk_compat import disable, enable
from yadk.config import load_agent
from yadk.workflow import Workflow, WorkflowConfigurationError

RECORDED = Path(__file__).parent / "recorded"

# Fields compared; error messages are each framework's own words.
FIELDS = (
    "author",
    "text",
    "role",
    "state_delta",
    "path",
    "output_for",
    "route",
    "output",
    "function_calls",
    "error_code",
    "isolation_scope",
)


def _expected(turn: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {key: event[key] for key in FIELDS} for event in turn["events"] if "raised" not in event
    ]


_CALL_ID = re.compile(r"adk-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _random_ids(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Request ids google-adk draws at random are compared by shape, not value; function call
    ids (``adk-<uuid>``) by the order they first appear in (in calls and in node paths)."""
    for row in rows:
        for call in row["function_calls"] or []:
            if call["args"].get("interruptId") == call["id"] and len(call["id"]) == 36:
                call["id"] = call["args"]["interruptId"] = "<uuid>"
    seen: dict[str, str] = {}
    text = _CALL_ID.sub(
        lambda m: seen.setdefault(m.group(0), f"<call {len(seen) + 1}>"), json.dumps(rows)
    )
    renamed: list[dict[str, Any]] = json.loads(text)
    return renamed


@pytest.mark.parametrize("name", sorted(SCENARIOS))
async def test_events_match_google_adk(name: str) -> None:
    fixture = json.loads((RECORDED / f"{name}.json").read_text())
    scenario = SCENARIOS[name](KIT)
    turns, state, _ = await run_turns(scenario.agent, scenario.messages, state=scenario.state)
    assert len(turns) == len(fixture["turns"])
    for got, want in zip(turns, fixture["turns"], strict=True):
        assert _random_ids([summarize(e) for e in got]) == _random_ids(_expected(want))
    assert state == fixture["final_state"]
    if scenario.requests is not None:  # what each model was sent (scenarios_modes.py)
        assert scenario.requests == fixture["requests"]


@pytest.mark.parametrize("name", sorted(INVALID))
def test_graphs_google_adk_refuses_are_refused_with_its_message(name: str) -> None:
    messages = json.loads((RECORDED / "invalid_graphs.json").read_text())
    with pytest.raises(WorkflowConfigurationError) as raised:
        spec = INVALID[name](KIT)
        Workflow(name="bad", **(spec if isinstance(spec, dict) else {"edges": spec}))
    assert canonical_message(str(raised.value)) == messages[name]


@pytest.mark.parametrize(
    ("message", "canonical"),
    [
        ("cycle detected: a -> b -> a. Cycles", "cycle detected: a -> b -> a. Cycles"),
        ("cycle detected: b -> a -> b. Cycles", "cycle detected: a -> b -> a. Cycles"),
        ("cycle detected: c -> a -> b -> c.", "cycle detected: a -> b -> c -> a."),
        ("Duplicate node names found: ['a'].", "Duplicate node names found: ['a']."),
    ],
)
def test_a_cycle_is_compared_from_its_least_node(message: str, canonical: str) -> None:
    assert canonical_message(message) == canonical


# YAML workflow folders written for google-adk (tests/workflow/configs/<name>), as record_adk.py
# runs them: the messages, and the texts the LLM agents answer.
YAML_CASES = {
    "adk_desk": {
        "messages": ["How do I reset it?", "Broken screen", "A refund for A-7", "yes"],
        "texts": ["You can reset it from the login page."],
    }
}


@pytest.mark.parametrize("name", sorted(YAML_CASES))
async def test_yaml_workflows_written_for_google_adk_run_as_in_google_adk(
    name: str, tmp_path: Path
) -> None:
    fixture = json.loads((RECORDED / f"yaml_{name}.json").read_text())
    case = YAML_CASES[name]
    folder = tmp_path / name
    shutil.copytree(Path(__file__).parent / "configs" / name, folder)
    try:
        agent = load_agent(folder)  # its Python imports google.adk: served by the shim
    finally:
        disable()
        enable()
        for module in [m for m in sys.modules if m.split(".")[0] == name]:
            del sys.modules[module]
    for each in agent.graph_agents():
        if isinstance(each, LlmAgent):
            each.model = KIT.model(case["texts"])
    turns, state, _ = await run_turns(agent, case["messages"])
    assert len(turns) == len(fixture["turns"])
    for got, want in zip(turns, fixture["turns"], strict=True):
        assert _random_ids([summarize(e) for e in got]) == _random_ids(_expected(want))
    assert state == fixture["final_state"]


@pytest.mark.parametrize("name", ["node_timeout", "node_timeout_retried"])
async def test_a_timed_out_node_says_what_google_adk_says(name: str) -> None:
    fixture = json.loads((RECORDED / f"{name}.json").read_text())
    want = [e["error_message"] for e in fixture["turns"][0]["events"] if e.get("error_code")]
    scenario = SCENARIOS[name](KIT)
    turns, _, _ = await run_turns(scenario.agent, scenario.messages)
    assert [e.error_message for e in turns[0] if e.error_code] == want
