"""CPU to read YAML: a 90 KB scripted-model file, and ``yadk validate configs/``.

The eval files under configs/ are also validated on their own: their checks read the eval sets
without building an agent, so that figure is the eval share of ``yadk validate configs/``.

Each is measured with libyaml's parser under yadk's bounded reader (what runs when PyYAML has
libyaml) and with PyYAML's pure-Python parser (what runs without it, and what ran before).
google-adk reads its YAML with ``yaml.safe_load`` (pure Python); its time for the same file is
the comparison. Target: ``yadk validate configs/`` <= 0.3 s of CPU.
Run: python bench/bench_yaml.py
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _compare import report, run_adk, write_results

from yadk import _yaml as bounded
from yadk.eval import find_eval_files
from yadk.models import ScriptedModel

ROOT = Path(__file__).resolve().parent.parent
REPEAT = 5
PURE_PYTHON = "import yadk._yaml as y; y.CParser = None\n"


def scripted_file(size: int = 90_000) -> str:
    """A scripted-model file of about ``size`` characters: answers and tool calls in turn."""
    lines = ["turns:"]
    total, n = 6, 0
    while total < size:
        block = (
            f'  - text: "Answer {n}: the order has shipped and should arrive within a week."\n'
            f'  - when: "(?i)order o{n}\\\\b"\n'
            "    function_calls:\n"
            f"      - name: lookup_order\n        args: {{order_id: o{n}, verbose: true}}"
        )
        lines.append(block)
        total += len(block) + 1
        n += 1
    return "\n".join(lines) + "\n"


def cpu_of(action: object) -> float:
    """Median process CPU seconds of ``REPEAT`` runs of ``action()``."""
    runs = []
    for _ in range(REPEAT):
        start = time.process_time()
        action()  # type: ignore[operator]
        runs.append(time.process_time() - start)
    return statistics.median(runs)


def validate_cpu(prelude: str, paths: tuple[str, ...] = ("configs/",)) -> float:
    """Median CPU seconds (user + system) of ``yadk validate PATHS`` in a fresh process."""
    code = prelude + (
        f"import sys\nfrom yadk.cli import main\nsys.argv = ['yadk', 'validate', *{paths!r}]\n"
        "main()\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True)
    runs = []
    for _ in range(REPEAT):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise SystemExit(f"yadk validate {' '.join(paths)} failed:\n{proc.stdout.decode()}")
        runs.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(runs)


def main() -> None:
    text = scripted_file()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "turns.yaml"
        path.write_text(text, encoding="utf-8")
        with_libyaml = cpu_of(lambda: ScriptedModel.from_file(path))
        parser = bounded.CParser
        bounded.CParser = None
        try:
            pure = cpu_of(lambda: ScriptedModel.from_file(path))
        finally:
            bounded.CParser = parser
        adk = run_adk(
            f"""
import json, statistics, time, yaml
text = open({str(path)!r}, encoding="utf-8").read()
runs = []
for _ in range({REPEAT}):
    start = time.process_time()
    yaml.safe_load(text)
    runs.append(time.process_time() - start)
print(json.dumps({{"seconds": statistics.median(runs)}}))
"""
        )
    adk_seconds = adk and adk["seconds"]
    print(f"Scripted-model file of {len(text) / 1000:.0f} KB ({REPEAT} runs, median CPU)")
    report(
        "ScriptedModel.from_file, libyaml",
        with_libyaml * 1000,
        adk_seconds and adk_seconds * 1000,
        "ms",
    )
    report(
        "ScriptedModel.from_file, pure Python",
        pure * 1000,
        adk_seconds and adk_seconds * 1000,
        "ms",
    )
    print(f"libyaml / pure Python: {pure / with_libyaml:.1f}x less CPU")

    validate = validate_cpu("")
    validate_pure = validate_cpu(PURE_PYTHON)
    print("\nyadk validate configs/ (fresh process, median CPU user + system)")
    print(f"  libyaml      {validate:.3f} s (target <= 0.3 s)")
    print(f"  pure Python  {validate_pure:.3f} s")
    eval_files = tuple(str(f.relative_to(ROOT)) for f in find_eval_files(ROOT / "configs"))
    validate_evals = validate_cpu("", eval_files)
    print(f"  its {len(eval_files)} eval files alone  {validate_evals:.3f} s")
    results = {
        "scripted_file_bytes": len(text.encode("utf-8")),
        "scripted_file_cpu_s": {"libyaml": with_libyaml, "pure_python": pure},
        "google_adk_safe_load_cpu_s": adk_seconds,
        "validate_configs_cpu_s": {"libyaml": validate, "pure_python": validate_pure},
        "validate_configs_eval_files_cpu_s": validate_evals,
    }
    # The printed rows, what the run was measured on (load average, ...), and these figures.
    write_results(__file__, **results)


if __name__ == "__main__":
    main()
