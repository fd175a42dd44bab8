"""Runs every agent folder under cases/ (Python written for google-adk, as its docs write it)
in google-adk 2.13 with a scripted model (offline), through drive.py, and writes what happened
to recorded/<case>.json. Run with google-adk's Python (the yadk tests read the recordings):

    /opt/adkvenv/bin/python tests/adk_compat/record_adk.py [CASE ...]
"""

import asyncio
import importlib
import json
import shutil
import sys
import tempfile
import warnings
from pathlib import Path

warnings.simplefilter("ignore")
HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from drive import drive  # noqa: E402
from google.adk.agents import LlmAgent  # noqa: E402

from adk_scripted import Scripted  # noqa: E402


def agents(agent):
    yield agent
    for tool in getattr(agent, "tools", None) or []:
        if hasattr(tool, "agent"):
            yield from agents(tool.agent)
    for child in agent.sub_agents:
        yield from agents(child)


def text_of(instruction):
    """A system instruction a callback replaced with a Content, as the text it carries."""
    if instruction is None or isinstance(instruction, str):
        return instruction
    return "\n\n".join(p.text for p in instruction.parts if p.text)


async def record(case, workdir):
    shutil.copytree(HERE / "cases" / case, workdir / case)
    script = json.loads((workdir / case / "script.json").read_text())
    module = importlib.import_module(f"{case}.agent")
    model = Scripted(turns=list(script["turns"]))
    for agent in agents(module.root_agent):
        if isinstance(agent, LlmAgent):
            agent.model = model
    result = await drive(module.root_agent, script)
    result["system_instructions"] = [text_of(r.config.system_instruction) for r in model.seen]
    result["temperatures"] = [r.config.temperature for r in model.seen]
    result["unused_turns"] = len(model.turns)
    return result


def main():
    cases = sys.argv[1:] or sorted(p.name for p in (HERE / "cases").iterdir() if p.is_dir())
    out = HERE / "recorded"
    out.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        sys.path.insert(0, tmp)
        for case in cases:
            result = asyncio.run(record(case, Path(tmp)))
            (out / f"{case}.json").write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
            print(case, len(result["events"]), "events")


main()
