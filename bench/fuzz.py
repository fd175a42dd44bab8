"""Fuzz yadk's untrusted-file readers with a large budget, under a memory cap.

    python bench/fuzz.py                 # 2000 inputs per format, 3 GiB address-space cap
    python bench/fuzz.py --examples 200 --memory-gib 2

Runs ``tests/hardening/test_fuzz.py`` (configs, SKILL.md, scripted model files, examples files)
and the command-line fuzz of ``tests/hardening/test_cli_fuzz.py`` (hostile files, states,
databases and ids given to ``yadk``'s commands) with fresh random inputs (the suite's run is
small and derandomized). A failure prints the shrunk input that broke a rule: an exception that
escaped, an ``internal-error`` diagnostic or an "unexpected" CLI error, a hang past 20 s, or
memory past the cap (a MemoryError). Prints the counts, the time and the peak
resident memory of the run.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FORMATS = 5  # the four test functions of test_fuzz.py, and the command line


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=2000, help="inputs per format")
    parser.add_argument("--memory-gib", type=float, default=3.0, help="address-space cap")
    options = parser.parse_args()
    cap = int(options.memory_gib * 1024**3)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    env = {**os.environ, "YADK_FUZZ_EXAMPLES": str(options.examples), "YADK_FUZZ_RANDOM": "1"}
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x",
         "tests/hardening/test_fuzz.py",
         "tests/hardening/test_cli_fuzz.py::test_the_command_line"],
        cwd=REPO,
        env=env,
        preexec_fn=limit,
        check=False,
    )  # fmt: skip
    elapsed = time.monotonic() - started
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    total = options.examples * FORMATS
    verdict = "no problem found" if result.returncode == 0 else "FAILED (see above)"
    print(
        f"fuzz: {total} inputs ({options.examples} per format x {FORMATS} formats) in"
        f" {elapsed:.0f} s, peak RSS {peak_mib:.0f} MiB under a {options.memory_gib:g} GiB cap:"
        f" {verdict}"
    )
    return result.returncode


if __name__ == "__main__":
    raise SystemExit(main())
