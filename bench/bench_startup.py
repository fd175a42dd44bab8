"""Whole-process start-up of the commands people run most.

Targets on a small clean tree (the ``yadk new`` scaffold): ``yadk validate`` <= 0.25 s and
``yadk inspect`` <= 0.35 s as whole processes (``python -c pass`` is about 20 ms). google-adk has
no validate or inspect; its nearest equivalent is loading the same YAML config
(``config_agent_utils.from_config``), measured on a plain ADK config both can read.

Each figure is the best of N runs, as wall time and as CPU time (user + system of the child):
on a shared, loaded machine the wall time mostly measures waiting for a core, so the CPU time
is the steadier figure. The load average is printed with them.

The children run with their bytecode cached, as after ``pip install`` (which compiles every
module): one warm-up run writes ``__pycache__``, and ``PYTHONDONTWRITEBYTECODE`` is removed
from their environment. With it set, an editable install recompiles every yadk module it
imports on every start (measured: 0.06 s more CPU for validate, 0.10 s more for inspect).
With ``--instructions`` each command also runs once under valgrind (cachegrind, no cache
simulation) and its count of executed instructions is printed: a figure the load average does
not move, for telling a regression from a busy machine.
The "libraries alone" line runs what ``yadk inspect`` cannot do without and no yadk code: import
pydantic and build one model (which also imports ``importlib.metadata`` for pydantic's plugin
loader), import asyncio and run a loop, import PyYAML (whose ``yaml.reader`` compiles one
regular expression that alone costs ~57 M instructions), json and argparse. It is the floor
under inspect's figure: what yadk can still cut is the difference.
Run: python bench/bench_startup.py [--instructions]
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _compare import ADK_PYTHON, adk_available, report, write_results

RUNS = 7
PLAIN = """\
name: plain
model: gemini-2.5-flash
description: A plain ADK config.
instruction: You answer questions about {topic}.
"""


# What inspect needs from its libraries, with no yadk code: the floor under its figure.
LIBRARIES = """\
from pydantic import BaseModel
class A(BaseModel):
    x: int
import argparse, asyncio, json, yaml
asyncio.run(asyncio.sleep(0))
"""

# Bytecode caches written and used, as in an installed package.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def measure(argv: list[str], *, cwd: Path) -> tuple[float, float]:
    """(best wall seconds, best CPU seconds) of running ``argv`` RUNS times, after a warm-up."""
    subprocess.run(argv, cwd=cwd, check=True, capture_output=True, env=ENV)
    walls: list[float] = []
    cpus: list[float] = []
    for _ in range(RUNS):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, cwd=cwd, check=True, capture_output=True, env=ENV)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return min(walls), min(cpus)


def instructions(argv: list[str], *, cwd: Path) -> int | None:
    """Instructions executed by ``argv`` (valgrind's cachegrind), or None without valgrind."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    tool = [valgrind, "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    proc = subprocess.run([*tool, *argv], cwd=cwd, check=True, capture_output=True, env=ENV)
    found = re.search(r"I\s+refs:\s+([\d,]+)", proc.stderr.decode())
    return int(found.group(1).replace(",", "")) if found else None


def main() -> None:
    count = "--instructions" in sys.argv[1:]
    yadk = [sys.executable, "-m", "yadk.cli"]
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        subprocess.run([*yadk, "new", "small"], cwd=root, check=True, capture_output=True)
        (root / "plain").mkdir()
        (root / "plain" / "root_agent.yaml").write_text(PLAIN, encoding="utf-8")
        print(
            f"Start-up, whole process (best of {RUNS}, bytecode cached;"
            f" load average {os.getloadavg()[0]:.1f})"
        )
        base_wall, base_cpu = measure([sys.executable, "-c", "pass"], cwd=root)
        print(f"{'python -c pass':<48} wall {base_wall:.3f} s | cpu {base_cpu:.3f} s")
        if count:
            _print_instructions("python -c pass", [sys.executable, "-c", "pass"], root)
        libraries = [sys.executable, "-c", LIBRARIES]
        lib_wall, lib_cpu = measure(libraries, cwd=root)
        print(
            f"{'libraries alone (inspect floor)':<48} wall {lib_wall:.3f} s | cpu {lib_cpu:.3f} s"
        )
        if count:
            _print_instructions("libraries alone (inspect floor)", libraries, root)
        adk: tuple[float, float] | None = None
        if adk_available():
            load = (
                "from google.adk.agents import config_agent_utils as u;"
                " u.from_config('plain/root_agent.yaml')"
            )
            adk = measure([ADK_PYTHON, "-W", "ignore", "-c", load], cwd=root)
            if count:
                adk_argv = [ADK_PYTHON, "-W", "ignore", "-c", load]
                _print_instructions("google-adk loading plain", adk_argv, root)
        for label, argv in [
            ("yadk validate small (target <= 0.25 s)", [*yadk, "validate", "small"]),
            ("yadk validate plain", [*yadk, "validate", "plain"]),
            ("yadk inspect small (target <= 0.35 s)", [*yadk, "inspect", "small"]),
        ]:
            wall, cpu = measure(argv, cwd=root)
            report(f"{label}, wall", wall, adk[0] if adk else None, "s")
            report(f"{label}, cpu", cpu, adk[1] if adk else None, "s")
            if count:
                _print_instructions(label.split(" (")[0], argv, root)
        if adk is not None:
            print(
                "(google-adk: loading plain/root_agent.yaml with config_agent_utils.from_config,"
                " its nearest equivalent)"
            )


def _print_instructions(label: str, argv: list[str], root: Path) -> None:
    executed = instructions(argv, cwd=root)
    shown = "valgrind not available" if executed is None else f"{executed / 1e6:,.0f} M"
    print(f"{label + ', instructions':<48} {shown}")


if __name__ == "__main__":
    main()
    write_results(__file__)
