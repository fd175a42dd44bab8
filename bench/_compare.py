"""Shared bench helpers: timing, and running the same measurement in google-adk's venv.

google-adk is never a dependency of yadk: its side of a benchmark runs in a separate venv through
a subprocess (``YADK_BENCH_ADK_PYTHON``, default ``/opt/adkvenv/bin/python``). When that
interpreter is missing, benchmarks print yadk's figures only.

Every figure a benchmark prints through ``report`` (or keeps with ``record``) goes to its results
file, ``bench/results/<script>.json``, written by ``write_results(__file__)`` at the end of its
run: the figures the README and docs quote are the ones in those files.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import textwrap
from datetime import UTC, datetime
from pathlib import Path

ADK_PYTHON = os.environ.get("YADK_BENCH_ADK_PYTHON", "/opt/adkvenv/bin/python")
RESULTS = Path(__file__).resolve().parent / "results"

_rows: list[dict[str, object]] = []


def adk_available() -> bool:
    return Path(ADK_PYTHON).exists()


def run_adk(snippet: str, timeout: float = 600) -> dict | None:
    """Run ``snippet`` with google-adk's Python; it must print one JSON object last."""
    if not adk_available():
        return None
    try:
        proc = subprocess.run(
            [ADK_PYTHON, "-c", textwrap.dedent(snippet)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, "PYTHONWARNINGS": "ignore"},
        )
    except subprocess.TimeoutExpired:  # yadk's figures still count: print and record them
        print(f"  (google-adk side still running after {timeout:g} s: stopped)")
        return None
    if proc.returncode != 0:
        print(f"  (google-adk side failed: {proc.stderr.strip().splitlines()[-1:]})")
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def report(
    label: str,
    yadk_value: float,
    adk_value: float | None,
    unit: str,
    *,
    higher_is_better: bool = False,
) -> None:
    line = f"{label:<48} yadk {yadk_value:>12.3f} {unit}"
    if adk_value is not None:
        ratio = yadk_value / adk_value if higher_is_better else adk_value / yadk_value
        line += f" | google-adk {adk_value:>12.3f} {unit} | yadk is {ratio:,.1f}x better"
    else:
        line += " | google-adk: not available"
    print(line)
    record(label, yadk_value, unit, adk_value=adk_value, higher_is_better=higher_is_better)


def record(
    label: str,
    yadk_value: float,
    unit: str,
    *,
    adk_value: float | None = None,
    higher_is_better: bool = False,
) -> None:
    """Keep one figure for the results file (``report`` prints and keeps; this only keeps)."""
    ratio = None
    if adk_value:
        ratio = yadk_value / adk_value if higher_is_better else adk_value / yadk_value
    _rows.append(
        {
            "what": label,
            "unit": unit,
            "yadk": yadk_value,
            "google_adk": adk_value,
            "ratio": None if ratio is None else round(ratio, 2),
            "higher_is_better": higher_is_better,
        }
    )


def write_results(script: str, **extra: object) -> Path | None:
    """Write the figures kept during this run to ``bench/results/<script>.json``, with what the
    run was measured on (load average, cores, Python, google-adk's presence). A run that kept no
    figure (a benchmark's worker process, whose stdout is its parent's data) writes nothing."""
    if not _rows:
        return None
    name = Path(script).stem
    RESULTS.mkdir(exist_ok=True)
    target = RESULTS / f"{name}.json"
    document = {
        "command": f"python bench/{name}.py {' '.join(sys.argv[1:])}".strip(),
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "google_adk": adk_available(),
        "rows": _rows,
        **extra,
    }
    target.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    print(f"results written to {target.relative_to(RESULTS.parent.parent)}")
    return target


# google-adk's side of a scripted tool turn (a model asking for the weather, then answering),
# as text for run_adk: the agent's model, imports and tool; the bench scripts build the runner.
ADK_TOOL_TURN_AGENT = """\
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.genai import types

class Free(BaseLlm):
    model: str = "free"
    async def generate_content_async(self, llm_request, stream=False):
        last = llm_request.contents[-1].parts[0]
        if last.function_response is None:
            part = types.Part(function_call=types.FunctionCall(name="get_weather",
                                                               args={"city": "Paris"}))
        else:
            part = types.Part(text="It is sunny.")
        yield LlmResponse(content=types.Content(role="model", parts=[part]))

def get_weather(city: str) -> dict:
    \"\"\"The weather in a city.\"\"\"
    return {"city": city, "weather": "sunny"}
"""
