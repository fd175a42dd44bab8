"""Benchmark: whole-process wall time of ``yadk inspect configs/<demo> --json`` vs google-adk.

yadk: a fresh ``python -m yadk.cli inspect ... --json`` process per run (interpreter start,
imports, config load, request build, JSON output). google-adk 2.13: a fresh process that imports
its config loader and loads an equivalent config with ``config_agent_utils.from_config`` (ADK has
no way to build the request without calling the model, so its figure covers loading only and is
a lower bound for the same job). The median of N runs is reported; the target for yadk is 0.5 s.

    /opt/yvenv/bin/python bench/bench_inspect.py [--runs N]

``YADK_BENCH_ADK_PYTHON`` overrides the google-adk interpreter (default
/opt/adkvenv/bin/python); without one, only the yadk figures are printed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _compare import record, write_results

ROOT = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 0.5
DEMO_STATE = {
    "support_desk": '{"customer_name": "Ada", "user:tier": "gold"}',
    "trip_planner": "{}",
}

# An ADK config equivalent to configs/support_desk: same agents, keys, tools and callbacks
# (instructions inline, since ADK has no file references).
_ADK_FILES = {
    "adk_desk/__init__.py": "",
    "adk_desk/tools.py": (
        "def lookup_order(order_id: str, tool_context) -> dict:\n"
        '    """Look up an order by its id."""\n'
        "    return {}\n\n\n"
        "def issue_refund(order_id: str, reason: str, tool_context) -> dict:\n"
        '    """Refund an order in full."""\n'
        "    return {}\n"
    ),
    "adk_desk/callbacks.py": (
        "def open_ticket(callback_context):\n    return None\n\n\n"
        "def block_card_numbers(callback_context, llm_request):\n    return None\n\n\n"
        "def audit_refund(tool, args, tool_context, tool_response):\n    return None\n"
    ),
    "adk_desk/root_agent.yaml": (
        "name: support_desk\n"
        "description: Front desk of Trailhead Outfitters; answers questions about orders.\n"
        "model: gemini-2.5-flash\n"
        "static_instruction: You work for Trailhead Outfitters, an online shop for outdoor gear.\n"
        "instruction: You are the front desk. You are talking with {customer_name}.\n"
        "tools:\n  - name: adk_desk.tools.lookup_order\n"
        "sub_agents:\n  - config_path: refunds_agent.yaml\n"
        "before_agent_callbacks:\n  - name: adk_desk.callbacks.open_ticket\n"
        "before_model_callbacks:\n  - name: adk_desk.callbacks.block_card_numbers\n"
    ),
    "adk_desk/refunds_agent.yaml": (
        "name: refunds\n"
        "description: Handles refund requests.\n"
        "model: gemini-2.5-flash\n"
        "instruction: You handle refunds for {customer_name}.\n"
        "tools:\n  - name: adk_desk.tools.lookup_order\n  - name: adk_desk.tools.issue_refund\n"
        "disallow_transfer_to_peers: true\n"
        "generate_content_config:\n  temperature: 0.2\n"
        "before_model_callbacks:\n  - name: adk_desk.callbacks.block_card_numbers\n"
        "after_tool_callbacks:\n  - name: adk_desk.callbacks.audit_refund\n"
    ),
}

_ADK_SNIPPET = """\
import sys
sys.path.insert(0, {folder!r})
from google.adk.agents import config_agent_utils
agent = config_agent_utils.from_config({config!r})
assert agent.name == "support_desk", agent.name
"""


def _median_seconds(command: list[str], runs: int, *, cwd: Path) -> float:
    # As on a user's machine, byte-code caches are written and warm: one untimed run first.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False, env=env)
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        result = subprocess.run(
            command, cwd=cwd, capture_output=True, text=True, check=False, env=env
        )
        timings.append(time.perf_counter() - start)
        if result.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed:\n{result.stderr}")
    return statistics.median(timings)


def _adk_python() -> str | None:
    path = os.environ.get("YADK_BENCH_ADK_PYTHON", "/opt/adkvenv/bin/python")
    return path if path and Path(path).exists() else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()

    baseline = _median_seconds([sys.executable, "-c", "pass"], args.runs, cwd=ROOT)
    rows = [("python startup alone", f"{baseline:.3f} s")]
    timings: dict[str, float] = {}
    for demo, state in DEMO_STATE.items():
        command = [
            sys.executable, "-m", "yadk.cli", "inspect", f"configs/{demo}",
            "--state", state, "--message", "Where is my order A-1001?", "--json",
        ]  # fmt: skip
        timings[demo] = seconds = _median_seconds(command, args.runs, cwd=ROOT)
        if demo != "support_desk":
            record(f"yadk inspect configs/{demo} --json, whole process", seconds, "s")
        verdict = "meets" if seconds < TARGET_SECONDS else "MISSES"
        rows.append(
            (
                f"yadk inspect configs/{demo} --json",
                f"{seconds:.3f} s ({verdict} the {TARGET_SECONDS} s target)",
            )
        )
    yadk = timings["support_desk"]
    adk_python = _adk_python()
    if adk_python is None:
        record("yadk inspect configs/support_desk --json, whole process", yadk, "s")
        rows.append(("google-adk", "not found (set YADK_BENCH_ADK_PYTHON); yadk figures only"))
        _print(rows, args.runs)
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for relative, text in _ADK_FILES.items():
            target = folder / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        snippet = _ADK_SNIPPET.format(
            folder=str(folder), config=str(folder / "adk_desk" / "root_agent.yaml")
        )
        adk = _median_seconds([adk_python, "-c", snippet], args.runs, cwd=folder)
    rows.append(("google-adk 2.13 from_config, support_desk (load only)", f"{adk:.3f} s"))
    rows.append(("ratio google-adk / yadk (support_desk)", f"{adk / yadk:.1f}x"))
    record(
        "yadk inspect configs/support_desk --json, whole process (google-adk: load only)",
        yadk,
        "s",
        adk_value=adk,
    )
    _print(rows, args.runs)


def _print(rows: list[tuple[str, str]], runs: int) -> None:
    print(f"whole-process wall time, median of {runs} runs")
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"  {label:<{width}} : {value}")


if __name__ == "__main__":
    main()
    write_results(__file__)
