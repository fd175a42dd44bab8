"""Agent folders written in Python for google-adk (cases/, as its docs and samples write them),
loaded by yadk through the compatibility shim and run offline with a scripted model by the
google-adk run loop in drive.py. The events, the final state, the artifacts and the system
instruction of every model call must be what google-adk 2.13 produced with the same code and
script (recorded/<case>.json, made by record_adk.py with google-adk's Python; these tests never
need google-adk). Call ids and timestamps aside."""

from __future__ import annotations

import importlib
import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from yadk.adk_compat import disable, enable
from yadk.agents import LlmAgent
from yadk.config import load_agent
from yadk.models import ScriptedModel

HERE = Path(__file__).parent
CASES = sorted(p.name for p in (HERE / "cases").iterdir() if (p / "script.json").exists())


def normal(value: Any) -> Any:
    """Call ids differ from run to run."""
    if isinstance(value, dict):
        return {k: normal(v) for k, v in value.items() if k != "id"}
    if isinstance(value, list):
        return [normal(v) for v in value]
    return value


def agents(agent: Any) -> Iterator[Any]:
    yield agent
    for tool in getattr(agent, "tools", None) or []:
        if hasattr(tool, "agent"):
            yield from agents(tool.agent)
    for child in agent.sub_agents:
        yield from agents(child)


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path) -> Iterator[None]:
    path = list(sys.path)
    yield
    disable()
    enable()
    sys.path[:] = path
    for name, module in list(sys.modules.items()):
        if name == "drive" or str(getattr(module, "__file__", None) or "").startswith(
            str(tmp_path)
        ):
            del sys.modules[name]


@pytest.mark.parametrize("case", CASES)
async def test_google_adk_agent_code_runs_as_in_google_adk(case: str, tmp_path: Path) -> None:
    folder = tmp_path / case
    shutil.copytree(HERE / "cases" / case, folder)
    script = json.loads((folder / "script.json").read_text())
    root = load_agent(folder)
    model = ScriptedModel(
        turns=[{"parts": t["parts"]} for t in script["turns"]], name="gemini-2.5-flash"
    )
    for agent in agents(root):
        if isinstance(agent, LlmAgent):
            agent.model = model
    sys.path.insert(0, str(HERE))
    drive = importlib.import_module("drive")  # google-adk code: imports the shim's modules
    result = await drive.drive(root, script)
    adk = json.loads((HERE / "recorded" / f"{case}.json").read_text())
    assert model.remaining == adk["unused_turns"] == 0
    assert normal(result["events"]) == normal(adk["events"])
    assert result["state"] == adk["state"]
    assert result["artifacts"] == adk["artifacts"]
    assert [r.system_instruction for r in model.requests] == adk["system_instructions"]
    assert [r.config.temperature for r in model.requests] == adk["temperatures"]
