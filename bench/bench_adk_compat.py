"""Loading an agent folder written for google-adk through yadk's compatibility shim, against
loading the same agent written with yadk's own API (target: the shim adds at most 20%).

Both folders hold one ``agent.py``: an LlmAgent with two function tools (one taking
``tool_context``), a before-model callback answering with ``types.ModelContent``, a
``GenerateContentConfig``, and a second agent under a SequentialAgent. The google-adk version
imports ``google.adk`` / ``google.genai``; the yadk version the same names from yadk (and a plain
mapping for the settings). Each run is a fresh process that times ``yadk.config.load_agent``
from its import to the built agent (CPU time of the process, steadier than wall time on a
shared machine, and wall time); runs alternate between the two, with bytecode cached as after
``pip install`` (a warm-up run of each writes ``__pycache__``). The google-adk 2.13 line imports
the same google-adk folder with google-adk itself, for scale.

Run: python bench/bench_adk_compat.py [RUNS]
Writes bench/results/bench_adk_compat.json.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _compare import ADK_PYTHON, adk_available, report

HERE = Path(__file__).parent
RESULTS = HERE / "results" / "bench_adk_compat.json"
LIMIT = 1.20

ADK_AGENT = """
from google.adk.agents import Agent, SequentialAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.models import LlmRequest, LlmResponse
from google.adk.tools import FunctionTool, ToolContext
from google.genai import types

SETTINGS = types.GenerateContentConfig(temperature=0.2, max_output_tokens=512)
"""

YADK_AGENT = """
from yadk.agents import Agent, SequentialAgent
from yadk.agents import CallbackContext
from yadk.models import LlmRequest, LlmResponse
from yadk.tools import FunctionTool, ToolContext
from yadk import types

SETTINGS = {"temperature": 0.2, "max_output_tokens": 512}
"""

BODY = '''

def get_weather(city: str) -> dict:
    """Returns the weather in a city."""
    return {"status": "success", "report": f"Sunny in {city}"}


def remember(city: str, tool_context: ToolContext) -> dict:
    """Remembers the city."""
    tool_context.state["city"] = city
    return {"status": "ok"}


def guard(callback_context: CallbackContext, llm_request: LlmRequest) -> LlmResponse | None:
    if "forbidden" in str(llm_request.contents[-1]):
        return LlmResponse(content=types.ModelContent(parts=[types.Part(text="No.")]))
    return None


helper = Agent(
    name="helper",
    model="gemini-2.5-flash",
    instruction="Help with {city?}.",
    tools=[get_weather, FunctionTool(remember)],
    before_model_callback=guard,
    generate_content_config=SETTINGS,
)
closer = Agent(name="closer", model="gemini-2.5-flash", instruction="Say goodbye.")
root_agent = SequentialAgent(name="shop", sub_agents=[helper, closer])
'''

YADK_LOAD = """
import time
cpu, wall = time.process_time(), time.perf_counter()
from yadk.config import load_agent
agent = load_agent({folder!r})
assert agent.name == "shop"
print(time.process_time() - cpu, time.perf_counter() - wall)
"""

ADK_LOAD = """
import sys, time
sys.path.insert(0, {parent!r})
cpu, wall = time.process_time(), time.perf_counter()
import importlib
agent = importlib.import_module("shop.agent").root_agent
assert agent.name == "shop"
print(time.process_time() - cpu, time.perf_counter() - wall)
"""


def child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONWARNINGS"] = "ignore"
    return env


def one_run(python: str, code: str, cwd: Path) -> tuple[float, float]:
    done = subprocess.run(
        [python, "-c", code],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=child_env(),
        timeout=300,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"load failed: {done.stderr.strip()[-2000:]}")
    cpu, wall = done.stdout.split()[-2:]
    return float(cpu), float(wall)


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    with tempfile.TemporaryDirectory() as tmp:
        folders = {}
        for kind, header in (("compat", ADK_AGENT), ("yadk", YADK_AGENT)):
            folder = Path(tmp) / kind / "shop"
            folder.mkdir(parents=True)
            (folder / "agent.py").write_text(header + BODY)
            folders[kind] = folder
        codes = {kind: YADK_LOAD.format(folder=str(f)) for kind, f in folders.items()}
        for kind in codes:  # warm-up: bytecode caches written
            one_run(sys.executable, codes[kind], Path(tmp))
        times: dict[str, list[tuple[float, float]]] = {"compat": [], "yadk": []}
        for _ in range(runs):
            for kind in ("yadk", "compat"):
                times[kind].append(one_run(sys.executable, codes[kind], Path(tmp)))
        adk: list[tuple[float, float]] = []
        if adk_available():
            code = ADK_LOAD.format(parent=str(folders["compat"].parent))
            one_run(ADK_PYTHON, code, Path(tmp))
            adk = [one_run(ADK_PYTHON, code, Path(tmp)) for _ in range(max(3, runs // 3))]

    def median(samples: list[tuple[float, float]], index: int) -> float:
        return statistics.median(s[index] for s in samples) * 1000

    result: dict[str, object] = {"runs": runs, "limit": LIMIT}
    for index, measure in ((0, "cpu"), (1, "wall")):
        compat, own = median(times["compat"], index), median(times["yadk"], index)
        adk_ms = median(adk, index) if adk else None
        print(f"-- {measure} time, median of {runs} fresh processes")
        report("load, yadk's own API", own, adk_ms, "ms")
        report("load, google-adk code through the shim", compat, adk_ms, "ms")
        ratio = compat / own
        print(f"{'shim / own API':<48} {ratio:.3f} (limit {LIMIT:.2f})")
        result[measure] = {
            "yadk_api_ms": round(own, 2),
            "adk_code_through_shim_ms": round(compat, 2),
            "shim_over_own_api": round(ratio, 3),
            "google_adk_2_13_ms": round(adk_ms, 2) if adk_ms is not None else None,
        }
    result["load_average"] = os.getloadavg()
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written {RESULTS.relative_to(HERE.parent)}")


if __name__ == "__main__":
    main()
