"""Benchmark: ``yadk eval`` vs google-adk 2.13.0's ``adk eval``, and ROUGE-1 on a 200-word pair.

    python bench/bench_eval.py

1. Whole process: ``yadk eval`` and ``adk eval`` on the same 10-case eval set (one tool call
   and one answer per case) against the same weather agent with an offline scripted model:
   wall time and peak memory (max RSS) of the command. Targets: yadk <= 1 s.
2. ``response_match_score``'s ROUGE-1 on a 200-word response/reference pair, per call: yadk's
   ``rouge_1`` (warm: the stem cache holds the vocabulary, as in a run over many cases; cold:
   cache cleared before every call) vs google-adk's ``_calculate_rouge_1_scores``. Target:
   yadk <= 0.2 ms.

The google-adk side runs in its own venv (YADK_BENCH_ADK_PYTHON, default
/opt/adkvenv/bin/python; ``adk`` beside it); without it only yadk's figures are printed. The
machine is shared: absolute numbers are noisy, the ratios less so.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _compare import ADK_PYTHON, adk_available, report, run_adk, write_results

CITIES = [
    "Lisbon",
    "Porto",
    "Madrid",
    "Paris",
    "Berlin",
    "Rome",
    "Vienna",
    "Prague",
    "Oslo",
    "Dublin",
]

YADK_AGENT = """\
name: weather
model: scripted:scripted.yaml
instruction: Answer weather questions.
tools:
  - name: .tools.get_weather
"""
TOOLS = '''\
def get_weather(city: str) -> dict:
    """The weather in a city."""
    return {"city": city, "sky": "sunny", "celsius": 24}
'''
ADK_AGENT = '''\
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from .tools import get_weather


class ScriptLlm(BaseLlm):
    """The same script as yadk's scripted.yaml: call get_weather, then answer."""

    model: str = "script"

    async def generate_content_async(self, llm_request, stream=False):
        last = llm_request.contents[-1]
        responses = [p.function_response for p in last.parts or [] if p.function_response]
        if responses:
            city = responses[0].response["city"]
            part = types.Part(text=f"It is sunny in {city}, 24 degrees.")
        else:
            city = last.parts[0].text.rstrip("?").split()[-1]
            call = types.FunctionCall(name="get_weather", args={"city": city})
            part = types.Part(function_call=call)
        yield LlmResponse(content=types.Content(role="model", parts=[part]))


