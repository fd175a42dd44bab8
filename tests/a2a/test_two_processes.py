"""Two processes, as docs/a2a.md shows them: `yadk serve` publishes an agent over A2A, and
`yadk run` on a config with `agent_class: RemoteA2aAgent` calls it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from tests.serve.test_server import YADK, Server

pytestmark = pytest.mark.subprocess

HERE = Path(__file__).with_name("two_process")


def test_yadk_run_calls_an_agent_that_yadk_serve_publishes(tmp_path: Path) -> None:
    shutil.copytree(HERE, tmp_path / "two_process")
    served = Server(
        str(tmp_path / "two_process" / "served"), "--db", str(tmp_path / "s.db"), cwd=tmp_path
    )
    try:
        caller = tmp_path / "two_process" / "caller" / "root_agent.yaml"
        caller.write_text(
            caller.read_text(encoding="utf-8").replace(
                "127.0.0.1:8001", f"127.0.0.1:{served.port}"
            ),
            encoding="utf-8",
        )
        run = subprocess.run(
            [
                *YADK,
                "run",
                str(caller.parent),
                "What is the capital of France?",
                "--db",
                str(tmp_path / "c.db"),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
        )
        assert run.returncode == 0, run.stderr
        assert run.stdout.splitlines()[-1] == "[capital_expert]: The capital of France is Paris."
    finally:
        served.stop()
