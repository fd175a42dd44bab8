"""Shared bench helpers: timing, and running the same measurement in google-adk's venv.

google-adk is never a dependency of yadk: its side of a benchmark runs in a separate venv through
a subprocess (``YADK_BENCH_ADK_PYTHON``, default ``/opt/adkvenv/bin/python``). When that
interpreter is missing, benchmarks print yadk's figures only.
"""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

ADK_PYTHON = os.environ.get("YADK_BENCH_ADK_PYTHON", "/opt/adkvenv/bin/python")


def adk_available() -> bool:
    return Path(ADK_PYTHON).exists()


def run_adk(snippet: str, timeout: float = 600) -> dict | None:
    """Run ``snippet`` with google-adk's Python; it must print one JSON object last."""
    if not adk_available():
        return None
    proc = subprocess.run(
        [ADK_PYTHON, "-c", textwrap.dedent(snippet)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
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
