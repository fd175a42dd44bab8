"""The skill-script timeout holds whatever the script starts. A ``setsid``
grandchild that keeps stdout open neither stalls the call nor survives it."""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from yadk.skills import SkillToolset
from yadk.testing import tool_context

pytestmark = [
    pytest.mark.subprocess,
    pytest.mark.skipif(
        shutil.which("setsid") is None or not os.path.isdir("/proc"),
        reason="needs setsid and /proc (Linux)",
    ),
]

SKILL_MD = "---\nname: slow\ndescription: Starts things.\n---\nRun the scripts.\n"


def _skill(tmp_path: Path, script: str) -> SkillToolset:
    folder = tmp_path / "skills" / "slow"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    (folder / "scripts" / "run.sh").write_text(script, encoding="utf-8")
    return SkillToolset([tmp_path / "skills"], allow_scripts=True, script_timeout=2)


async def _run(toolset: SkillToolset) -> Any:
    tools = {tool.name: tool for tool in await toolset.get_tools()}
    return await tools["run_skill_script"].run_async(
        args={"skill_name": "slow", "file_path": "scripts/run.sh"}, tool_context=tool_context()
    )


def _dead(pid: int) -> bool:
    """Whether ``pid`` is gone (or a zombie nobody has reaped yet)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return True
    return stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3] == b"Z"


def _eventually_dead(pid: int) -> bool:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if _dead(pid):
            return True
        time.sleep(0.05)
    return False


async def test_a_setsid_grandchild_holding_stdout(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    toolset = _skill(
        tmp_path,
        f"echo started\nsetsid sh -c 'echo $$ > {pid_file}.tmp; mv {pid_file}.tmp {pid_file}; exec sleep 3600' &\nsleep 3600\n",
    )
    # Both would hold stdout for an hour: the call returns at its timeout, or this one fails.
    result = await asyncio.wait_for(_run(toolset), 60)
    assert result["status"] == "error"
    assert result["stdout"] == "started\n"
    assert result["stderr"].endswith("Timed out after 2s")
    assert _eventually_dead(int(pid_file.read_text()))


async def test_an_orphan_that_keeps_stdout_after_the_script_exits(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    toolset = _skill(
        tmp_path,
        f"setsid sh -c 'echo $$ > {pid_file}.tmp; mv {pid_file}.tmp {pid_file}; exec sleep 3600' &\n"
        f"while [ ! -s {pid_file} ]; do sleep 0.05; done\n"
        "echo bye\nexit 0\n",
    )
    # The orphan would hold stdout for an hour: the call returns when the script exits.
    result = await asyncio.wait_for(_run(toolset), 60)
    assert result["stdout"] == "bye\n"
    assert _eventually_dead(int(pid_file.read_text()))


async def test_a_background_process_is_not_left_running(tmp_path: Path) -> None:
    pid_file = tmp_path / "daemon.pid"
    toolset = _skill(
        tmp_path,
        f"setsid sh -c 'echo $$ > {pid_file}.tmp; mv {pid_file}.tmp {pid_file}; exec sleep 60'"
        " < /dev/null > /dev/null 2>&1 &\n"
        f"while [ ! -s {pid_file} ]; do sleep 0.05; done\n"
        "echo done\n",
    )
    result = await _run(toolset)
    assert (result["stdout"], result["status"]) == ("done\n", "success")
    assert _eventually_dead(int(pid_file.read_text()))