root_agent = LlmAgent(
    name="weather", model=ScriptLlm(), instruction="Answer weather questions.", tools=[get_weather]
)
'''

WORDS = (
    "the order shipped yesterday with tracking number and should arrive on monday morning "
    "customers reported delays because of weather storms affecting delivery routes across "
    "northern regions while warehouses processed refunds replacements and exchanges quickly "
    "our support team answered questions about payments invoices discounts subscriptions"
).split()


def texts() -> tuple[str, str]:
    """A 200-word response and a 200-word reference that share most of their vocabulary."""
    response = " ".join(WORDS[(i * 7) % len(WORDS)] for i in range(200)).capitalize() + "."
    reference = " ".join(WORDS[(i * 5 + 3) % len(WORDS)] for i in range(200)).capitalize() + "."
    return response, reference


def write_project(folder: Path) -> Path:
    """The yadk agent, the google-adk agent package and the shared 10-case eval set."""
    yadk_agent = folder / "weather"
    yadk_agent.mkdir()
    (yadk_agent / "root_agent.yaml").write_text(YADK_AGENT)
    (yadk_agent / "tools.py").write_text(TOOLS)
    turns = []
    for city in CITIES:
        turns.append(
            f'  - when: "{city}"\n    function_calls: [{{name: get_weather, args: {{city: {city}}}}}]'
        )
        turns.append(f'  - when: "{city}"\n    text: "It is sunny in {city}, 24 degrees."')
    (yadk_agent / "scripted.yaml").write_text("turns:\n" + "\n".join(turns) + "\n")
    adk_agent = folder / "weather_adk"
    adk_agent.mkdir()
    (adk_agent / "__init__.py").write_text("from . import agent\n")
    (adk_agent / "agent.py").write_text(ADK_AGENT)
    (adk_agent / "tools.py").write_text(TOOLS)
    cases = [
        {
            "eval_id": city.lower(),
            "conversation": [
                {
                    "user_content": {
                        "role": "user",
                        "parts": [{"text": f"What is the weather in {city}?"}],
                    },
                    "final_response": {
                        "role": "model",
                        "parts": [{"text": f"It is sunny in {city}, 24 degrees."}],
                    },
                    "intermediate_data": {
                        "tool_uses": [{"name": "get_weather", "args": {"city": city}}]
                    },
                }
            ],
        }
        for city in CITIES
    ]
    evalset = folder / "weather.evalset.json"
    evalset.write_text(json.dumps({"eval_set_id": "weather", "eval_cases": cases}, indent=1))
    return evalset


MEASURE = """\
import json, resource, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.run(sys.argv[2:], cwd=sys.argv[1], capture_output=True, text=True)
elapsed = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"seconds": elapsed, "rss_mb": usage.ru_maxrss / 1024, "code": proc.returncode,
                  "cpu": usage.ru_utime + usage.ru_stime,
                  "tail": (proc.stdout + proc.stderr).strip().splitlines()[-3:],
                  "passed_10": "Tests passed: 10" in proc.stdout}))
"""


def measure(cwd: Path, argv: list[str]) -> dict[str, object]:
    """Wall time and peak RSS of one command, measured by a fresh parent process."""
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, str(cwd), *argv], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def bench_process(folder: Path, evalset: Path) -> None:
    yadk = shutil.which("yadk") or str(Path(sys.executable).parent / "yadk")
    runs = [measure(folder, [yadk, "eval", "weather", evalset.name]) for _ in range(5)]
    assert all(r["code"] == 0 for r in runs), runs[0]["tail"]
    seconds = statistics.median(float(r["seconds"]) for r in runs)  # type: ignore[arg-type]
    cpu = statistics.median(float(r["cpu"]) for r in runs)  # type: ignore[arg-type]
    rss = max(float(r["rss_mb"]) for r in runs)  # type: ignore[arg-type]
    adk_seconds = adk_rss = adk_cpu = None
    adk = Path(ADK_PYTHON).parent / "adk"
    if adk_available() and adk.exists():
        adk_run = measure(folder, [str(adk), "eval", "weather_adk", evalset.name])
        if adk_run["code"] == 0 and adk_run["passed_10"]:
            adk_seconds, adk_rss = float(adk_run["seconds"]), float(adk_run["rss_mb"])  # type: ignore[arg-type]
            adk_cpu = float(adk_run["cpu"])  # type: ignore[arg-type]
        else:
            print(f"  (adk eval failed: {adk_run['tail']})")
    report("eval 10 scripted cases, whole process (wall)", seconds, adk_seconds, "s")
    report("eval 10 scripted cases, whole process (CPU)", cpu, adk_cpu, "s")
    report("eval 10 scripted cases, peak memory (max RSS)", rss, adk_rss, "MB")
    print(f"  yadk eval target <= 1 s: {'met' if seconds <= 1.0 else 'NOT met'} ({seconds:.3f} s)")


def bench_rouge() -> None:
    from yadk.eval import rouge_1
    from yadk.eval._rouge import clear_token_cache

    response, reference = texts()
    assert len(response.split()) == len(reference.split()) == 200
    rouge_1(response, reference)
    loops = 2000
    start = time.perf_counter()
    for _ in range(loops):
        score = rouge_1(response, reference)
    warm = (time.perf_counter() - start) / loops * 1000
    start = time.perf_counter()
    for _ in range(200):
        clear_token_cache()
        rouge_1(response, reference)
    cold = (time.perf_counter() - start) / 200 * 1000
    adk = run_adk(
        f"""
        import json, time
        from google.adk.evaluation.final_response_match_v1 import _calculate_rouge_1_scores
        response, reference = {response!r}, {reference!r}
        score = _calculate_rouge_1_scores(response, reference)
        start = time.perf_counter()
        for _ in range(200):
            _calculate_rouge_1_scores(response, reference)
        ms = (time.perf_counter() - start) / 200 * 1000
        print(json.dumps({{"ms": ms, "f": score.fmeasure}}))
        """
    )
    if adk is not None:
        assert adk["f"] == score.fmeasure, (adk["f"], score.fmeasure)
    report("ROUGE-1, 200-word pair, warm stem cache", warm, adk and adk["ms"], "ms")
    report("ROUGE-1, 200-word pair, cold (cache cleared)", cold, adk and adk["ms"], "ms")
    print(
        f"  ROUGE target <= 0.2 ms: {'met' if warm <= 0.2 else 'NOT met'} ({warm:.3f} ms warm, {cold:.3f} ms cold); F1 {score.fmeasure:.6f} (same bits as google-adk's)"
    )


def main() -> int:
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        evalset = write_project(folder)
        bench_process(folder, evalset)
    bench_rouge()
    return 0


if __name__ == "__main__":
    code = main()
    write_results(__file__)
    sys.exit(code)
